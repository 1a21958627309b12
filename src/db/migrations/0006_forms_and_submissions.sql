CREATE TABLE "form_submission_files" (
	"submission_id" uuid NOT NULL,
	"field_key" text NOT NULL,
	"file_name" text NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"storage_key" text NOT NULL,
	CONSTRAINT "form_submission_files_storage_key_unique" UNIQUE("storage_key"),
	CONSTRAINT "form_submission_files_submission_id_field_key_key" UNIQUE("submission_id","field_key")
);
--> statement-breakpoint
CREATE TABLE "form_submissions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"form_id" uuid NOT NULL,
	"reporting_period_id" uuid,
	"answers" jsonb NOT NULL,
	"location" jsonb,
	"counted" boolean NOT NULL,
	"submitted_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "forms" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"indicator_id" uuid,
	"reporting_period_id" uuid,
	"value_field_key" text,
	"title" text NOT NULL,
	"description" text,
	"public_token" uuid NOT NULL,
	"is_published" boolean DEFAULT false NOT NULL,
	"closes_at" timestamp with time zone,
	"fields" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "forms_public_token_unique" UNIQUE("public_token"),
	CONSTRAINT "forms_org_id_id_key" UNIQUE("org_id","id")
);
--> statement-breakpoint
ALTER TABLE "form_submission_files" ADD CONSTRAINT "form_submission_files_submission_id_form_submissions_id_fk" FOREIGN KEY ("submission_id") REFERENCES "public"."form_submissions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "form_submissions" ADD CONSTRAINT "form_submissions_reporting_period_id_reporting_periods_id_fk" FOREIGN KEY ("reporting_period_id") REFERENCES "public"."reporting_periods"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "form_submissions" ADD CONSTRAINT "form_submissions_org_id_form_id_forms_org_id_id_fk" FOREIGN KEY ("org_id","form_id") REFERENCES "public"."forms"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forms" ADD CONSTRAINT "forms_org_id_project_id_projects_org_id_id_fk" FOREIGN KEY ("org_id","project_id") REFERENCES "public"."projects"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forms" ADD CONSTRAINT "forms_project_indicator_fk" FOREIGN KEY ("project_id","indicator_id") REFERENCES "public"."project_indicators"("project_id","indicator_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forms" ADD CONSTRAINT "forms_reporting_period_fk" FOREIGN KEY ("project_id","reporting_period_id") REFERENCES "public"."reporting_periods"("project_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "form_submissions_form_id_submitted_at_idx" ON "form_submissions" USING btree ("form_id","submitted_at","id");--> statement-breakpoint
CREATE INDEX "form_submissions_reporting_period_id_idx" ON "form_submissions" USING btree ("reporting_period_id");--> statement-breakpoint
CREATE INDEX "forms_org_id_project_id_idx" ON "forms" USING btree ("org_id","project_id");--> statement-breakpoint
CREATE INDEX "forms_project_id_indicator_id_idx" ON "forms" USING btree ("project_id","indicator_id");--> statement-breakpoint
CREATE INDEX "forms_reporting_period_id_idx" ON "forms" USING btree ("reporting_period_id");
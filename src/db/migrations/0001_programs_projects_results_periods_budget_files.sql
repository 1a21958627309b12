CREATE TYPE "public"."donor_type" AS ENUM('bilateral', 'multilateral', 'private', 'ngo', 'government', 'other');--> statement-breakpoint
CREATE TYPE "public"."result_level" AS ENUM('impact', 'outcome', 'output');--> statement-breakpoint
CREATE TABLE "budget_lines" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"category" text NOT NULL,
	"description" text,
	"planned_amount" numeric(18, 2) DEFAULT 0 NOT NULL,
	"actual_amount" numeric(18, 2) DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "donors" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"name" text NOT NULL,
	"code" text NOT NULL,
	"type" "donor_type" NOT NULL,
	"country" text,
	"website" text,
	"contact_name" text,
	"contact_email" text,
	"notes" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "donors_org_id_code_key" UNIQUE("org_id","code"),
	CONSTRAINT "donors_org_id_id_key" UNIQUE("org_id","id")
);
--> statement-breakpoint
CREATE TABLE "attachments" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"title" text NOT NULL,
	"file_name" text NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"storage_key" text NOT NULL,
	"uploaded_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "attachments_storage_key_unique" UNIQUE("storage_key")
);
--> statement-breakpoint
CREATE TABLE "reporting_periods" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"label" text NOT NULL,
	"start_date" date NOT NULL,
	"end_date" date NOT NULL,
	"due_date" date,
	"is_locked" boolean DEFAULT false NOT NULL,
	"locked_at" timestamp with time zone,
	"locked_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reporting_periods_org_id_id_key" UNIQUE("org_id","id")
);
--> statement-breakpoint
CREATE TABLE "program_donors" (
	"org_id" uuid NOT NULL,
	"program_id" uuid NOT NULL,
	"donor_id" uuid NOT NULL,
	CONSTRAINT "program_donors_org_id_program_id_donor_id_pk" PRIMARY KEY("org_id","program_id","donor_id")
);
--> statement-breakpoint
CREATE TABLE "result_nodes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"program_id" uuid NOT NULL,
	"parent_id" uuid,
	"level" "result_level" NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"order_index" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "result_nodes_org_id_id_key" UNIQUE("org_id","id")
);
--> statement-breakpoint
-- The composite key must exist before the foreign keys that reference it.
ALTER TABLE "programs" ADD CONSTRAINT "programs_org_id_id_key" UNIQUE("org_id","id");--> statement-breakpoint
ALTER TABLE "budget_lines" ADD CONSTRAINT "budget_lines_org_id_project_id_projects_org_id_id_fk" FOREIGN KEY ("org_id","project_id") REFERENCES "public"."projects"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "donors" ADD CONSTRAINT "donors_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_uploaded_by_users_id_fk" FOREIGN KEY ("uploaded_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_org_id_project_id_projects_org_id_id_fk" FOREIGN KEY ("org_id","project_id") REFERENCES "public"."projects"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reporting_periods" ADD CONSTRAINT "reporting_periods_locked_by_users_id_fk" FOREIGN KEY ("locked_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reporting_periods" ADD CONSTRAINT "reporting_periods_org_id_project_id_projects_org_id_id_fk" FOREIGN KEY ("org_id","project_id") REFERENCES "public"."projects"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "program_donors" ADD CONSTRAINT "program_donors_org_id_program_id_programs_org_id_id_fk" FOREIGN KEY ("org_id","program_id") REFERENCES "public"."programs"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "program_donors" ADD CONSTRAINT "program_donors_org_id_donor_id_donors_org_id_id_fk" FOREIGN KEY ("org_id","donor_id") REFERENCES "public"."donors"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "result_nodes" ADD CONSTRAINT "result_nodes_parent_id_result_nodes_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."result_nodes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "result_nodes" ADD CONSTRAINT "result_nodes_org_id_program_id_programs_org_id_id_fk" FOREIGN KEY ("org_id","program_id") REFERENCES "public"."programs"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "budget_lines_org_id_project_id_idx" ON "budget_lines" USING btree ("org_id","project_id");--> statement-breakpoint
CREATE INDEX "donors_org_id_name_idx" ON "donors" USING btree ("org_id","name");--> statement-breakpoint
CREATE INDEX "attachments_org_id_project_id_idx" ON "attachments" USING btree ("org_id","project_id","created_at");--> statement-breakpoint
CREATE INDEX "reporting_periods_org_id_project_id_start_date_idx" ON "reporting_periods" USING btree ("org_id","project_id","start_date");--> statement-breakpoint
CREATE INDEX "program_donors_org_id_donor_id_idx" ON "program_donors" USING btree ("org_id","donor_id");--> statement-breakpoint
CREATE INDEX "result_nodes_org_id_program_id_parent_id_idx" ON "result_nodes" USING btree ("org_id","program_id","parent_id","order_index");

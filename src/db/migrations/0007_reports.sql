CREATE TYPE "public"."report_status" AS ENUM('draft', 'published');--> statement-breakpoint
CREATE TYPE "public"."report_type" AS ENUM('quarterly', 'annual', 'ad_hoc');--> statement-breakpoint
CREATE TABLE "reports" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"title" text NOT NULL,
	"report_type" "report_type" NOT NULL,
	"start_date" date NOT NULL,
	"end_date" date NOT NULL,
	"selected_period_ids" uuid[],
	"status" "report_status" DEFAULT 'draft' NOT NULL,
	"narratives" jsonb NOT NULL,
	"content" jsonb NOT NULL,
	"share_token" uuid,
	"share_token_hash" text,
	"share_expires_at" timestamp with time zone,
	"published_at" timestamp with time zone,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reports_share_token_hash_unique" UNIQUE("share_token_hash"),
	CONSTRAINT "reports_org_id_id_key" UNIQUE("org_id","id")
);
--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_org_id_project_id_projects_org_id_id_fk" FOREIGN KEY ("org_id","project_id") REFERENCES "public"."projects"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "reports_org_id_created_at_idx" ON "reports" USING btree ("org_id","created_at");--> statement-breakpoint
CREATE INDEX "reports_org_id_project_id_idx" ON "reports" USING btree ("org_id","project_id");
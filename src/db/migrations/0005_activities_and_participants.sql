CREATE TYPE "public"."activity_status" AS ENUM('planned', 'in_progress', 'completed', 'cancelled');--> statement-breakpoint
CREATE TYPE "public"."sex" AS ENUM('female', 'male', 'other');--> statement-breakpoint
CREATE TABLE "activities" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"output_id" uuid,
	"title" text NOT NULL,
	"description" text,
	"start_date" date NOT NULL,
	"end_date" date NOT NULL,
	"location" text,
	"facilitator" text,
	"status" "activity_status" DEFAULT 'planned' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "activities_org_id_id_key" UNIQUE("org_id","id")
);
--> statement-breakpoint
CREATE TABLE "activity_participants" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"activity_id" uuid NOT NULL,
	"participant_id" uuid NOT NULL,
	"role" text DEFAULT 'attendee' NOT NULL,
	"attended" boolean DEFAULT false NOT NULL,
	"registered_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "activity_participants_activity_id_participant_id_key" UNIQUE("activity_id","participant_id")
);
--> statement-breakpoint
CREATE TABLE "household_members" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"participant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"relationship" text NOT NULL,
	"sex" "sex" NOT NULL,
	"age" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "household_members_age_check" CHECK ("household_members"."age" BETWEEN 0 AND 130)
);
--> statement-breakpoint
CREATE TABLE "participants" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"first_name" text NOT NULL,
	"last_name" text NOT NULL,
	"sex" "sex" NOT NULL,
	"date_of_birth" date,
	"phone" text,
	"national_id" text,
	"village" text NOT NULL,
	"district" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "participants_org_id_id_key" UNIQUE("org_id","id")
);
--> statement-breakpoint
ALTER TABLE "activities" ADD CONSTRAINT "activities_output_id_result_nodes_id_fk" FOREIGN KEY ("output_id") REFERENCES "public"."result_nodes"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activities" ADD CONSTRAINT "activities_org_id_project_id_projects_org_id_id_fk" FOREIGN KEY ("org_id","project_id") REFERENCES "public"."projects"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_participants" ADD CONSTRAINT "activity_participants_org_id_activity_id_activities_org_id_id_fk" FOREIGN KEY ("org_id","activity_id") REFERENCES "public"."activities"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_participants" ADD CONSTRAINT "activity_participants_org_id_participant_id_participants_org_id_id_fk" FOREIGN KEY ("org_id","participant_id") REFERENCES "public"."participants"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "household_members" ADD CONSTRAINT "household_members_org_id_participant_id_participants_org_id_id_fk" FOREIGN KEY ("org_id","participant_id") REFERENCES "public"."participants"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "participants" ADD CONSTRAINT "participants_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "activities_org_id_project_id_start_date_idx" ON "activities" USING btree ("org_id","project_id","start_date");--> statement-breakpoint
CREATE INDEX "activities_output_id_idx" ON "activities" USING btree ("output_id");--> statement-breakpoint
CREATE INDEX "activity_participants_participant_id_idx" ON "activity_participants" USING btree ("participant_id");--> statement-breakpoint
CREATE INDEX "household_members_participant_id_idx" ON "household_members" USING btree ("participant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "participants_org_id_national_id_key" ON "participants" USING btree ("org_id","national_id") WHERE "participants"."national_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "participants_org_id_name_idx" ON "participants" USING btree ("org_id","last_name","first_name");
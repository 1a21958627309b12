ALTER TABLE "reporting_periods" ADD CONSTRAINT "reporting_periods_project_id_id_key" UNIQUE("project_id","id");--> statement-breakpoint
CREATE TYPE "public"."indicator_report_status" AS ENUM('draft', 'submitted', 'approved', 'rejected');--> statement-breakpoint
CREATE TYPE "public"."aggregation_method" AS ENUM('sum', 'average', 'latest', 'min', 'max');--> statement-breakpoint
CREATE TABLE "indicator_reports" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"indicator_id" uuid NOT NULL,
	"reporting_period_id" uuid NOT NULL,
	"value" double precision,
	"target" double precision,
	"narrative" text,
	"disaggregated_values" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" "indicator_report_status" DEFAULT 'draft' NOT NULL,
	"comment" text,
	"submitted_at" timestamp with time zone,
	"submitted_by" uuid,
	"reviewed_at" timestamp with time zone,
	"reviewed_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "indicator_reports_project_id_indicator_id_period_key" UNIQUE("project_id","indicator_id","reporting_period_id"),
	CONSTRAINT "indicator_reports_org_id_id_key" UNIQUE("org_id","id")
);
--> statement-breakpoint
CREATE TABLE "indicator_disaggregations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"indicator_id" uuid NOT NULL,
	"name" text NOT NULL,
	"categories" text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "indicator_formula_inputs" (
	"org_id" uuid NOT NULL,
	"indicator_id" uuid NOT NULL,
	"input_id" uuid NOT NULL,
	CONSTRAINT "indicator_formula_inputs_indicator_id_input_id_pk" PRIMARY KEY("indicator_id","input_id")
);
--> statement-breakpoint
CREATE TABLE "indicators" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"name" text NOT NULL,
	"code" text NOT NULL,
	"unit" text NOT NULL,
	"aggregation_method" "aggregation_method",
	"description" text,
	"data_source" text,
	"result_node_id" uuid,
	"is_formula" boolean DEFAULT false NOT NULL,
	"formula" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "indicators_org_id_id_key" UNIQUE("org_id","id")
);
--> statement-breakpoint
CREATE TABLE "project_indicators" (
	"org_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"indicator_id" uuid NOT NULL,
	"target" double precision,
	"baseline" double precision,
	"baseline_year" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "project_indicators_project_id_indicator_id_pk" PRIMARY KEY("project_id","indicator_id")
);
--> statement-breakpoint
ALTER TABLE "indicator_reports" ADD CONSTRAINT "indicator_reports_submitted_by_users_id_fk" FOREIGN KEY ("submitted_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "indicator_reports" ADD CONSTRAINT "indicator_reports_reviewed_by_users_id_fk" FOREIGN KEY ("reviewed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "indicator_reports" ADD CONSTRAINT "indicator_reports_org_id_project_id_projects_org_id_id_fk" FOREIGN KEY ("org_id","project_id") REFERENCES "public"."projects"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "indicator_reports" ADD CONSTRAINT "indicator_reports_project_indicator_fk" FOREIGN KEY ("project_id","indicator_id") REFERENCES "public"."project_indicators"("project_id","indicator_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "indicator_reports" ADD CONSTRAINT "indicator_reports_reporting_period_fk" FOREIGN KEY ("project_id","reporting_period_id") REFERENCES "public"."reporting_periods"("project_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "indicator_disaggregations" ADD CONSTRAINT "indicator_disaggregations_indicator_fk" FOREIGN KEY ("org_id","indicator_id") REFERENCES "public"."indicators"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "indicator_formula_inputs" ADD CONSTRAINT "indicator_formula_inputs_indicator_fk" FOREIGN KEY ("org_id","indicator_id") REFERENCES "public"."indicators"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "indicator_formula_inputs" ADD CONSTRAINT "indicator_formula_inputs_input_fk" FOREIGN KEY ("org_id","input_id") REFERENCES "public"."indicators"("org_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "indicators" ADD CONSTRAINT "indicators_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "indicators" ADD CONSTRAINT "indicators_result_node_id_result_nodes_id_fk" FOREIGN KEY ("result_node_id") REFERENCES "public"."result_nodes"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_indicators" ADD CONSTRAINT "project_indicators_org_id_project_id_projects_org_id_id_fk" FOREIGN KEY ("org_id","project_id") REFERENCES "public"."projects"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_indicators" ADD CONSTRAINT "project_indicators_org_id_indicator_id_indicators_org_id_id_fk" FOREIGN KEY ("org_id","indicator_id") REFERENCES "public"."indicators"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "indicator_reports_reporting_period_id_idx" ON "indicator_reports" USING btree ("reporting_period_id");--> statement-breakpoint
CREATE INDEX "indicator_reports_indicator_id_idx" ON "indicator_reports" USING btree ("indicator_id");--> statement-breakpoint
CREATE UNIQUE INDEX "indicator_disaggregations_indicator_id_lower_name_key" ON "indicator_disaggregations" USING btree ("indicator_id",lower("name"));--> statement-breakpoint
CREATE INDEX "indicator_formula_inputs_input_id_idx" ON "indicator_formula_inputs" USING btree ("input_id");--> statement-breakpoint
CREATE UNIQUE INDEX "indicators_org_id_lower_code_key" ON "indicators" USING btree ("org_id",lower("code"));--> statement-breakpoint
CREATE INDEX "indicators_result_node_id_idx" ON "indicators" USING btree ("result_node_id");--> statement-breakpoint
CREATE INDEX "project_indicators_indicator_id_idx" ON "project_indicators" USING btree ("indicator_id");

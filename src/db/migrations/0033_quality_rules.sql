CREATE TABLE "validation_rule_inputs" (
	"org_id" uuid NOT NULL,
	"rule_id" uuid NOT NULL,
	"indicator_id" uuid NOT NULL,
	"code" text NOT NULL,
	CONSTRAINT "validation_rule_inputs_pkey" PRIMARY KEY("org_id","rule_id","indicator_id")
);
--> statement-breakpoint
CREATE TABLE "validation_rules" (
	"id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	"name" text NOT NULL,
	"left_expression" text NOT NULL,
	"operator" text NOT NULL,
	"right_expression" text NOT NULL,
	"importance" text NOT NULL,
	"instruction" text,
	"project_ids" uuid[],
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "validation_rules_pkey" PRIMARY KEY("org_id","id"),
	CONSTRAINT "validation_rules_operator_check" CHECK ("validation_rules"."operator" IN ('==', '!=', '<', '<=', '>', '>=')),
	CONSTRAINT "validation_rules_importance_check" CHECK ("validation_rules"."importance" IN ('high', 'medium', 'low'))
);
--> statement-breakpoint
ALTER TABLE "indicator_reports" ADD COLUMN "flags" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "validation_rule_inputs" ADD CONSTRAINT "validation_rule_inputs_rule_fk" FOREIGN KEY ("org_id","rule_id") REFERENCES "public"."validation_rules"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "validation_rule_inputs" ADD CONSTRAINT "validation_rule_inputs_indicator_fk" FOREIGN KEY ("org_id","indicator_id") REFERENCES "public"."indicators"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "validation_rules" ADD CONSTRAINT "validation_rules_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "validation_rule_inputs_indicator_idx" ON "validation_rule_inputs" USING btree ("org_id","indicator_id");--> statement-breakpoint
CREATE INDEX "validation_rules_org_id_name_idx" ON "validation_rules" USING btree ("org_id","name");--> statement-breakpoint
CREATE INDEX "indicator_reports_flagged_idx" ON "indicator_reports" USING btree ("org_id","project_id") WHERE "indicator_reports"."flags" <> '[]'::jsonb;
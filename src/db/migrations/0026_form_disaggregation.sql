-- Forms that fill disaggregations: the form's mappings of fields to its indicator's disaggregations, the
-- cells each counted submission added, and the counted part of a report's cells (what a recount rebuilds).
ALTER TABLE "form_submissions" ADD COLUMN "counted_cells" jsonb;--> statement-breakpoint
ALTER TABLE "forms" ADD COLUMN "disaggregate_by" jsonb;--> statement-breakpoint
ALTER TABLE "indicator_reports" ADD COLUMN "counted_disaggregated_values" jsonb DEFAULT '{}'::jsonb NOT NULL;
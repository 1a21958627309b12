-- Counting by date (a form's submissions count into the project's period holding their date) and the
-- reason each submission was not counted. Existing submissions: counted ones have no reason; the others
-- get what is derivable from what is stored (no indicator or period: not_counting; the value field's
-- answer not a number: no_value), else unknown (a locked period or a report under review then: not kept).
ALTER TABLE "form_submissions" ADD COLUMN "counted_reason" text;--> statement-breakpoint
ALTER TABLE "form_submissions" ADD COLUMN "count_date" date;--> statement-breakpoint
ALTER TABLE "forms" ADD COLUMN "count_into" text DEFAULT 'fixed_period' NOT NULL;--> statement-breakpoint
ALTER TABLE "forms" ADD COLUMN "count_date_field" text;--> statement-breakpoint
ALTER TABLE "indicator_reports" ADD COLUMN "refused_since_submitted" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "form_submissions" s SET "counted_reason" = CASE
  WHEN f."indicator_id" IS NULL OR s."reporting_period_id" IS NULL THEN 'not_counting'
  WHEN f."value_field_key" IS NOT NULL
    AND jsonb_typeof(s."answers" -> f."value_field_key") IS DISTINCT FROM 'number' THEN 'no_value'
  ELSE 'unknown' END
FROM "forms" f
WHERE f."org_id" = s."org_id" AND f."id" = s."form_id" AND NOT s."counted" AND s."counted_reason" IS NULL;--> statement-breakpoint
ALTER TABLE "form_submissions" ADD CONSTRAINT "form_submissions_counted_reason_check" CHECK ("form_submissions"."counted_reason" IS NULL OR ("form_submissions"."counted_reason" IN ('not_counting', 'no_value', 'no_period_for_date', 'period_locked', 'report_submitted', 'report_approved', 'value_out_of_range', 'category_not_mapped', 'unknown') AND NOT "form_submissions"."counted"));--> statement-breakpoint
ALTER TABLE "forms" ADD CONSTRAINT "forms_count_into_check" CHECK ("forms"."count_into" IN ('fixed_period', 'period_of_date'));
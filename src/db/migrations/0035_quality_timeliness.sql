ALTER TABLE "indicator_reports" ADD COLUMN "first_submitted_at" timestamp with time zone;--> statement-breakpoint
-- Reports submitted before the column existed: their first submission is the history's first
-- `submitted` entry (the history has recorded every submission since it began), else the last one.
UPDATE "indicator_reports" r SET "first_submitted_at" = coalesce(
  (SELECT min(h."at") FROM "indicator_report_history" h
    WHERE h."org_id" = r."org_id" AND h."indicator_report_id" = r."id" AND h."kind" = 'submitted'),
  r."submitted_at")
WHERE r."submitted_at" IS NOT NULL;

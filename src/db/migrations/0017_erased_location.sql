-- A respondent's position is personal data (DECISIONS.md section 13): erasure removes it. Submissions
-- erased before it was lose it now, and the check keeps every erased submission without one.
UPDATE "form_submissions" SET "location" = NULL WHERE "personal_erased_at" IS NOT NULL AND "location" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "form_submissions" ADD CONSTRAINT "form_submissions_erased_location_check" CHECK ("form_submissions"."personal_erased_at" IS NULL OR "form_submissions"."location" IS NULL);

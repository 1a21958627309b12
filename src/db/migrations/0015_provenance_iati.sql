CREATE TABLE "indicator_report_history" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "indicator_report_history_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"org_id" uuid NOT NULL,
	"indicator_report_id" uuid NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"kind" text NOT NULL,
	"actor_id" uuid,
	"submission_id" uuid,
	"changes" jsonb NOT NULL,
	"reason" text,
	CONSTRAINT "indicator_report_history_kind_check" CHECK ("indicator_report_history"."kind" IN ('created', 'edited', 'prefilled', 'counted', 'recounted', 'uncounted', 'submitted', 'approved', 'rejected'))
);
--> statement-breakpoint
ALTER TABLE "form_submissions" ADD COLUMN "indicator_report_id" uuid;--> statement-breakpoint
ALTER TABLE "form_submissions" ADD COLUMN "counted_amount" double precision;--> statement-breakpoint
ALTER TABLE "indicator_reports" ADD COLUMN "counted_value" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "indicator_reports" ADD COLUMN "counted_submissions" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "indicator_reports" ADD COLUMN "personal_amounts_gone" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "indicator_reports" ADD COLUMN "prefill_value" double precision;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "iati_ref" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "iati_org_type" text DEFAULT '21' NOT NULL;--> statement-breakpoint
ALTER TABLE "indicator_report_history" ADD CONSTRAINT "indicator_report_history_report_fk" FOREIGN KEY ("org_id","indicator_report_id") REFERENCES "public"."indicator_reports"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "indicator_report_history_report_id_idx" ON "indicator_report_history" USING btree ("indicator_report_id","id");--> statement-breakpoint
ALTER TABLE "form_submissions" ADD CONSTRAINT "form_submissions_indicator_report_fk" FOREIGN KEY ("org_id","indicator_report_id") REFERENCES "public"."indicator_reports"("org_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "form_submissions_indicator_report_id_idx" ON "form_submissions" USING btree ("indicator_report_id","submitted_at","id") WHERE "form_submissions"."indicator_report_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "form_submissions" ADD CONSTRAINT "form_submissions_counted_link_check" CHECK (("form_submissions"."indicator_report_id" IS NULL) = ("form_submissions"."counted_amount" IS NULL) AND ("form_submissions"."indicator_report_id" IS NULL OR "form_submissions"."counted"));--> statement-breakpoint
ALTER TABLE "form_submissions" ADD CONSTRAINT "form_submissions_counted_amount_finite" CHECK ("form_submissions"."counted_amount" > '-Infinity'::float8 AND "form_submissions"."counted_amount" < 'Infinity'::float8);--> statement-breakpoint
ALTER TABLE "indicator_reports" ADD CONSTRAINT "indicator_reports_counted_value_finite" CHECK ("indicator_reports"."counted_value" > '-Infinity'::float8 AND "indicator_reports"."counted_value" < 'Infinity'::float8);--> statement-breakpoint
ALTER TABLE "indicator_reports" ADD CONSTRAINT "indicator_reports_prefill_value_finite" CHECK ("indicator_reports"."prefill_value" > '-Infinity'::float8 AND "indicator_reports"."prefill_value" < 'Infinity'::float8);--> statement-breakpoint
-- Submissions counted before sources were kept are linked to the report they went into, with the amount
-- the form adds (1, or the value field's answer), where that is certain: the form has not changed since
-- the submission (its indicator or value field may have). Each report's counted part is their sum; what
-- could not be linked stays in the value as the part entered by hand.
UPDATE "form_submissions" s SET
	"indicator_report_id" = r."id",
	"counted_amount" = CASE WHEN f."value_field_key" IS NULL THEN 1 ELSE (s."answers" ->> f."value_field_key")::float8 END
FROM "forms" f, "indicator_reports" r
WHERE s."counted" AND f."org_id" = s."org_id" AND f."id" = s."form_id"
	AND r."project_id" = f."project_id" AND r."indicator_id" = f."indicator_id"
	AND r."reporting_period_id" = s."reporting_period_id"
	AND f."updated_at" <= s."submitted_at"
	AND (f."value_field_key" IS NULL OR jsonb_typeof(s."answers" -> f."value_field_key") = 'number');--> statement-breakpoint
UPDATE "indicator_reports" r SET "counted_value" = c."amount", "counted_submissions" = c."submissions"
FROM (
	SELECT "indicator_report_id", sum("counted_amount") AS "amount", count(*)::int AS "submissions"
	FROM "form_submissions" WHERE "indicator_report_id" IS NOT NULL GROUP BY 1
) c
WHERE r."id" = c."indicator_report_id";--> statement-breakpoint
-- A report's history is append-only: no UPDATE, no TRUNCATE, and DELETE only by the cascade of the
-- report's own deletion (the foreign key's trigger runs it, one trigger level down).
CREATE FUNCTION "indicator_report_history_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' AND pg_trigger_depth() > 1 THEN
		RETURN OLD;
	END IF;
	RAISE EXCEPTION 'indicator_report_history is append-only: % refused', TG_OP USING ERRCODE = '42501';
END
$$;--> statement-breakpoint
CREATE TRIGGER "indicator_report_history_append_only" BEFORE UPDATE OR DELETE ON "indicator_report_history"
	FOR EACH ROW EXECUTE FUNCTION "indicator_report_history_append_only"();--> statement-breakpoint
CREATE TRIGGER "indicator_report_history_no_truncate" BEFORE TRUNCATE ON "indicator_report_history"
	FOR EACH STATEMENT EXECUTE FUNCTION "indicator_report_history_append_only"();
--> statement-breakpoint
-- Deleting a project (or its program) removes its periods and reports, and its forms with their
-- submissions, whose references to both are checked at commit in those deletes (checkReferencesAtCommit):
-- checked after the first cascade, they refused the delete of any project with counted submissions.
-- Everywhere else they are checked at once, as before.
ALTER TABLE "form_submissions" ALTER CONSTRAINT "form_submissions_reporting_period_id_reporting_periods_id_fk" DEFERRABLE INITIALLY IMMEDIATE;--> statement-breakpoint
ALTER TABLE "form_submissions" ALTER CONSTRAINT "form_submissions_indicator_report_fk" DEFERRABLE INITIALLY IMMEDIATE;

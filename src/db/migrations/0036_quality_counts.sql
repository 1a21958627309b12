CREATE TABLE "period_report_counts" (
	"org_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"reporting_period_id" uuid NOT NULL,
	"entered" integer DEFAULT 0 NOT NULL,
	"reported" integer DEFAULT 0 NOT NULL,
	"on_time" integer DEFAULT 0 NOT NULL,
	"approved" integer DEFAULT 0 NOT NULL,
	"flagged" integer DEFAULT 0 NOT NULL,
	"open_flags" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "period_report_counts_pkey" PRIMARY KEY("org_id","reporting_period_id")
);
--> statement-breakpoint
ALTER TABLE "period_report_counts" ADD CONSTRAINT "period_report_counts_reporting_period_fk" FOREIGN KEY ("org_id","project_id","reporting_period_id") REFERENCES "public"."reporting_periods"("org_id","project_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The read model's triggers. A statement's changed reports, as they are now (sign +1) and as they were
-- (sign -1), are summed per period and added to the period's row, in period order; only periods whose
-- counts change are written (a report's other columns change without touching the read model or taking
-- its row lock). A period deleted in the same statement (a project's deletion cascades to both) is left
-- out: its counts go with it.
CREATE TYPE "period_report_change" AS (
	"org_id" uuid,
	"project_id" uuid,
	"reporting_period_id" uuid,
	"value" double precision,
	"status" "indicator_report_status",
	"first_submitted_at" timestamp with time zone,
	"flags" jsonb,
	"sign" integer
);--> statement-breakpoint
-- PL/pgSQL rather than SQL: its statement's plan is kept for the session, not made again on each call.
CREATE FUNCTION "period_report_counts_add"(changes "period_report_change"[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO "period_report_counts" AS c
		("org_id", "project_id", "reporting_period_id", "entered", "reported", "on_time", "approved", "flagged", "open_flags")
	SELECT * FROM (
		SELECT r."org_id", r."project_id", r."reporting_period_id",
			sum(r."sign" * (r."value" IS NOT NULL)::int)::int AS "entered",
			sum(r."sign" * (r."status" IN ('submitted', 'approved'))::int)::int AS "reported",
			-- IS TRUE: a reported value without a first submission (none in practice) is not on time.
			sum(r."sign" * ((r."status" IN ('submitted', 'approved') AND (p."due_date" IS NULL
				OR (r."first_submitted_at" AT TIME ZONE 'UTC')::date <= p."due_date")) IS TRUE)::int)::int AS "on_time",
			sum(r."sign" * (r."status" = 'approved')::int)::int AS "approved",
			sum(r."sign" * (r."flags" <> '[]'::jsonb)::int)::int AS "flagged",
			sum(r."sign" * CASE WHEN r."status" <> 'approved' THEN jsonb_array_length(r."flags") ELSE 0 END)::int AS "open_flags"
		FROM unnest(changes) AS r
		JOIN "reporting_periods" p ON p."org_id" = r."org_id" AND p."id" = r."reporting_period_id"
		GROUP BY r."org_id", r."project_id", r."reporting_period_id"
	) d
	WHERE (d."entered", d."reported", d."on_time", d."approved", d."flagged", d."open_flags") <> (0, 0, 0, 0, 0, 0)
	ORDER BY d."reporting_period_id"
	ON CONFLICT ("org_id", "reporting_period_id") DO UPDATE SET
		"entered" = c."entered" + EXCLUDED."entered",
		"reported" = c."reported" + EXCLUDED."reported",
		"on_time" = c."on_time" + EXCLUDED."on_time",
		"approved" = c."approved" + EXCLUDED."approved",
		"flagged" = c."flagged" + EXCLUDED."flagged",
		"open_flags" = c."open_flags" + EXCLUDED."open_flags";
END
$$;--> statement-breakpoint
CREATE FUNCTION "period_report_counts_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		PERFORM "period_report_counts_add"(array_agg(ROW(n."org_id", n."project_id", n."reporting_period_id",
			n."value", n."status", n."first_submitted_at", n."flags", 1)::"period_report_change"))
		FROM "new_reports" n;
	ELSIF TG_OP = 'UPDATE' THEN
		PERFORM "period_report_counts_add"(array_agg(change)) FROM (
			SELECT ROW(n."org_id", n."project_id", n."reporting_period_id", n."value", n."status",
				n."first_submitted_at", n."flags", 1)::"period_report_change" AS change FROM "new_reports" n
			UNION ALL
			SELECT ROW(o."org_id", o."project_id", o."reporting_period_id", o."value", o."status",
				o."first_submitted_at", o."flags", -1)::"period_report_change" FROM "old_reports" o
		) changes;
	ELSE
		PERFORM "period_report_counts_add"(array_agg(ROW(o."org_id", o."project_id", o."reporting_period_id",
			o."value", o."status", o."first_submitted_at", o."flags", -1)::"period_report_change"))
		FROM "old_reports" o;
	END IF;
	RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "period_report_counts_inserted" AFTER INSERT ON "indicator_reports"
	REFERENCING NEW TABLE AS "new_reports"
	FOR EACH STATEMENT EXECUTE FUNCTION "period_report_counts_changed"();--> statement-breakpoint
CREATE TRIGGER "period_report_counts_updated" AFTER UPDATE ON "indicator_reports"
	REFERENCING OLD TABLE AS "old_reports" NEW TABLE AS "new_reports"
	FOR EACH STATEMENT EXECUTE FUNCTION "period_report_counts_changed"();--> statement-breakpoint
CREATE TRIGGER "period_report_counts_deleted" AFTER DELETE ON "indicator_reports"
	REFERENCING OLD TABLE AS "old_reports"
	FOR EACH STATEMENT EXECUTE FUNCTION "period_report_counts_changed"();--> statement-breakpoint
-- A period's due date moved: what of it was reported on time is counted again (one period's reports,
-- by the reports' period index).
CREATE FUNCTION "period_report_counts_due_date"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "period_report_counts" c SET "on_time" = (
		SELECT count(*) FROM "indicator_reports" r
		WHERE r."org_id" = NEW."org_id" AND r."reporting_period_id" = NEW."id"
			AND r."status" IN ('submitted', 'approved')
			AND (NEW."due_date" IS NULL OR (r."first_submitted_at" AT TIME ZONE 'UTC')::date <= NEW."due_date"))
	WHERE c."org_id" = NEW."org_id" AND c."reporting_period_id" = NEW."id";
	RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "period_report_counts_due_date" AFTER UPDATE OF "due_date" ON "reporting_periods"
	FOR EACH ROW WHEN (OLD."due_date" IS DISTINCT FROM NEW."due_date")
	EXECUTE FUNCTION "period_report_counts_due_date"();--> statement-breakpoint
-- The counts of the reports already there, one organization at a time.
DO $$
DECLARE org uuid;
BEGIN
	FOR org IN SELECT DISTINCT r."org_id" FROM "indicator_reports" r LOOP
		PERFORM "period_report_counts_add"(array_agg(ROW(r."org_id", r."project_id", r."reporting_period_id",
			r."value", r."status", r."first_submitted_at", r."flags", 1)::"period_report_change"))
		FROM "indicator_reports" r WHERE r."org_id" = org;
	END LOOP;
END
$$;

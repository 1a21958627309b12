CREATE TABLE "audit_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "audit_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"org_id" uuid NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor_id" uuid,
	"actor_role" text,
	"ip" text,
	"request_id" text,
	"action" text NOT NULL,
	"route" text NOT NULL,
	"subject_kind" text NOT NULL,
	"subject_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"count" integer NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "audit_log_action_check" CHECK ("audit_log"."action" IN ('read', 'export', 'erase', 'retention_erase', 'key_rotation')),
	CONSTRAINT "audit_log_count_check" CHECK ("audit_log"."count" >= 0)
);
--> statement-breakpoint
CREATE TABLE "sealing_key_check" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"key_id" text NOT NULL,
	"canary" text NOT NULL,
	"checked_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sealing_key_check_one_row" CHECK ("sealing_key_check"."id" = 1)
);
--> statement-breakpoint
DROP INDEX "participants_org_id_national_id_key";--> statement-breakpoint
ALTER TABLE "household_members" ALTER COLUMN "name" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "household_members" ALTER COLUMN "age" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "participants" ALTER COLUMN "first_name" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "participants" ALTER COLUMN "last_name" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "household_members" ADD COLUMN "age_band" text;--> statement-breakpoint
ALTER TABLE "participants" ADD COLUMN "national_id_index" text;--> statement-breakpoint
ALTER TABLE "participants" ADD COLUMN "erased_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "participants" ADD COLUMN "age_band" text;--> statement-breakpoint
ALTER TABLE "form_submissions" ADD COLUMN "personal_erased_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "forms" ADD COLUMN "personal_data_retention_days" integer;--> statement-breakpoint
CREATE INDEX "audit_log_org_id_at_idx" ON "audit_log" USING btree ("org_id","at","id");--> statement-breakpoint
CREATE INDEX "audit_log_subject_ids_idx" ON "audit_log" USING gin ("subject_ids");--> statement-breakpoint
CREATE INDEX "audit_log_at_idx" ON "audit_log" USING btree ("at");--> statement-breakpoint
CREATE UNIQUE INDEX "participants_org_id_national_id_index_key" ON "participants" USING btree ("org_id","national_id_index") WHERE "participants"."national_id_index" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "participants" ADD CONSTRAINT "participants_erased_check" CHECK ("participants"."erased_at" IS NULL OR ("participants"."first_name" IS NULL AND "participants"."last_name" IS NULL AND "participants"."date_of_birth" IS NULL AND "participants"."phone" IS NULL AND "participants"."national_id" IS NULL AND "participants"."national_id_index" IS NULL));--> statement-breakpoint
ALTER TABLE "participants" ADD CONSTRAINT "participants_names_check" CHECK ("participants"."erased_at" IS NOT NULL OR ("participants"."first_name" IS NOT NULL AND "participants"."last_name" IS NOT NULL));--> statement-breakpoint
ALTER TABLE "forms" ADD CONSTRAINT "forms_personal_data_retention_days_check" CHECK ("forms"."personal_data_retention_days" BETWEEN 1 AND 36500);--> statement-breakpoint
-- The audit log is append-only (GDPR art. 30): no UPDATE, no TRUNCATE, and DELETE only of rows older
-- than the retention the worker's purge sets for its own transaction (SET LOCAL mel.audit_retention).
CREATE FUNCTION "audit_log_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	retention text := current_setting('mel.audit_retention', true);
BEGIN
	IF TG_OP = 'DELETE' AND coalesce(retention, '') <> '' THEN
		IF OLD."at" < now() - retention::interval THEN
			RETURN OLD;
		END IF;
	END IF;
	RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = '42501';
END
$$;--> statement-breakpoint
CREATE TRIGGER "audit_log_append_only" BEFORE UPDATE OR DELETE ON "audit_log"
	FOR EACH ROW EXECUTE FUNCTION "audit_log_append_only"();--> statement-breakpoint
CREATE TRIGGER "audit_log_no_truncate" BEFORE TRUNCATE ON "audit_log"
	FOR EACH STATEMENT EXECUTE FUNCTION "audit_log_append_only"();

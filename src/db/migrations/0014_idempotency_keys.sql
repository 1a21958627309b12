-- Idempotency-Key (issue 23): the first answer per key and caller, kept 24 hours, its body sealed under
-- PII_KEY; the daily retention job purges rows past expires_at.
CREATE TABLE "idempotency_keys" (
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"state" text NOT NULL,
	"claim_id" uuid NOT NULL,
	"status" integer,
	"content_type" text,
	"location" text,
	"body" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY("scope","key"),
	CONSTRAINT "idempotency_keys_state_check" CHECK ("idempotency_keys"."state" IN ('running', 'completed')),
	CONSTRAINT "idempotency_keys_key_check" CHECK (char_length("idempotency_keys"."key") BETWEEN 1 AND 255),
	CONSTRAINT "idempotency_keys_answer_check" CHECK ("idempotency_keys"."state" = 'running' OR "idempotency_keys"."status" IS NOT NULL)
);
--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys" USING btree ("expires_at");
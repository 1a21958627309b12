ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_state_check";--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_answer_check";--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "projects" text;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_state_check" CHECK ("idempotency_keys"."state" IN ('running', 'committed', 'completed'));--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_answer_check" CHECK ("idempotency_keys"."state" <> 'completed' OR "idempotency_keys"."status" IS NOT NULL);
CREATE TABLE "email_verifications" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "email_verifications_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "login_failures" (
	"email" text PRIMARY KEY NOT NULL,
	"failures" integer NOT NULL,
	"last_failed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "email_verified_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "email_verifications" ADD CONSTRAINT "email_verifications_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "email_verifications_user_id_idx" ON "email_verifications" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "login_failures_last_failed_at_idx" ON "login_failures" USING btree ("last_failed_at");--> statement-breakpoint
-- Addresses already proven before this column existed: a reset link used, an invitation to the address accepted, or an identity provider that vouched for it.
UPDATE "users" SET "email_verified_at" = least(
	(SELECT min("used_at") FROM "password_resets" WHERE "password_resets"."user_id" = "users"."id"),
	(SELECT min("accepted_at") FROM "invitations" WHERE "invitations"."email" = "users"."email"),
	(SELECT min("created_at") FROM "external_identities" WHERE "external_identities"."user_id" = "users"."id")
) WHERE "email_verified_at" IS NULL;

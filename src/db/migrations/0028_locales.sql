-- Languages (issue 41): a user's chosen language (null: not chosen) and an organization's default one.
ALTER TABLE "users" ADD COLUMN "locale" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "default_locale" text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_locale_check" CHECK ("users"."locale" IN ('en', 'fr', 'es', 'pt', 'ar'));--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_default_locale_check" CHECK ("organizations"."default_locale" IN ('en', 'fr', 'es', 'pt', 'ar'));
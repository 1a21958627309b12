-- Forms in the respondents' own language (issue 41): the language of a form's own strings, and its strings
-- in other languages by BCP 47 code (null: none).
ALTER TABLE "forms" ADD COLUMN "default_language" text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE "forms" ADD COLUMN "translations" jsonb;
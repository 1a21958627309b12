ALTER TABLE "forms" ADD COLUMN "count_repeat" text;--> statement-breakpoint
ALTER TABLE "forms" ADD COLUMN "count_where" text;
ALTER TABLE "indicators" ADD COLUMN "quality_checks" jsonb;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "show_quality_notes" boolean DEFAULT false NOT NULL;
-- form_submission_files gets the org_id every tenant table has. Existing rows take their submission's
-- org before the column becomes NOT NULL; the foreign key then keeps file and submission in one org.
ALTER TABLE "form_submission_files" DROP CONSTRAINT "form_submission_files_submission_id_form_submissions_id_fk";--> statement-breakpoint
ALTER TABLE "form_submissions" ADD CONSTRAINT "form_submissions_org_id_id_key" UNIQUE("org_id","id");--> statement-breakpoint
ALTER TABLE "form_submission_files" ADD COLUMN "org_id" uuid;--> statement-breakpoint
UPDATE "form_submission_files" f SET "org_id" = s."org_id" FROM "form_submissions" s WHERE s."id" = f."submission_id";--> statement-breakpoint
ALTER TABLE "form_submission_files" ALTER COLUMN "org_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "form_submission_files" ADD CONSTRAINT "form_submission_files_submission_fk" FOREIGN KEY ("org_id","submission_id") REFERENCES "public"."form_submissions"("org_id","id") ON DELETE cascade ON UPDATE no action;

ALTER TABLE "projects" DROP CONSTRAINT "projects_program_id_programs_id_fk";
--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_org_id_program_id_programs_org_id_id_fk" FOREIGN KEY ("org_id","program_id") REFERENCES "public"."programs"("org_id","id") ON DELETE cascade ON UPDATE no action;
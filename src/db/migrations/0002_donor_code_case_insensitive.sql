ALTER TABLE "donors" DROP CONSTRAINT "donors_org_id_code_key";--> statement-breakpoint
CREATE UNIQUE INDEX "donors_org_id_lower_code_key" ON "donors" USING btree ("org_id",lower("code"));
-- Four eyes (issue 39): an organization may require another person than the last submitter to approve or
-- reject an indicator report. Off for every organization, as before.
ALTER TABLE "organizations" ADD COLUMN "separate_approval" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- REGISTRATION=invite asks whether an address holds an open invitation to any organization.
CREATE INDEX "invitations_open_by_email_idx" ON "invitations" USING btree ("email") WHERE accepted_at IS NULL;
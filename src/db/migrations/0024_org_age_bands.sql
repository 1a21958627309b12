-- An organization's own age bands (issue 40); null keeps the contract's 0-17, 18-35, 36-59, 60+.
ALTER TABLE "organizations" ADD COLUMN "age_bands" text[];

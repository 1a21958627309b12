-- A disaggregation may cross two or more of its indicator's others (sex by age): the names it crosses,
-- null for a plain one; its categories are then its cells ("female|15-24").
ALTER TABLE "indicator_disaggregations" ADD COLUMN "crosses" text[];

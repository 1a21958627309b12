-- Ready for a distributed PostgreSQL (docs/operations.md): every key of a tenant table carries org_id, so
-- each can be enforced inside one organization's shard once the tables are distributed by org_id
-- (test/distribution-ready.test.ts keeps it so). No row changes: each new key is an old one with org_id
-- added. The foreign keys that now also compare org_id hold on every row the services write; a row
-- pointing into another organization would stop the migration, naming the key, with nothing changed.
-- 1. The foreign keys that lean on the keys replaced below go first; section 4 adds them back with org_id.
ALTER TABLE "projects" DROP CONSTRAINT "projects_org_id_program_id_programs_org_id_id_fk";--> statement-breakpoint
ALTER TABLE "program_donors" DROP CONSTRAINT "program_donors_org_id_program_id_programs_org_id_id_fk";--> statement-breakpoint
ALTER TABLE "program_donors" DROP CONSTRAINT "program_donors_org_id_donor_id_donors_org_id_id_fk";--> statement-breakpoint
ALTER TABLE "result_nodes" DROP CONSTRAINT "result_nodes_org_id_program_id_programs_org_id_id_fk";--> statement-breakpoint
ALTER TABLE "project_members" DROP CONSTRAINT "project_members_org_id_project_id_projects_org_id_id_fk";--> statement-breakpoint
ALTER TABLE "budget_lines" DROP CONSTRAINT "budget_lines_org_id_project_id_projects_org_id_id_fk";--> statement-breakpoint
ALTER TABLE "attachments" DROP CONSTRAINT "attachments_org_id_project_id_projects_org_id_id_fk";--> statement-breakpoint
ALTER TABLE "reporting_periods" DROP CONSTRAINT "reporting_periods_org_id_project_id_projects_org_id_id_fk";--> statement-breakpoint
ALTER TABLE "indicator_reports" DROP CONSTRAINT "indicator_reports_org_id_project_id_projects_org_id_id_fk";--> statement-breakpoint
ALTER TABLE "project_indicators" DROP CONSTRAINT "project_indicators_org_id_project_id_projects_org_id_id_fk";--> statement-breakpoint
ALTER TABLE "activities" DROP CONSTRAINT "activities_org_id_project_id_projects_org_id_id_fk";--> statement-breakpoint
ALTER TABLE "forms" DROP CONSTRAINT "forms_org_id_project_id_projects_org_id_id_fk";--> statement-breakpoint
ALTER TABLE "reports" DROP CONSTRAINT "reports_org_id_project_id_projects_org_id_id_fk";--> statement-breakpoint
ALTER TABLE "result_nodes" DROP CONSTRAINT "result_nodes_parent_id_result_nodes_id_fk";--> statement-breakpoint
ALTER TABLE "indicators" DROP CONSTRAINT "indicators_result_node_id_result_nodes_id_fk";--> statement-breakpoint
ALTER TABLE "activities" DROP CONSTRAINT "activities_output_id_result_nodes_id_fk";--> statement-breakpoint
ALTER TABLE "indicator_disaggregations" DROP CONSTRAINT "indicator_disaggregations_indicator_fk";--> statement-breakpoint
ALTER TABLE "indicator_formula_inputs" DROP CONSTRAINT "indicator_formula_inputs_indicator_fk";--> statement-breakpoint
ALTER TABLE "indicator_formula_inputs" DROP CONSTRAINT "indicator_formula_inputs_input_fk";--> statement-breakpoint
ALTER TABLE "project_indicators" DROP CONSTRAINT "project_indicators_org_id_indicator_id_indicators_org_id_id_fk";--> statement-breakpoint
ALTER TABLE "indicator_reports" DROP CONSTRAINT "indicator_reports_project_indicator_fk";--> statement-breakpoint
ALTER TABLE "forms" DROP CONSTRAINT "forms_project_indicator_fk";--> statement-breakpoint
ALTER TABLE "indicator_reports" DROP CONSTRAINT "indicator_reports_reporting_period_fk";--> statement-breakpoint
ALTER TABLE "forms" DROP CONSTRAINT "forms_reporting_period_fk";--> statement-breakpoint
ALTER TABLE "form_submissions" DROP CONSTRAINT "form_submissions_reporting_period_id_reporting_periods_id_fk";--> statement-breakpoint
ALTER TABLE "reminder_sends" DROP CONSTRAINT "reminder_sends_period_id_reporting_periods_id_fk";--> statement-breakpoint
ALTER TABLE "form_submissions" DROP CONSTRAINT "form_submissions_indicator_report_fk";--> statement-breakpoint
ALTER TABLE "indicator_report_history" DROP CONSTRAINT "indicator_report_history_report_fk";--> statement-breakpoint
ALTER TABLE "activity_participants" DROP CONSTRAINT "activity_participants_org_id_activity_id_activities_org_id_id_f";--> statement-breakpoint
ALTER TABLE "activity_participants" DROP CONSTRAINT "activity_participants_org_id_participant_id_participants_org_id";--> statement-breakpoint
ALTER TABLE "household_members" DROP CONSTRAINT "household_members_org_id_participant_id_participants_org_id_id_";--> statement-breakpoint
ALTER TABLE "form_submissions" DROP CONSTRAINT "form_submissions_org_id_form_id_forms_org_id_id_fk";--> statement-breakpoint
ALTER TABLE "form_submission_files" DROP CONSTRAINT "form_submission_files_submission_fk";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_org_id_endpoint_id_webhook_endpoints_org_id_";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_org_id_event_id_webhook_events_org_id_id_fk";--> statement-breakpoint
-- 2. Primary keys: (org_id, id) where id was the key alone; the (org_id, id) unique keys they replace go.
ALTER TABLE "programs" DROP CONSTRAINT "programs_pkey";--> statement-breakpoint
ALTER TABLE "programs" DROP CONSTRAINT "programs_org_id_id_key";--> statement-breakpoint
ALTER TABLE "programs" ADD CONSTRAINT "programs_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "projects" DROP CONSTRAINT "projects_pkey";--> statement-breakpoint
ALTER TABLE "projects" DROP CONSTRAINT "projects_org_id_id_key";--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "donors" DROP CONSTRAINT "donors_pkey";--> statement-breakpoint
ALTER TABLE "donors" DROP CONSTRAINT "donors_org_id_id_key";--> statement-breakpoint
ALTER TABLE "donors" ADD CONSTRAINT "donors_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "result_nodes" DROP CONSTRAINT "result_nodes_pkey";--> statement-breakpoint
ALTER TABLE "result_nodes" DROP CONSTRAINT "result_nodes_org_id_id_key";--> statement-breakpoint
ALTER TABLE "result_nodes" ADD CONSTRAINT "result_nodes_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "indicators" DROP CONSTRAINT "indicators_pkey";--> statement-breakpoint
ALTER TABLE "indicators" DROP CONSTRAINT "indicators_org_id_id_key";--> statement-breakpoint
ALTER TABLE "indicators" ADD CONSTRAINT "indicators_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "reporting_periods" DROP CONSTRAINT "reporting_periods_pkey";--> statement-breakpoint
ALTER TABLE "reporting_periods" DROP CONSTRAINT "reporting_periods_org_id_id_key";--> statement-breakpoint
ALTER TABLE "reporting_periods" ADD CONSTRAINT "reporting_periods_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "indicator_reports" DROP CONSTRAINT "indicator_reports_pkey";--> statement-breakpoint
ALTER TABLE "indicator_reports" DROP CONSTRAINT "indicator_reports_org_id_id_key";--> statement-breakpoint
ALTER TABLE "indicator_reports" ADD CONSTRAINT "indicator_reports_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "activities" DROP CONSTRAINT "activities_pkey";--> statement-breakpoint
ALTER TABLE "activities" DROP CONSTRAINT "activities_org_id_id_key";--> statement-breakpoint
ALTER TABLE "activities" ADD CONSTRAINT "activities_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "participants" DROP CONSTRAINT "participants_pkey";--> statement-breakpoint
ALTER TABLE "participants" DROP CONSTRAINT "participants_org_id_id_key";--> statement-breakpoint
ALTER TABLE "participants" ADD CONSTRAINT "participants_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "forms" DROP CONSTRAINT "forms_pkey";--> statement-breakpoint
ALTER TABLE "forms" DROP CONSTRAINT "forms_org_id_id_key";--> statement-breakpoint
ALTER TABLE "forms" ADD CONSTRAINT "forms_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "form_submissions" DROP CONSTRAINT "form_submissions_pkey";--> statement-breakpoint
ALTER TABLE "form_submissions" DROP CONSTRAINT "form_submissions_org_id_id_key";--> statement-breakpoint
ALTER TABLE "form_submissions" ADD CONSTRAINT "form_submissions_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "reports" DROP CONSTRAINT "reports_pkey";--> statement-breakpoint
ALTER TABLE "reports" DROP CONSTRAINT "reports_org_id_id_key";--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "webhook_endpoints" DROP CONSTRAINT "webhook_endpoints_pkey";--> statement-breakpoint
ALTER TABLE "webhook_endpoints" DROP CONSTRAINT "webhook_endpoints_org_id_id_key";--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "webhook_events" DROP CONSTRAINT "webhook_events_pkey";--> statement-breakpoint
ALTER TABLE "webhook_events" DROP CONSTRAINT "webhook_events_org_id_id_key";--> statement-breakpoint
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "budget_lines" DROP CONSTRAINT "budget_lines_pkey";--> statement-breakpoint
ALTER TABLE "budget_lines" ADD CONSTRAINT "budget_lines_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "attachments" DROP CONSTRAINT "attachments_pkey";--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "feed_events" DROP CONSTRAINT "feed_events_pkey";--> statement-breakpoint
ALTER TABLE "feed_events" ADD CONSTRAINT "feed_events_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "invitations" DROP CONSTRAINT "invitations_pkey";--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "indicator_disaggregations" DROP CONSTRAINT "indicator_disaggregations_pkey";--> statement-breakpoint
ALTER TABLE "indicator_disaggregations" ADD CONSTRAINT "indicator_disaggregations_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "activity_participants" DROP CONSTRAINT "activity_participants_pkey";--> statement-breakpoint
ALTER TABLE "activity_participants" ADD CONSTRAINT "activity_participants_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "household_members" DROP CONSTRAINT "household_members_pkey";--> statement-breakpoint
ALTER TABLE "household_members" ADD CONSTRAINT "household_members_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_pkey";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "audit_log" DROP CONSTRAINT "audit_log_pkey";--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint
ALTER TABLE "indicator_report_history" DROP CONSTRAINT "indicator_report_history_pkey";--> statement-breakpoint
ALTER TABLE "indicator_report_history" ADD CONSTRAINT "indicator_report_history_pkey" PRIMARY KEY ("org_id", "id");--> statement-breakpoint

-- 3. The other keys of tenant tables: org_id joins each. A token looked up without its organization
-- (an invitation, a form's public link, a shared report) keeps its column first, so that lookup still
-- reads one index; tokens are random, so unique within an organization is unique in practice.
ALTER TABLE "indicator_formula_inputs" DROP CONSTRAINT "indicator_formula_inputs_indicator_id_input_id_pk";--> statement-breakpoint
ALTER TABLE "indicator_formula_inputs" ADD CONSTRAINT "indicator_formula_inputs_pkey" PRIMARY KEY ("org_id", "indicator_id", "input_id");--> statement-breakpoint
ALTER TABLE "project_indicators" DROP CONSTRAINT "project_indicators_project_id_indicator_id_pk";--> statement-breakpoint
ALTER TABLE "project_indicators" ADD CONSTRAINT "project_indicators_pkey" PRIMARY KEY ("org_id", "project_id", "indicator_id");--> statement-breakpoint
ALTER TABLE "reminder_sends" DROP CONSTRAINT "reminder_sends_period_id_user_id_kind_pk";--> statement-breakpoint
ALTER TABLE "reminder_sends" ADD CONSTRAINT "reminder_sends_pkey" PRIMARY KEY ("org_id", "period_id", "user_id", "kind");--> statement-breakpoint
-- A submission's file answers had no primary key, only this unique one: it becomes the key.
ALTER TABLE "form_submission_files" DROP CONSTRAINT "form_submission_files_submission_id_field_key_key";--> statement-breakpoint
ALTER TABLE "form_submission_files" ADD CONSTRAINT "form_submission_files_pkey" PRIMARY KEY ("org_id", "submission_id", "field_key");--> statement-breakpoint
ALTER TABLE "form_submission_files" DROP CONSTRAINT "form_submission_files_storage_key_unique";--> statement-breakpoint
ALTER TABLE "form_submission_files" ADD CONSTRAINT "form_submission_files_org_id_storage_key_key" UNIQUE ("org_id", "storage_key");--> statement-breakpoint
ALTER TABLE "attachments" DROP CONSTRAINT "attachments_storage_key_unique";--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_org_id_storage_key_key" UNIQUE ("org_id", "storage_key");--> statement-breakpoint
ALTER TABLE "reporting_periods" DROP CONSTRAINT "reporting_periods_project_id_id_key";--> statement-breakpoint
ALTER TABLE "reporting_periods" ADD CONSTRAINT "reporting_periods_org_id_project_id_id_key" UNIQUE ("org_id", "project_id", "id");--> statement-breakpoint
ALTER TABLE "indicator_reports" DROP CONSTRAINT "indicator_reports_project_id_indicator_id_period_key";--> statement-breakpoint
ALTER TABLE "indicator_reports" ADD CONSTRAINT "indicator_reports_org_id_project_id_indicator_id_period_key" UNIQUE ("org_id", "project_id", "indicator_id", "reporting_period_id");--> statement-breakpoint
ALTER TABLE "activity_participants" DROP CONSTRAINT "activity_participants_activity_id_participant_id_key";--> statement-breakpoint
ALTER TABLE "activity_participants" ADD CONSTRAINT "activity_participants_org_id_activity_id_participant_id_key" UNIQUE ("org_id", "activity_id", "participant_id");--> statement-breakpoint
DROP INDEX "indicator_disaggregations_indicator_id_lower_name_key";--> statement-breakpoint
CREATE UNIQUE INDEX "indicator_disaggregations_org_id_indicator_id_lower_name_key" ON "indicator_disaggregations" USING btree ("org_id", "indicator_id", lower("name"));--> statement-breakpoint
ALTER TABLE "invitations" DROP CONSTRAINT "invitations_token_hash_unique";--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_token_hash_org_id_key" UNIQUE ("token_hash", "org_id");--> statement-breakpoint
ALTER TABLE "forms" DROP CONSTRAINT "forms_public_token_unique";--> statement-breakpoint
ALTER TABLE "forms" ADD CONSTRAINT "forms_public_token_org_id_key" UNIQUE ("public_token", "org_id");--> statement-breakpoint
ALTER TABLE "reports" DROP CONSTRAINT "reports_share_token_hash_unique";--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_share_token_hash_org_id_key" UNIQUE ("share_token_hash", "org_id");--> statement-breakpoint
-- 4. The foreign keys back, each with org_id on both sides (and under its old name, which
-- src/errors/refusals.ts maps to the contract's messages). A result node's deletion clears only the
-- pointer, never org_id: SET NULL names its column.
ALTER TABLE "projects" ADD CONSTRAINT "projects_org_id_program_id_programs_org_id_id_fk" FOREIGN KEY ("org_id", "program_id") REFERENCES "public"."programs"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "program_donors" ADD CONSTRAINT "program_donors_org_id_program_id_programs_org_id_id_fk" FOREIGN KEY ("org_id", "program_id") REFERENCES "public"."programs"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "program_donors" ADD CONSTRAINT "program_donors_org_id_donor_id_donors_org_id_id_fk" FOREIGN KEY ("org_id", "donor_id") REFERENCES "public"."donors"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "result_nodes" ADD CONSTRAINT "result_nodes_org_id_program_id_programs_org_id_id_fk" FOREIGN KEY ("org_id", "program_id") REFERENCES "public"."programs"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "project_members" ADD CONSTRAINT "project_members_org_id_project_id_projects_org_id_id_fk" FOREIGN KEY ("org_id", "project_id") REFERENCES "public"."projects"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "budget_lines" ADD CONSTRAINT "budget_lines_org_id_project_id_projects_org_id_id_fk" FOREIGN KEY ("org_id", "project_id") REFERENCES "public"."projects"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_org_id_project_id_projects_org_id_id_fk" FOREIGN KEY ("org_id", "project_id") REFERENCES "public"."projects"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "reporting_periods" ADD CONSTRAINT "reporting_periods_org_id_project_id_projects_org_id_id_fk" FOREIGN KEY ("org_id", "project_id") REFERENCES "public"."projects"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "indicator_reports" ADD CONSTRAINT "indicator_reports_org_id_project_id_projects_org_id_id_fk" FOREIGN KEY ("org_id", "project_id") REFERENCES "public"."projects"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "project_indicators" ADD CONSTRAINT "project_indicators_org_id_project_id_projects_org_id_id_fk" FOREIGN KEY ("org_id", "project_id") REFERENCES "public"."projects"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "activities" ADD CONSTRAINT "activities_org_id_project_id_projects_org_id_id_fk" FOREIGN KEY ("org_id", "project_id") REFERENCES "public"."projects"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "forms" ADD CONSTRAINT "forms_org_id_project_id_projects_org_id_id_fk" FOREIGN KEY ("org_id", "project_id") REFERENCES "public"."projects"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_org_id_project_id_projects_org_id_id_fk" FOREIGN KEY ("org_id", "project_id") REFERENCES "public"."projects"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "result_nodes" ADD CONSTRAINT "result_nodes_parent_id_result_nodes_id_fk" FOREIGN KEY ("org_id", "parent_id") REFERENCES "public"."result_nodes"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "indicators" ADD CONSTRAINT "indicators_result_node_id_result_nodes_id_fk" FOREIGN KEY ("org_id", "result_node_id") REFERENCES "public"."result_nodes"("org_id", "id") ON DELETE SET NULL (result_node_id);--> statement-breakpoint
ALTER TABLE "activities" ADD CONSTRAINT "activities_output_id_result_nodes_id_fk" FOREIGN KEY ("org_id", "output_id") REFERENCES "public"."result_nodes"("org_id", "id") ON DELETE SET NULL (output_id);--> statement-breakpoint
ALTER TABLE "indicator_disaggregations" ADD CONSTRAINT "indicator_disaggregations_indicator_fk" FOREIGN KEY ("org_id", "indicator_id") REFERENCES "public"."indicators"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "indicator_formula_inputs" ADD CONSTRAINT "indicator_formula_inputs_indicator_fk" FOREIGN KEY ("org_id", "indicator_id") REFERENCES "public"."indicators"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "indicator_formula_inputs" ADD CONSTRAINT "indicator_formula_inputs_input_fk" FOREIGN KEY ("org_id", "input_id") REFERENCES "public"."indicators"("org_id", "id");--> statement-breakpoint
ALTER TABLE "project_indicators" ADD CONSTRAINT "project_indicators_org_id_indicator_id_indicators_org_id_id_fk" FOREIGN KEY ("org_id", "indicator_id") REFERENCES "public"."indicators"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "indicator_reports" ADD CONSTRAINT "indicator_reports_project_indicator_fk" FOREIGN KEY ("org_id", "project_id", "indicator_id") REFERENCES "public"."project_indicators"("org_id", "project_id", "indicator_id");--> statement-breakpoint
ALTER TABLE "forms" ADD CONSTRAINT "forms_project_indicator_fk" FOREIGN KEY ("org_id", "project_id", "indicator_id") REFERENCES "public"."project_indicators"("org_id", "project_id", "indicator_id");--> statement-breakpoint
ALTER TABLE "indicator_reports" ADD CONSTRAINT "indicator_reports_reporting_period_fk" FOREIGN KEY ("org_id", "project_id", "reporting_period_id") REFERENCES "public"."reporting_periods"("org_id", "project_id", "id");--> statement-breakpoint
ALTER TABLE "forms" ADD CONSTRAINT "forms_reporting_period_fk" FOREIGN KEY ("org_id", "project_id", "reporting_period_id") REFERENCES "public"."reporting_periods"("org_id", "project_id", "id");--> statement-breakpoint
ALTER TABLE "form_submissions" ADD CONSTRAINT "form_submissions_reporting_period_id_reporting_periods_id_fk" FOREIGN KEY ("org_id", "reporting_period_id") REFERENCES "public"."reporting_periods"("org_id", "id") DEFERRABLE;--> statement-breakpoint
ALTER TABLE "reminder_sends" ADD CONSTRAINT "reminder_sends_period_id_reporting_periods_id_fk" FOREIGN KEY ("org_id", "period_id") REFERENCES "public"."reporting_periods"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "form_submissions" ADD CONSTRAINT "form_submissions_indicator_report_fk" FOREIGN KEY ("org_id", "indicator_report_id") REFERENCES "public"."indicator_reports"("org_id", "id") DEFERRABLE;--> statement-breakpoint
ALTER TABLE "indicator_report_history" ADD CONSTRAINT "indicator_report_history_report_fk" FOREIGN KEY ("org_id", "indicator_report_id") REFERENCES "public"."indicator_reports"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "activity_participants" ADD CONSTRAINT "activity_participants_org_id_activity_id_activities_org_id_id_f" FOREIGN KEY ("org_id", "activity_id") REFERENCES "public"."activities"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "activity_participants" ADD CONSTRAINT "activity_participants_org_id_participant_id_participants_org_id" FOREIGN KEY ("org_id", "participant_id") REFERENCES "public"."participants"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "household_members" ADD CONSTRAINT "household_members_org_id_participant_id_participants_org_id_id_" FOREIGN KEY ("org_id", "participant_id") REFERENCES "public"."participants"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "form_submissions" ADD CONSTRAINT "form_submissions_org_id_form_id_forms_org_id_id_fk" FOREIGN KEY ("org_id", "form_id") REFERENCES "public"."forms"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "form_submission_files" ADD CONSTRAINT "form_submission_files_submission_fk" FOREIGN KEY ("org_id", "submission_id") REFERENCES "public"."form_submissions"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_org_id_endpoint_id_webhook_endpoints_org_id_" FOREIGN KEY ("org_id", "endpoint_id") REFERENCES "public"."webhook_endpoints"("org_id", "id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_org_id_event_id_webhook_events_org_id_id_fk" FOREIGN KEY ("org_id", "event_id") REFERENCES "public"."webhook_events"("org_id", "id") ON DELETE cascade;

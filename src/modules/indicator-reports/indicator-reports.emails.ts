import type { OutgoingEmail } from '../mail/index.js';

/** Names of a report's indicator, project and period, as its emails show them. */
export interface ReportNames {
  indicatorName: string;
  indicatorCode: string;
  projectName: string;
  periodLabel: string;
}

/** Tells the submitter that a reviewer rejected their report, with the comment and where to edit it. */
export function reportReturnedEmail(returned: {
  submitter: { email: string; firstName: string };
  reviewerName: string;
  names: ReportNames;
  comment: string | null;
  appUrl: string;
  report: { id: string; projectId: string };
}): OutgoingEmail {
  const { names, report } = returned;
  return {
    recipient: returned.submitter.email,
    subject: `Indicator report returned: ${names.indicatorName}, ${names.periodLabel}`,
    body:
      `Hello ${returned.submitter.firstName},\n\n` +
      `${returned.reviewerName} returned your report on ${names.indicatorName} (${names.indicatorCode}) ` +
      `for ${names.projectName}, reporting period ${names.periodLabel}, with this comment:\n\n` +
      `${returned.comment ?? ''}\n\n` +
      `Edit the report and submit it again:\n` +
      `${returned.appUrl}/projects/${report.projectId}/indicator-reports/${report.id}\n`,
  };
}

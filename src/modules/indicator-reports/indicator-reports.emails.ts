import { translator, type Locale } from '../../lib/i18n/i18n.js';
import type { OutgoingEmail } from '../mail/index.js';

/** Names of a report's indicator, project and period, as its emails show them. */
export interface ReportNames {
  indicatorName: string;
  indicatorCode: string;
  projectName: string;
  periodLabel: string;
}

/**
 * Tells the submitter that a reviewer rejected their report, with the comment and where to edit it; in
 * `locale` (the submitter's, else the organization's default).
 */
export function reportReturnedEmail(
  returned: {
    submitter: { email: string; firstName: string };
    reviewerName: string;
    names: ReportNames;
    comment: string | null;
    appUrl: string;
    report: { id: string; projectId: string };
  },
  locale: Locale = 'en',
): OutgoingEmail {
  const { names, report } = returned;
  const t = translator(locale, 'email');
  const indicator = names.indicatorName;
  const period = names.periodLabel;
  return {
    recipient: returned.submitter.email,
    subject: t('returned.subject', { indicator, period }),
    body:
      `${t('greeting', { name: returned.submitter.firstName })}\n\n` +
      `${t('returned.intro', {
        reviewer: returned.reviewerName,
        indicator,
        code: names.indicatorCode,
        project: names.projectName,
        period,
      })}\n\n` +
      `${returned.comment ?? ''}\n\n` +
      `${t('returned.edit')}\n` +
      `${returned.appUrl}/projects/${report.projectId}/indicator-reports/${report.id}\n`,
  };
}

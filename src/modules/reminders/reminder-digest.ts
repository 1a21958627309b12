import { translator, type Locale, type Translate } from '../../lib/i18n/i18n.js';
import type { OutgoingEmail } from '../mail/index.js';
import type { OutstandingReport } from './reminders.repo.js';

/** One reporting period in a digest (as its outstanding reports name it), with what is still to be done in it. */
export type DigestPeriod = Pick<
  OutstandingReport,
  'orgId' | 'orgName' | 'projectId' | 'projectName' | 'periodId' | 'periodLabel' | 'dueDate' | 'kind'
> & { reports: readonly OutstandingReport[] };

/** `1 day`, `7 days`; `1 person`, `3 people`. */
export const plural = (count: number, one: string, many = `${one}s`) =>
  `${count} ${count === 1 ? one : many}`;

/** `due in 7 days (2026-04-15)`, `overdue since 2026-04-07` (dates as ISO 8601 in every language). */
export function deadlineText(
  kind: string,
  dueDate: string,
  t: Translate = translator('en', 'email'),
): string {
  if (kind === 'overdue') return t('digest.overdue', { date: dueDate });
  const days = Number(kind.replace(/^due_in_/, ''));
  return t('digest.dueIn', { count: days, date: dueDate });
}

/** Where the reporter opens the report, or, while it is missing, the period to create it in. */
export function reportLink(appUrl: string, report: OutstandingReport): string {
  return report.reportId
    ? `${appUrl}/projects/${report.projectId}/indicator-reports/${report.reportId}`
    : `${appUrl}/projects/${report.projectId}/reporting-periods/${report.periodId}`;
}

/**
 * The one email a person gets from a run: every period they are reminded of, by project and period,
 * each outstanding indicator with its state and link, and how to turn reminders off. Plain text, in
 * `locale` (the person's, else the organization's default when the digest concerns one).
 */
export function reminderDigest(
  appUrl: string,
  recipient: { email: string; firstName: string },
  periods: readonly DigestPeriod[],
  locale: Locale = 'en',
): OutgoingEmail {
  const t = translator(locale, 'email');
  const total = periods.reduce((sum, period) => sum + period.reports.length, 0);
  const sections = periods.map((period) => {
    const heading = `${period.projectName} (${period.orgName}), ${period.periodLabel}: ${deadlineText(period.kind, period.dueDate, t)}`;
    const lines = period.reports.map(
      (report) =>
        `  - ${report.indicatorName} (${report.indicatorCode}): ${t(`digest.state.${report.state}`)}\n` +
        `    ${reportLink(appUrl, report)}`,
    );
    return [heading, ...lines].join('\n');
  });
  return {
    recipient: recipient.email,
    subject: t('digest.subject', { count: total }),
    body:
      `${t('greeting', { name: recipient.firstName })}\n\n${t('digest.intro')}\n\n` +
      `${sections.join('\n\n')}\n\n` +
      `${t('digest.why', {
        url: `${appUrl}/settings`,
        request: 'PATCH /auth/me',
        body: '{"notifications": {"reminders": false}}',
      })}\n`,
  };
}

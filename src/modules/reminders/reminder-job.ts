import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import { transaction, type Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { PollLoop } from '../../lib/poll-loop.js';
import { recordFeedEvent, type FeedEvent } from '../feed/index.js';
import { queueEmail } from '../mail/index.js';
import { pickLocale } from '../../lib/i18n/i18n.js';
import { plural, reminderDigest, type DigestPeriod } from './reminder-digest.js';
import {
  findOutstandingReports,
  recordReminders,
  takeRunLock,
  type OutstandingReport,
  type RecordedReminder,
} from './reminders.repo.js';

export interface ReminderJobOptions {
  /** First run after start (a minute), then every intervalMs (an hour). */
  firstRunMs?: number;
  intervalMs?: number;
  keepProcessAlive?: boolean;
}

/** What one run did. */
export interface ReminderRun {
  /** False when another instance held the lock (and this run did nothing). */
  ran: boolean;
  emails: number;
  periods: number;
  organizations: number;
}

/** The periods of the outstanding reports, in the reports' order, each with its reports. */
function byPeriod(reports: readonly OutstandingReport[]): Map<string, DigestPeriod> {
  const periods = new Map<string, DigestPeriod & { reports: OutstandingReport[] }>();
  for (const report of reports) {
    let period = periods.get(report.periodId);
    if (!period) {
      period = {
        orgId: report.orgId,
        orgName: report.orgName,
        projectId: report.projectId,
        projectName: report.projectName,
        periodId: report.periodId,
        periodLabel: report.periodLabel,
        dueDate: report.dueDate,
        kind: report.kind,
        reports: [],
      };
      periods.set(report.periodId, period);
    }
    period.reports.push(report);
  }
  return periods;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

/**
 * One run, in the caller's transaction: the lock, what is outstanding in the periods due for a reminder
 * `today`, the reminders recorded (only those not sent before), one digest per person and one feed event
 * per organization that sent any. The emails and the records commit together, or neither does.
 */
export async function sendDueReminders(tx: Db, appUrl: string, today: string): Promise<ReminderRun> {
  if (!(await takeRunLock(tx))) return { ran: false, emails: 0, periods: 0, organizations: 0 };
  const periods = byPeriod(await findOutstandingReports(tx, today));
  const recorded = await recordReminders(
    tx,
    [...periods.values()].map(({ orgId, projectId, periodId, kind }) => ({
      orgId,
      projectId,
      periodId,
      kind,
    })),
  );

  const byUser = groupBy(recorded, (reminder) => reminder.userId);
  for (const reminders of byUser.values()) {
    const mine = new Set(reminders.map((reminder) => reminder.periodId));
    const { email, firstName, locale: own } = reminders[0]!;
    const listed = [...periods.values()].filter((period) => mine.has(period.periodId));
    // Their language, else the organization's default when every period is of the same one.
    const orgLocales = new Set(reminders.map((reminder) => reminder.orgLocale));
    const locale = pickLocale(own, orgLocales.size === 1 ? [...orgLocales][0] : undefined);
    await queueEmail(tx, reminderDigest(appUrl, { email, firstName }, listed, locale));
  }

  const byOrg = groupBy(recorded, (reminder) => reminder.orgId);
  for (const [orgId, reminders] of byOrg) {
    await recordFeedEvent(tx, feedEventOf(orgId, reminders, periods));
  }
  return {
    ran: true,
    emails: byUser.size,
    periods: new Set(recorded.map((reminder) => reminder.periodId)).size,
    organizations: byOrg.size,
  };
}

function feedEventOf(
  orgId: string,
  reminders: RecordedReminder[],
  periods: Map<string, DigestPeriod>,
): FeedEvent {
  const people = new Set(reminders.map((reminder) => reminder.userId)).size;
  const periodIds = new Set(reminders.map((reminder) => reminder.periodId));
  const orgName = periods.get(reminders[0]!.periodId)?.orgName ?? '';
  return {
    orgId,
    type: 'reminders.sent',
    actorId: null,
    projectId: null,
    subject: { type: 'organization', id: orgId, label: orgName },
    summary:
      `Deadline reminders sent to ${plural(people, 'person', 'people')} ` +
      `for ${plural(periodIds.size, 'reporting period')}`,
  };
}

/** The UTC calendar date of an instant, `YYYY-MM-DD`. */
const utcDate = (at: Date) => at.toISOString().slice(0, 10);

/**
 * Emails deadline reminders once an hour, one instance at a time: the whole run is one transaction
 * that first takes an advisory lock, so instances that start together do not both send, and a run that
 * fails sends nothing and records nothing (the next hour tries again).
 */
export class ReminderJob {
  private readonly loop: PollLoop;

  constructor(
    readonly db: Db,
    readonly config: Pick<Config, 'appUrl'>,
    readonly clock: Clock,
    readonly log: FastifyBaseLogger,
    readonly options: ReminderJobOptions = {},
  ) {
    // runOnce logs its own failure: a round never throws, and never asks for another at once.
    this.loop = new PollLoop(
      async () => {
        await this.runOnce();
        return false;
      },
      {
        intervalMs: options.intervalMs ?? 3_600_000,
        firstRunMs: options.firstRunMs ?? 60_000,
        keepProcessAlive: options.keepProcessAlive ?? false,
        onError: (err) => this.log.error({ err }, 'deadline reminders failed'),
      },
    );
  }

  start(): void {
    this.loop.start();
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** One pass: returns how many reminder emails it queued (0 when another instance holds the lock). */
  async runOnce(): Promise<number> {
    const today = utcDate(this.clock.now());
    try {
      const run = await transaction(this.db, (tx) => sendDueReminders(tx, this.config.appUrl, today));
      if (!run.ran) this.log.debug('deadline reminders: another instance is running them');
      else if (run.emails > 0) this.log.info({ today, ...run }, 'deadline reminders queued');
      return run.emails;
    } catch (err) {
      this.log.error({ err, today }, 'deadline reminders failed');
      return 0;
    }
  }
}

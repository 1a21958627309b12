import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Db } from '../../src/db/client.js';
import { indicatorReportHistory } from '../../src/modules/indicator-reports/indicator-reports.tables.js';
import type { TestUser } from './factories.js';
import { answers, publishedForm, submitUrl, type FormJson } from './forms.js';
import { call } from './http.js';
import { reportsUrl } from './indicators.js';
import type { Scene } from './report-scenes.js';

export const historyUrl = (s: Scene, id: string) => `${reportsUrl(s.orgId, s.project.id)}/${id}/history`;
export const recountUrl = (s: Scene, id: string) => `${reportsUrl(s.orgId, s.project.id)}/${id}/recount`;

type Change<T> = { from: T; to: T };

/** An entry of a report's history as the API lists it. */
export interface HistoryEntryJson {
  id: number;
  at: string;
  kind: string;
  actorId: string | null;
  actorName: string | null;
  submissionId: string | null;
  changes: {
    value?: Change<number | null>;
    target?: Change<number | null>;
    disaggregatedValues?: Change<Record<string, number>>;
    narrative?: Change<string | null>;
    status?: Change<string | null>;
  };
  reason: string | null;
  /** True when the values are left out: the report counts personal answers this reader may not see. */
  valuesHidden: boolean;
}

/** A report's whole history (unpaged), as `as` reads it through the scene's project. */
export async function historyOf(
  app: FastifyInstance,
  as: TestUser,
  s: Scene,
  id: string,
): Promise<HistoryEntryJson[]> {
  const res = await call(app, 'GET', historyUrl(s, id), { as });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as HistoryEntryJson[];
}

/** A report's history rows straight from the database, in the order written. */
export const historyRows = (db: Db, id: string) =>
  db
    .select()
    .from(indicatorReportHistory)
    .where(eq(indicatorReportHistory.indicatorReportId, id))
    .orderBy(indicatorReportHistory.id);

/** A published survey of the scene's project that counts its `household_size` answers into the scene's report. */
export const countingForm = (app: FastifyInstance, as: TestUser, s: Scene) =>
  publishedForm(app, as, s.orgId, {
    projectId: s.project.id,
    indicatorId: s.indicator.id,
    reportingPeriodId: s.period.id,
    valueFieldKey: 'household_size',
  });

/** A public submission adding `amount` (its household size) to the form's report; its id. */
export async function submitAmount(app: FastifyInstance, form: FormJson, amount: number): Promise<string> {
  const res = await call(app, 'POST', submitUrl(form.publicToken), {
    body: { answers: answers({ household_size: amount }) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return (res.body as { id: string }).id;
}

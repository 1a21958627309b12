import type { FastifyInstance } from 'fastify';
import type { Db } from '../../src/db/client.js';
import {
  addMember,
  assignProject,
  createProject,
  registerUser,
  type Team,
  type TestUser,
} from './factories.js';
import {
  act,
  indicatorCode,
  linkIndicator,
  postDisaggregation,
  postIndicator,
  postReport,
  type IndicatorJson,
  type ReportJson,
} from './indicators.js';
import { createPeriod, type PeriodRow } from './periods.js';

/** What a browser sends when it follows a link. */
export const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** A GET as a browser makes it, with the user's session cookie when given. */
export const browserGet = (app: FastifyInstance, url: string, as?: TestUser | null) =>
  app.inject({
    method: 'GET',
    url,
    headers: { accept: BROWSER_ACCEPT, ...(as ? { cookie: `jwt=${as.token}` } : {}) },
  });

export const reportPagePath = (projectId: string, reportId: string) =>
  `/projects/${projectId}/indicator-reports/${reportId}`;
export const periodPagePath = (projectId: string, periodId: string) =>
  `/projects/${projectId}/reporting-periods/${periodId}`;

export interface ReturnedScene {
  project: { id: string; name: string };
  /** With a Sex disaggregation (female, male): its report was submitted by the reporter and returned. */
  counted: IndicatorJson;
  /** Without disaggregations and without a report in the period. */
  missing: IndicatorJson;
  period: PeriodRow;
  returned: ReportJson;
  /** A reporter of the organization the project is not assigned to. */
  unassigned: TestUser;
}

/**
 * A project assigned to the team's reporter, two indicators linked to it, one reporting period due in a
 * week of `today`, and the reporter's report on the first returned by the officer with `comment`.
 */
export async function returnedReportScene(
  app: FastifyInstance,
  db: Db,
  team: Team,
  options: { projectName?: string; comment?: string; dueDate?: string } = {},
): Promise<ReturnedScene> {
  const orgId = team.org.id;
  const project = await createProject(db, orgId, options.projectName ?? 'Clean Water');
  await assignProject(db, orgId, project.id, team.reporter.id);
  const counted = await postIndicator(app, team.officer, orgId, {
    name: 'People with safe water',
    code: indicatorCode('WAT'),
    unit: 'people',
  });
  await postDisaggregation(app, team.officer, orgId, counted.id, 'Sex', ['female', 'male']);
  const missing = await postIndicator(app, team.officer, orgId, {
    name: 'Wells repaired',
    code: indicatorCode('WEL'),
    unit: 'wells',
  });
  for (const indicator of [counted, missing]) {
    await linkIndicator(app, team.officer, orgId, project.id, indicator.id);
  }
  const period = await createPeriod(db, orgId, project.id, {
    label: 'Q1 2026',
    ...(options.dueDate ? { dueDate: options.dueDate } : {}),
  });
  const draft = await postReport(app, team.reporter, orgId, project.id, {
    indicatorId: counted.id,
    reportingPeriodId: period.id,
    disaggregatedValues: { female: 70, male: 50 },
    narrative: 'Counted at the water points.',
  });
  await act(app, team.reporter, orgId, draft.id, 'submit');
  const returned = await act(app, team.officer, orgId, draft.id, 'reject', {
    comment: options.comment ?? 'The male count misses the second village.',
  });
  const unassigned = await registerUser(app, { firstName: 'Uma', lastName: 'Unassigned' });
  await addMember(db, orgId, unassigned.id, 'reporter');
  return { project, counted, missing, period, returned, unassigned };
}

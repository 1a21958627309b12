import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { uniqueCode, type TestUser } from './factories.js';
import { call } from './http.js';

export const indicatorsUrl = (orgId: string) => `/orgs/${orgId}/indicators`;
export const indicatorUrl = (orgId: string, id: string) => `/orgs/${orgId}/indicators/${id}`;
export const linksUrl = (orgId: string, projectId: string) =>
  `/orgs/${orgId}/projects/${projectId}/indicators`;
export const reportsUrl = (orgId: string, projectId: string) =>
  `/orgs/${orgId}/projects/${projectId}/indicator-reports`;
export const reportUrl = (orgId: string, id: string, action?: 'submit' | 'approve' | 'reject') =>
  `/orgs/${orgId}/indicator-reports/${id}${action ? `/${action}` : ''}`;

/** A code unique to this call: indicator codes are letters, digits and underscores. */
export const indicatorCode = (prefix = 'IND') => uniqueCode(prefix).replace(/-/g, '_');

/** The indicator as the API returns it (the fields tests read most, and the rest). */
export interface IndicatorJson extends Record<string, unknown> {
  id: string;
  code: string;
  name: string;
  isFormula: boolean;
  formula: string | null;
}

/** An indicator through the API (me_officer or org_admin). */
export async function postIndicator(
  app: FastifyInstance,
  as: TestUser,
  orgId: string,
  body: Record<string, unknown> = {},
): Promise<IndicatorJson> {
  const res = await call(app, 'POST', indicatorsUrl(orgId), {
    as,
    body: {
      name: 'Children vaccinated',
      code: indicatorCode(),
      unit: 'children',
      aggregationMethod: 'sum',
      ...body,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as IndicatorJson;
}

export async function postDisaggregation(
  app: FastifyInstance,
  as: TestUser,
  orgId: string,
  indicatorId: string,
  name: string,
  categories: string[],
) {
  const res = await call(app, 'POST', `${indicatorUrl(orgId, indicatorId)}/disaggregations`, {
    as,
    body: { name, categories },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; name: string; categories: string[] };
}

export async function linkIndicator(
  app: FastifyInstance,
  as: TestUser,
  orgId: string,
  projectId: string,
  indicatorId: string,
  body: Record<string, unknown> = {},
) {
  const res = await call(app, 'POST', linksUrl(orgId, projectId), { as, body: { indicatorId, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { projectId: string; indicatorId: string; target: number | null };
}

export interface ReportJson {
  id: string;
  status: string;
  value: number | null;
  target: number | null;
  projectId: string;
  indicatorId: string;
  reportingPeriodId: string;
  disaggregatedValues: Record<string, number>;
  comment: string | null;
  flags: { kind: string; rule?: string; message: string; importance: string; justification: string | null }[];
}

export async function postReport(
  app: FastifyInstance,
  as: TestUser,
  orgId: string,
  projectId: string,
  body: Record<string, unknown>,
): Promise<ReportJson> {
  const res = await call(app, 'POST', reportsUrl(orgId, projectId), { as, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as ReportJson;
}

/** Moves a report along: 'submit', then 'approve' or 'reject' (with a comment). */
export async function act(
  app: FastifyInstance,
  as: TestUser,
  orgId: string,
  id: string,
  action: 'submit' | 'approve' | 'reject',
  body?: Record<string, unknown>,
): Promise<ReportJson> {
  const res = await call(app, 'PATCH', reportUrl(orgId, id, action), {
    as,
    ...(body || action === 'reject' ? { body: body ?? { comment: 'Please check the source' } } : {}),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as ReportJson;
}

import { asc, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Db } from '../../src/db/client.js';
import { formSubmissions } from '../../src/modules/forms/forms.tables.js';
import { auditLog } from '../../src/modules/privacy/privacy.tables.js';
import { createProject, type TestUser } from './factories.js';
import { call } from './http.js';
import { linkIndicator, postIndicator, reportsUrl } from './indicators.js';
import { createPeriod } from './periods.js';

export const formsUrl = (orgId: string) => `/orgs/${orgId}/forms`;
export const formUrl = (orgId: string, id: string, action?: string) =>
  `/orgs/${orgId}/forms/${id}${action ? `/${action}` : ''}`;
export const publicFormUrl = (token: string) => `/forms/public/${token}`;
export const submitUrl = (token: string) => `/forms/public/${token}/submit`;
export const submissionsUrl = (orgId: string, formId: string) => `/orgs/${orgId}/forms/${formId}/submissions`;
export const submissionFileUrl = (orgId: string, formId: string, submissionId: string, key: string) =>
  `/orgs/${orgId}/forms/${formId}/submissions/${submissionId}/files/${key}`;
export const submissionsCsvUrl = (orgId: string, formId: string) =>
  `/orgs/${orgId}/forms/${formId}/submissions.csv`;
export const eraseUrl = (orgId: string, formId: string, submissionId: string) =>
  `/orgs/${orgId}/forms/${formId}/submissions/${submissionId}/erase`;

export interface FormJson extends Record<string, unknown> {
  id: string;
  projectId: string;
  indicatorId: string | null;
  reportingPeriodId: string | null;
  publicToken: string;
  publicUrl: string;
  isPublished: boolean;
  fields: Record<string, unknown>[];
  submissionCount: number;
}

/** A short survey with one field of most types; `household_size` counts when it is the value field. */
export const SURVEY_FIELDS = [
  { type: 'text', label: 'Name', key: 'name', required: true },
  { type: 'number', label: 'Household size', key: 'household_size' },
  { type: 'select', label: 'Water source', key: 'source', options: ['well', 'river', 'tap'], required: true },
  {
    type: 'textarea',
    label: 'Why the river?',
    key: 'river_reason',
    required: true,
    showIf: { field: 'source', equals: 'river' },
  },
  { type: 'boolean', label: 'Consent', key: 'consent' },
];

/**
 * A consent-based survey: a field of each type that may be personal, marked so, and two that are not
 * (`village` can be marked later). `age` is a number field, so it can be a form's value field.
 */
export const PERSONAL_FIELDS = [
  { type: 'text', label: 'Name', key: 'name', personal: true },
  { type: 'number', label: 'Age', key: 'age', personal: true },
  { type: 'date', label: 'Date of birth', key: 'born', personal: true },
  { type: 'location', label: 'Home', key: 'home', personal: true },
  { type: 'textarea', label: 'Story', key: 'story', personal: true },
  { type: 'select', label: 'Water source', key: 'source', options: ['well', 'river', 'tap'] },
  { type: 'text', label: 'Village', key: 'village' },
  { type: 'boolean', label: 'Consent', key: 'consent', personal: false },
];

/** An answer set for PERSONAL_FIELDS; `born` and `story` are left unanswered. */
export const personalAnswers = (overrides: Record<string, unknown> = {}) => ({
  name: 'Achieng Otieno',
  age: 34,
  home: { lat: -0.0917, lng: 34.768 },
  source: 'well',
  village: 'Kisumu East',
  consent: true,
  ...overrides,
});

/** The audit entries about a form's submissions (their details name it), oldest first. */
export function auditEntriesOf(db: Db, formId: string) {
  return db
    .select()
    .from(auditLog)
    .where(sql`${auditLog.details}->>'formId' = ${formId}`)
    .orderBy(asc(auditLog.at), asc(auditLog.id));
}

/** Every audit entry of an organization, oldest first. */
export function auditEntriesIn(db: Db, orgId: string) {
  return db
    .select()
    .from(auditLog)
    .where(eq(auditLog.orgId, orgId))
    .orderBy(asc(auditLog.at), asc(auditLog.id));
}

/** A project with a period and a linked count indicator, ready for forms. */
export async function formTargets(app: FastifyInstance, db: Db, as: TestUser, orgId: string) {
  const project = await createProject(db, orgId);
  const period = await createPeriod(db, orgId, project.id);
  const indicator = await postIndicator(app, as, orgId);
  await linkIndicator(app, as, orgId, project.id, indicator.id);
  return { project, period, indicator };
}

export type FormTargets = Awaited<ReturnType<typeof formTargets>>;

/** A published form of the targets' project counting into their indicator and period. */
export const countingFormFor = (
  app: FastifyInstance,
  as: TestUser,
  orgId: string,
  targets: FormTargets,
  body: Record<string, unknown> = {},
) =>
  publishedForm(app, as, orgId, {
    projectId: targets.project.id,
    indicatorId: targets.indicator.id,
    reportingPeriodId: targets.period.id,
    ...body,
  });

/** A public submission, then moved to `at` so that the order is the test's; its id. */
export async function submitAt(
  app: FastifyInstance,
  db: Db,
  form: FormJson,
  given: Record<string, unknown>,
  at: string,
): Promise<string> {
  const res = await call(app, 'POST', submitUrl(form.publicToken), { body: { answers: given } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id = res.body.id as string;
  await db
    .update(formSubmissions)
    .set({ submittedAt: new Date(at) })
    .where(eq(formSubmissions.id, id));
  return id;
}

/** The id of the one report of the targets' indicator in a period (the targets' by default). */
export async function reportOfTargets(
  app: FastifyInstance,
  as: TestUser,
  orgId: string,
  targets: FormTargets,
  periodId = targets.period.id,
): Promise<string> {
  const query = `?indicatorId=${targets.indicator.id}&periodId=${periodId}`;
  const res = await call(app, 'GET', `${reportsUrl(orgId, targets.project.id)}${query}`, { as });
  expect(res.body).toHaveLength(1);
  return res.body[0].id as string;
}

export async function postForm(
  app: FastifyInstance,
  as: TestUser,
  orgId: string,
  body: Record<string, unknown>,
): Promise<FormJson> {
  const res = await call(app, 'POST', formsUrl(orgId), {
    as,
    body: { title: 'Household water survey', fields: SURVEY_FIELDS, ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as FormJson;
}

/** A form through the API, published. */
export async function publishedForm(
  app: FastifyInstance,
  as: TestUser,
  orgId: string,
  body: Record<string, unknown>,
): Promise<FormJson> {
  const form = await postForm(app, as, orgId, body);
  const res = await call(app, 'POST', formUrl(orgId, form.id, 'publish'), { as });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as FormJson;
}

/** A valid answer set for SURVEY_FIELDS. */
export const answers = (overrides: Record<string, unknown> = {}) => ({
  name: 'Achieng',
  household_size: 5,
  source: 'well',
  consent: true,
  ...overrides,
});

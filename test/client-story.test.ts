/**
 * The main story driven through the generated TypeScript client (clients/typescript) against a real,
 * listening app, with no casts: if the document and the service disagree, this fails to compile or to run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMelClient, newIdempotencyKey, type MelClient } from '../clients/typescript/src/index.js';
import { buildTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
let baseUrl: string;
beforeAll(async () => {
  t = await buildTestApp();
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => t.close());

/** The answer's data, failing the test with the error body when there is none. */
function ok<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data === undefined) {
    throw new Error(`${answer.response.status}: ${JSON.stringify(answer.error)}`);
  }
  return answer.data;
}

describe('the typed client drives the main story', () => {
  it('registers, builds a project, reports, collects and shares a report a donor reads', async () => {
    let token: string | undefined;
    const api: MelClient = createMelClient({ baseUrl, token: () => token });
    const email = `officer-${Date.now()}@example.org`;
    const password = 'a long enough password';

    const user = ok(
      await api.POST('/auth/register', { body: { email, password, firstName: 'Amina', lastName: 'Diallo' } }),
    );
    expect(user.email).toBe(email);
    token = ok(await api.POST('/auth/token', { body: { email, password } })).accessToken;

    const org = ok(await api.POST('/orgs', { body: { name: 'Water for All', code: `wfa-${Date.now()}` } }));
    token = ok(await api.POST('/auth/token', { body: { organizationId: org.id } })).accessToken;
    const orgId = org.id;

    const program = ok(
      await api.POST('/orgs/{orgId}/programs', {
        params: { path: { orgId } },
        body: { name: 'Clean water 2026', startDate: '2026-01-01', endDate: '2026-12-31' },
      }),
    );
    const project = ok(
      await api.POST('/orgs/{orgId}/programs/{programId}/projects', {
        params: { path: { orgId, programId: program.id } },
        body: {
          name: 'Boreholes in Kisumu',
          code: 'KIS-01',
          startDate: '2026-01-01',
          endDate: '2026-12-31',
          currency: 'USD',
        },
      }),
    );
    const indicator = ok(
      await api.POST('/orgs/{orgId}/indicators', {
        params: { path: { orgId } },
        body: {
          name: 'People with safe water',
          code: 'SAFE_WATER',
          unit: 'people',
          aggregationMethod: 'sum',
        },
      }),
    );
    const disaggregation = ok(
      await api.POST('/orgs/{orgId}/indicators/{id}/disaggregations', {
        params: { path: { orgId, id: indicator.id } },
        body: { name: 'Sex', categories: ['female', 'male'] },
      }),
    );
    expect(disaggregation.categories).toEqual(['female', 'male']);
    ok(
      await api.POST('/orgs/{orgId}/projects/{projectId}/indicators', {
        params: { path: { orgId, projectId: project.id } },
        body: { indicatorId: indicator.id, target: 1000 },
      }),
    );
    const quarter = ok(
      await api.POST('/orgs/{orgId}/projects/{projectId}/reporting-periods', {
        params: { path: { orgId, projectId: project.id } },
        body: { label: 'Q1 2026', startDate: '2026-01-01', endDate: '2026-03-31' },
      }),
    );
    const nextQuarter = ok(
      await api.POST('/orgs/{orgId}/projects/{projectId}/reporting-periods', {
        params: { path: { orgId, projectId: project.id } },
        body: { label: 'Q2 2026', startDate: '2026-04-01', endDate: '2026-06-30' },
      }),
    );

    const draft = ok(
      await api.POST('/orgs/{orgId}/projects/{projectId}/indicator-reports', {
        params: {
          path: { orgId, projectId: project.id },
          header: { 'Idempotency-Key': newIdempotencyKey() },
        },
        body: {
          indicatorId: indicator.id,
          reportingPeriodId: quarter.id,
          value: 420,
          disaggregatedValues: { female: 230, male: 190 },
        },
      }),
    );
    const submitted = ok(
      await api.PATCH('/orgs/{orgId}/indicator-reports/{id}/submit', {
        params: { path: { orgId, id: draft.id } },
      }),
    );
    expect(submitted.status).toBe('submitted');
    const approved = ok(
      await api.PATCH('/orgs/{orgId}/indicator-reports/{id}/approve', {
        params: { path: { orgId, id: draft.id } },
        body: { comment: 'Matches the distribution lists' },
      }),
    );
    expect(approved.status).toBe('approved');

    const form = ok(
      await api.POST('/orgs/{orgId}/forms', {
        params: { path: { orgId } },
        body: {
          projectId: project.id,
          title: 'Household water survey',
          fields: [{ type: 'number', label: 'Household size', key: 'household_size', required: true }],
          indicatorId: indicator.id,
          reportingPeriodId: nextQuarter.id,
          valueFieldKey: 'household_size',
        },
      }),
    );
    const published = ok(
      await api.POST('/orgs/{orgId}/forms/{id}/publish', { params: { path: { orgId, id: form.id } } }),
    );
    expect(published.isPublished).toBe(true);

    // The respondent is nobody's user: a client without a token.
    const respondent = createMelClient({ baseUrl });
    const publicForm = ok(
      await respondent.GET('/forms/public/{token}', { params: { path: { token: form.publicToken } } }),
    );
    expect(publicForm.title).toBe('Household water survey');
    const key = newIdempotencyKey();
    const submission = ok(
      await respondent.POST('/forms/public/{token}/submit', {
        params: { path: { token: form.publicToken }, header: { 'Idempotency-Key': key } },
        body: { answers: { household_size: 6 } },
      }),
    );
    const retried = await respondent.POST('/forms/public/{token}/submit', {
      params: { path: { token: form.publicToken }, header: { 'Idempotency-Key': key } },
      body: { answers: { household_size: 6 } },
    });
    expect(ok(retried)).toEqual(submission);
    expect(retried.response.headers.get('idempotent-replayed')).toBe('true');

    const counted = ok(
      await api.GET('/orgs/{orgId}/projects/{projectId}/indicator-reports', {
        params: { path: { orgId, projectId: project.id }, query: { periodId: nextQuarter.id } },
      }),
    );
    const countedReports = Array.isArray(counted) ? counted : counted.data;
    expect(countedReports.map((report) => report.value)).toEqual([6]);

    const report = ok(
      await api.POST('/orgs/{orgId}/projects/{projectId}/reports', {
        params: { path: { orgId, projectId: project.id } },
        body: { title: 'First quarter to donors', startDate: '2026-01-01', endDate: '2026-03-31' },
      }),
    );
    const shared = ok(
      await api.PATCH('/orgs/{orgId}/reports/{id}/share', {
        params: { path: { orgId, id: report.id } },
        body: {},
      }),
    );
    expect(shared.shareToken).toEqual(expect.any(String));
    const shareToken = shared.shareToken ?? '';

    const donor = createMelClient({ baseUrl });
    const read = ok(await donor.GET('/reports/share/{token}', { params: { path: { token: shareToken } } }));
    expect(read.title).toBe('First quarter to donors');
    const entry = read.sections.indicators.find((line) => line.code === 'SAFE_WATER');
    expect(entry).toMatchObject({
      value: 420,
      target: 1000,
      disaggregatedValues: { female: 230, male: 190 },
    });

    const missing = await donor.GET('/reports/share/{token}', {
      params: { path: { token: 'no-such-token' } },
    });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.code).toBe('not_found');
  });
});

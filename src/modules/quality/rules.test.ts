import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createProject } from '../../../test/helpers/factories.js';
import {
  call,
  expectError,
  expectViolations,
  MANAGERS,
  MISSING_ID,
  notAMember,
  notFoundBody,
  roleRefused,
  TEST_BASE_URL,
  UNAUTHORIZED,
  type Caller,
} from '../../../test/helpers/http.js';
import {
  linkIndicator,
  postDisaggregation,
  postIndicator,
  postReport,
} from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { useSuite } from '../../../test/helpers/suite.js';
import { indicatorReports } from '../indicator-reports/indicator-reports.tables.js';

const { t, team } = useSuite();

const rulesUrl = (orgId = team.org.id) => `/orgs/${orgId}/validation-rules`;
const post = (body: Record<string, unknown>, as: Caller | null = team.officer, orgId = team.org.id) =>
  call(t.app, 'POST', rulesUrl(orgId), { as, body });

async function indicators() {
  const trained = await postIndicator(t.app, team.admin, team.org.id, { name: 'People trained' });
  const registered = await postIndicator(t.app, team.admin, team.org.id, { name: 'People registered' });
  await postDisaggregation(t.app, team.admin, team.org.id, trained.id, 'Sex', ['female', 'male']);
  return { trained, registered };
}

describe('validation rules', () => {
  it('are written, read, changed and deleted by officers', async () => {
    const { trained, registered } = await indicators();
    const project = await createProject(t.database.db, team.org.id);
    const created = await post({
      name: 'Trained within registered',
      left: `${trained.code}[female] + ${trained.code}[ male ]`,
      operator: '<=',
      right: ` ${registered.code} `,
      importance: 'high',
      instruction: 'Check the attendance sheets',
      projectIds: [project.id],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.headers.location).toBe(`${TEST_BASE_URL}${rulesUrl()}/${created.body.id}`);
    expect(created.body).toMatchObject({
      orgId: team.org.id,
      name: 'Trained within registered',
      left: `${trained.code}[female] + ${trained.code}[ male ]`,
      operator: '<=',
      right: registered.code,
      importance: 'high',
      instruction: 'Check the attendance sheets',
      projectIds: [project.id],
    });
    const url = `${rulesUrl()}/${created.body.id}`;
    expect((await call(t.app, 'GET', url, { as: team.admin })).body).toEqual(created.body);
    const list = await call(t.app, 'GET', rulesUrl(), { as: team.admin });
    expect(list.body.map((rule: { id: string }) => rule.id)).toContain(created.body.id);

    const changed = await call(t.app, 'PATCH', url, {
      as: team.officer,
      body: { operator: '<', importance: 'low', instruction: null, projectIds: null },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({
      operator: '<',
      importance: 'low',
      instruction: null,
      projectIds: null,
    });

    expect((await call(t.app, 'DELETE', url, { as: team.officer })).status).toBe(204);
    expectError(await call(t.app, 'GET', url, { as: team.admin }), notFoundBody('Validation rule'));
  });

  it('refuses sides that are not formulas over the organization’s indicators and cells', async () => {
    const { trained, registered } = await indicators();
    const formula = await postIndicator(t.app, team.admin, team.org.id, {
      name: 'Twice',
      formula: `${trained.code} * 2`,
    });
    const base = { name: 'A rule', operator: '<=', importance: 'medium' };
    expectViolations(
      await post({ ...base, left: `${trained.code} % 2`, right: registered.code }),
      'left: operator % is not allowed',
    );
    expectViolations(
      await post({ ...base, left: 'NOBODY_KNOWS', right: `${formula.code} + ${trained.code}[other]` }),
      'left: NOBODY_KNOWS is not an indicator of the organization',
      `right: ${formula.code} is a formula indicator: write the indicators its formula reads`,
      `right: ${trained.code} has no category or cell other`,
    );
    expectViolations(
      await post({ ...base, left: '1', right: '2' }),
      'left and right name no indicator: a rule reads at least one',
    );
    expectViolations(
      await post({ ...base, left: trained.code, right: '0', projectIds: [MISSING_ID] }),
      `projectIds: ${MISSING_ID} is not a project of the organization`,
    );
    const other = await post({ ...base, left: trained.code, right: '0', operator: '=<' });
    expect([other.status, other.body.code]).toEqual([400, 'validation_failed']);
    // Another organization's indicator is no indicator here.
    const foreign = await postIndicator(t.app, team.outsider, team.outsiderOrg.id);
    expectViolations(
      await post({ ...base, left: foreign.code, right: '0' }),
      `left: ${foreign.code} is not an indicator of the organization`,
    );
  });

  it('answers 401, 403 to viewers, reporters and strangers, and 404 for another organization’s rule', async () => {
    const { trained } = await indicators();
    const body = { name: 'Positive', left: trained.code, operator: '>=', right: '0', importance: 'low' };
    expectError(await post(body, null), UNAUTHORIZED);
    expectError(await post(body, team.viewer), roleRefused(MANAGERS));
    expectError(await post(body, team.reporter), roleRefused(MANAGERS));
    expectError(await post(body, team.outsider), notAMember(MANAGERS));
    expectError(await call(t.app, 'GET', rulesUrl(), { as: team.reporter }), roleRefused(MANAGERS));

    const theirs = await postIndicator(t.app, team.outsider, team.outsiderOrg.id);
    const foreign = await post({ ...body, left: theirs.code }, team.outsider, team.outsiderOrg.id);
    expect(foreign.status).toBe(201);
    for (const id of [foreign.body.id, MISSING_ID]) {
      const url = `${rulesUrl()}/${id}`;
      expectError(await call(t.app, 'GET', url, { as: team.admin }), notFoundBody('Validation rule'));
      expectError(
        await call(t.app, 'PATCH', url, { as: team.admin, body: { name: 'Mine' } }),
        notFoundBody('Validation rule'),
      );
      expectError(await call(t.app, 'DELETE', url, { as: team.admin }), notFoundBody('Validation rule'));
    }
  });

  it('takes its flags off the reports when it is changed or deleted, and no other rule’s', async () => {
    const { trained, registered } = await indicators();
    const body = {
      name: 'Within',
      left: trained.code,
      operator: '<=',
      right: registered.code,
      importance: 'high',
    };
    const [first, second] = [(await post(body)).body, (await post({ ...body, name: 'Again' })).body];
    const project = await createProject(t.database.db, team.org.id);
    await linkIndicator(t.app, team.admin, team.org.id, project.id, trained.id);
    await linkIndicator(t.app, team.admin, team.org.id, project.id, registered.id);
    const period = await createPeriod(t.database.db, team.org.id, project.id);
    const report = await postReport(t.app, team.officer, team.org.id, project.id, {
      indicatorId: trained.id,
      reportingPeriodId: period.id,
      value: 3,
    });
    await postReport(t.app, team.officer, team.org.id, project.id, {
      indicatorId: registered.id,
      reportingPeriodId: period.id,
      value: 2,
    });
    const flagsOf = async () =>
      (
        await t.database.db.select().from(indicatorReports).where(eq(indicatorReports.id, report.id))
      )[0]!.flags.map((f) => f.rule);
    // 3 > 2 breaks both rules.
    expect((await flagsOf()).sort()).toEqual([first.id, second.id].sort());
    // Changed to hold (3 <= 2 * 2): its flag goes; the other rule's stays.
    const changed = await call(t.app, 'PATCH', `${rulesUrl()}/${first.id}`, {
      as: team.officer,
      body: { importance: 'low', right: `2 * ${registered.code}` },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(await flagsOf()).toEqual([second.id]);
    await call(t.app, 'DELETE', `${rulesUrl()}/${second.id}`, { as: team.officer });
    expect(await flagsOf()).toEqual([]);
  });
});

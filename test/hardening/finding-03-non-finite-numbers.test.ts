import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createProject } from '../helpers/factories.js';
import { call, expectViolations } from '../helpers/http.js';
import { linkIndicator, linksUrl, postIndicator, reportsUrl } from '../helpers/indicators.js';
import { createPeriod } from '../helpers/periods.js';
import { publishedForm, submissionsUrl, submitUrl } from '../helpers/forms.js';
import { useSuite } from '../helpers/suite.js';

const { t, team } = useSuite();

/** JSON text as an attacker types it: `1e309` is a valid JSON number that no double can hold. */
const raw = (text: string) => ({ body: text, headers: { 'content-type': 'application/json' } });

async function linkedProject(target?: number) {
  const project = await createProject(t.database.db, team.org.id);
  const period = await createPeriod(t.database.db, team.org.id, project.id);
  const indicator = await postIndicator(t.app, team.officer, team.org.id);
  await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id, { target: target ?? 100 });
  return { project, period, indicator };
}

/** Every read that a stored non-finite number broke. */
async function expectReadsWork(projectId: string) {
  for (const url of [
    reportsUrl(team.org.id, projectId),
    linksUrl(team.org.id, projectId),
    `/orgs/${team.org.id}/dashboard-summary`,
    `/orgs/${team.org.id}/indicators`,
  ]) {
    const res = await call(t.app, 'GET', url, { as: team.officer });
    expect([url, res.status]).toEqual([url, 200]);
  }
}

describe('finding 3: non-finite numbers are refused and never stored', () => {
  it('refuses an indicator report value of 1e309 and stores nothing', async () => {
    const { project, period, indicator } = await linkedProject();
    for (const value of ['1e309', '-1e309']) {
      const res = await call(t.app, 'POST', reportsUrl(team.org.id, project.id), {
        as: team.officer,
        ...raw(`{"indicatorId":"${indicator.id}","reportingPeriodId":"${period.id}","value":${value}}`),
      });
      expectViolations(res, 'value must be a finite number');
    }
    const list = await call(t.app, 'GET', reportsUrl(team.org.id, project.id), { as: team.officer });
    expect([list.status, list.body]).toEqual([200, []]);
    await expectReadsWork(project.id);
  });

  it('refuses disaggregated values whose total is not finite', async () => {
    const { project, period, indicator } = await linkedProject();
    const res = await call(t.app, 'POST', reportsUrl(team.org.id, project.id), {
      as: team.officer,
      body: {
        indicatorId: indicator.id,
        reportingPeriodId: period.id,
        disaggregatedValues: { north: 1e308, south: 1e308 },
      },
    });
    expectViolations(res, 'disaggregatedValues must add up to a finite number');
    await expectReadsWork(project.id);
  });

  it('refuses a project-indicator target of 1e400; the lists and the dashboard still answer', async () => {
    const { project, indicator } = await linkedProject();
    const res = await call(t.app, 'PATCH', `${linksUrl(team.org.id, project.id)}/${indicator.id}`, {
      as: team.officer,
      ...raw('{"target":1e400,"baseline":-1e400}'),
    });
    expectViolations(res, 'target must be a finite number', 'baseline must be a finite number');
    await expectReadsWork(project.id);
  });

  it('refuses non-finite numbers in query strings', async () => {
    const res = await call(t.app, 'GET', `/orgs/${team.org.id}/programs?page=1e309`, { as: team.officer });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('page must be a finite number');
  });

  it('keeps a public submission whose count would overflow, stored with counted false', async () => {
    const { project, period, indicator } = await linkedProject();
    const form = await publishedForm(t.app, team.officer, team.org.id, {
      projectId: project.id,
      indicatorId: indicator.id,
      reportingPeriodId: period.id,
      valueFieldKey: 'amount',
      fields: [{ type: 'number', label: 'Amount', key: 'amount', required: true }],
    });
    const token = form.publicToken;
    const first = await call(t.app, 'POST', submitUrl(token), { body: { answers: { amount: 1.5e308 } } });
    const second = await call(t.app, 'POST', submitUrl(token), { body: { answers: { amount: 1.5e308 } } });
    expect([first.status, second.status]).toEqual([201, 201]);

    const listed = await call(t.app, 'GET', submissionsUrl(team.org.id, form.id), { as: team.officer });
    expect(listed.status).toBe(200);
    const byId = new Map((listed.body as { id: string; counted: boolean }[]).map((s) => [s.id, s.counted]));
    expect([byId.get(first.body.id), byId.get(second.body.id)]).toEqual([true, false]);

    const reports = await call(t.app, 'GET', reportsUrl(team.org.id, project.id), { as: team.officer });
    expect(reports.status).toBe(200);
    expect(reports.body).toEqual([expect.objectContaining({ value: 1.5e308 })]);
    await expectReadsWork(project.id);
  });

  it('refuses a non-finite value in the database itself (CHECK constraints)', async () => {
    const { project, period, indicator } = await linkedProject();
    const db = t.database.db;
    const attempts = [
      sql`INSERT INTO indicator_reports (id, org_id, project_id, indicator_id, reporting_period_id, value)
          VALUES (gen_random_uuid(), ${team.org.id}, ${project.id}, ${indicator.id}, ${period.id}, 'Infinity')`,
      sql`INSERT INTO indicator_reports (id, org_id, project_id, indicator_id, reporting_period_id, target)
          VALUES (gen_random_uuid(), ${team.org.id}, ${project.id}, ${indicator.id}, ${period.id}, 'NaN')`,
      sql`UPDATE project_indicators SET target = '-Infinity' WHERE project_id = ${project.id}`,
      sql`UPDATE project_indicators SET baseline = 'NaN' WHERE project_id = ${project.id}`,
    ];
    for (const statement of attempts) {
      const refusal = await db.execute(statement).then(
        () => 'stored',
        (err: unknown) => String((err as { cause?: { code?: string } }).cause?.code ?? err),
      );
      expect(refusal).toBe('23514');
    }
    await expectReadsWork(project.id);
  });
});

import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { call } from '../../../test/helpers/http.js';
import { countingForm, historyOf, recountUrl, submitAmount } from '../../../test/helpers/report-history.js';
import { reportScene } from '../../../test/helpers/report-scenes.js';
import { indicatorReports } from '../indicator-reports/indicator-reports.tables.js';
import { projects } from '../projects/projects.tables.js';
import { formSubmissions } from './forms.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const { scene, reportsOf } = reportScene(() => ({ t, team }));

const storedReport = async (id: string) =>
  (await t.database.db.select().from(indicatorReports).where(eq(indicatorReports.id, id)))[0];

describe('deleting a form whose submissions were counted', () => {
  it('keeps the value, takes their amounts out of the counted part, and says so in the history', async () => {
    const s = await scene();
    const kept = await countingForm(t.app, team.officer, s);
    const deleted = await countingForm(t.app, team.officer, s);
    await submitAmount(t.app, kept, 4);
    await submitAmount(t.app, deleted, 5);
    await submitAmount(t.app, deleted, 2.5);
    const [report] = await reportsOf(s.project.id);
    const id = report!.id;
    expect(await storedReport(id)).toMatchObject({ value: 11.5, countedValue: 11.5, countedSubmissions: 3 });

    const gone = await call(t.app, 'DELETE', `/orgs/${s.orgId}/forms/${deleted.id}`, { as: team.admin });
    expect(gone.status).toBe(204);

    expect(await storedReport(id)).toMatchObject({ value: 11.5, countedValue: 4, countedSubmissions: 1 });
    const entries = await historyOf(t.app, team.viewer, s, id);
    expect(entries.at(-1)).toEqual({
      id: expect.any(Number),
      at: expect.any(String),
      kind: 'uncounted',
      actorId: team.admin.id,
      actorName: `${team.admin.firstName} ${team.admin.lastName}`,
      submissionId: null,
      changes: {},
      reason:
        `Form “${deleted.title as string}” deleted: 2 counted submission(s) adding 7.5 no longer have a source ` +
        '(counted part 11.5 → 4; the value stays)',
      valuesHidden: false,
    });

    // The linked submissions still add up to the counted part: a recount finds nothing to correct.
    const recount = await call(t.app, 'POST', recountUrl(s, id), { as: team.officer });
    expect(recount.status).toBe(200);
    expect(recount.body).toMatchObject({
      report: { value: 11.5 },
      counted: { from: 4, to: 4 },
      submissions: { from: 1, to: 1 },
    });
  });

  it('releases an approved report too, its value and status untouched', async () => {
    const s = await scene();
    const form = await countingForm(t.app, team.officer, s);
    await submitAmount(t.app, form, 3);
    const [report] = await reportsOf(s.project.id);
    const id = report!.id;
    const url = `/orgs/${s.orgId}/indicator-reports/${id}`;
    expect((await call(t.app, 'PATCH', `${url}/submit`, { as: team.officer })).status).toBe(200);
    expect((await call(t.app, 'PATCH', `${url}/approve`, { as: team.admin })).status).toBe(200);

    expect(
      (await call(t.app, 'DELETE', `/orgs/${s.orgId}/forms/${form.id}`, { as: team.admin })).status,
    ).toBe(204);
    expect(await storedReport(id)).toMatchObject({
      value: 3,
      status: 'approved',
      countedValue: 0,
      countedSubmissions: 0,
    });
  });
});

describe('deleting what holds counted submissions', () => {
  it('deletes a project and a program whose reports were counted from submissions', async () => {
    for (const target of ['project', 'program'] as const) {
      const s = await scene();
      await submitAmount(t.app, await countingForm(t.app, team.officer, s), 2);
      const [project] = await t.database.db.select().from(projects).where(eq(projects.id, s.project.id));
      const url =
        target === 'project'
          ? `/orgs/${s.orgId}/projects/${s.project.id}`
          : `/orgs/${s.orgId}/programs/${project!.programId}`;
      const res = await call(t.app, 'DELETE', url, { as: team.admin });
      expect(res.status, `${target}: ${JSON.stringify(res.body)}`).toBe(204);
      const left = await t.database.db
        .select()
        .from(formSubmissions)
        .where(eq(formSubmissions.orgId, s.orgId));
      expect(
        left.filter((row) => row.indicatorReportId !== null && row.reportingPeriodId === s.period.id),
      ).toEqual([]);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { createProject } from '../../../test/helpers/factories.js';
import {
  ALL_ROLES,
  MISSING_ID,
  UNAUTHORIZED,
  badRequest,
  call,
  expectError,
  notAMember,
  notAssigned,
  notFoundBody,
} from '../../../test/helpers/http.js';
import {
  act,
  indicatorUrl,
  linkIndicator,
  postDisaggregation,
  postIndicator,
  postReport,
} from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { createDonorReport, donorReportUrl } from '../../../test/helpers/reports.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

/**
 * A project with one indicator crossing Sex (female, male) by Age (0-14, 15-24), and two periods: Q1 with
 * cells and margins, Q2 with cells alone (one cell left out).
 */
async function crossedProject(code = 'PEOPLE_X') {
  const orgId = team.org.id;
  const officer = team.officer;
  const ind = await postIndicator(t.app, officer, orgId, { name: 'People trained', code });
  await postDisaggregation(t.app, officer, orgId, ind.id, 'Sex', ['female', 'male']);
  await postDisaggregation(t.app, officer, orgId, ind.id, 'Age', ['0-14', '15-24']);
  const cross = await call(t.app, 'POST', `${indicatorUrl(orgId, ind.id)}/disaggregations`, {
    as: officer,
    body: { name: 'Sex by age', crosses: ['Sex', 'Age'] },
  });
  expect(cross.status).toBe(201);
  const project = await createProject(t.database.db, orgId);
  await linkIndicator(t.app, officer, orgId, project.id, ind.id);
  const q1 = await createPeriod(t.database.db, orgId, project.id);
  const q2 = await createPeriod(t.database.db, orgId, project.id, {
    label: 'Q2 2026',
    startDate: '2026-04-01',
    endDate: '2026-06-30',
  });
  const values = [
    { 'female|0-14': 3, 'female|15-24': 7, 'male|0-14': 1, 'male|15-24': 4, female: 10, male: 5 },
    { 'female|0-14': 2, 'female|15-24': 1, 'male|15-24': 6 },
  ];
  for (const [i, period] of [q1, q2].entries()) {
    const report = await postReport(t.app, officer, orgId, project.id, {
      indicatorId: ind.id,
      reportingPeriodId: period.id,
      disaggregatedValues: values[i],
    });
    await act(t.app, officer, orgId, report.id, 'submit');
    await act(t.app, officer, orgId, report.id, 'approve');
  }
  return { ind, project, periods: [q1, q2] };
}

describe('outputs of a cross', () => {
  it('assembles cells summed per key, margins and total derived; the shared page and IATI show the cells', async () => {
    const { ind, project, periods } = await crossedProject();
    const report = await createDonorReport(t.app, team.officer, team.org.id, {
      projectId: project.id,
      periodIds: periods.map((p) => p.id),
    });
    const entry = report.sections.indicators.find((i: { indicatorId: string }) => i.indicatorId === ind.id);
    expect(entry.value).toBe(24);
    expect(entry.disaggregatedValues).toEqual({
      'female|0-14': 5,
      'female|15-24': 8,
      'male|0-14': 1,
      'male|15-24': 10,
      female: 10,
      male: 5,
    });
    expect(entry.crossTabulations).toEqual([
      {
        name: 'Sex by age',
        crosses: ['Sex', 'Age'],
        dimensions: [
          {
            name: 'Sex',
            categories: [
              { category: 'female', value: 13 },
              { category: 'male', value: 11 },
            ],
          },
          {
            name: 'Age',
            categories: [
              { category: '0-14', value: 6 },
              { category: '15-24', value: 18 },
            ],
          },
        ],
        cells: [
          { key: 'female|0-14', categories: ['female', '0-14'], value: 5 },
          { key: 'female|15-24', categories: ['female', '15-24'], value: 8 },
          { key: 'male|0-14', categories: ['male', '0-14'], value: 1 },
          { key: 'male|15-24', categories: ['male', '15-24'], value: 10 },
        ],
        total: 24,
      },
    ]);

    const csv = await call(t.app, 'GET', `${donorReportUrl(team.org.id, report.id)}/indicators.csv`, {
      as: team.viewer,
    });
    expect([csv.status, csv.headers['content-type']]).toEqual([200, 'text/csv; charset=utf-8']);
    expect(csv.headers['content-disposition']).toBe(
      `attachment; filename="report-${report.id}-indicators.csv"`,
    );
    const line = (breakdown: string, category: string, value: number | string) =>
      `"PEOPLE_X","People trained","children","${breakdown}","${category}",${value}`;
    expect(String(csv.body).trim().split('\n')).toEqual([
      '"code","indicator","unit","breakdown","category","value"',
      line('', '', 24),
      line('Sex', 'female', 10),
      line('Sex', 'male', 5),
      line('Sex by age', 'female|0-14', 5),
      line('Sex by age', 'female|15-24', 8),
      line('Sex by age', 'male|0-14', 1),
      line('Sex by age', 'male|15-24', 10),
      line('Sex by age', 'female', 13),
      line('Sex by age', 'male', 11),
      line('Sex by age', '0-14', 6),
      line('Sex by age', '15-24', 18),
    ]);

    const share = await call(t.app, 'PATCH', donorReportUrl(team.org.id, report.id, 'share'), {
      as: team.officer,
    });
    expect(share.status).toBe(200);
    const page = await call(t.app, 'GET', `/r/${share.body.shareToken}`);
    expect(page.status).toBe(200);
    const html = String(page.body);
    expect(html).toContain('data-cross="Sex by age"');
    expect(html).toContain('Sex \\ Age</th>');
    expect(html).toMatch(/data-cell="female\|15-24"[^>]*>\s*8\s*</);
    expect(html).toMatch(/data-cell="male\|0-14"[^>]*>\s*1\s*</);
    expect(html).toMatch(/data-cross-total[^>]*>24</);

    const patched = await call(t.app, 'PATCH', `/orgs/${team.org.id}`, {
      as: team.admin,
      body: { iatiRef: 'GB-CHC-7654321', iatiOrgType: '22' },
    });
    expect(patched.status).toBe(200);
    const xml = await call(t.app, 'GET', `/orgs/${team.org.id}/iati/activities.xml?projectId=${project.id}`, {
      as: team.officer,
    });
    expect(xml.status).toBe(200);
    const text = String(xml.body);
    expect(text).toContain(
      '<actual value="7"><dimension name="Sex" value="female"/><dimension name="Age" value="15-24"/></actual>',
    );
    expect(text).toContain('<actual value="10"><dimension name="Sex" value="female"/></actual>');
  });
});

describe('GET /orgs/:orgId/reports/:id/indicators.csv', () => {
  it('gives every number of the report, and refuses: 400 bad id, 401, 403, 404 another organization’s', async () => {
    const { project, periods } = await crossedProject('PEOPLE_Y');
    const report = await createDonorReport(t.app, team.officer, team.org.id, {
      projectId: project.id,
      periodIds: [periods[1]!.id],
    });
    const url = (orgId: string, id: string) => `${donorReportUrl(orgId, id)}/indicators.csv`;
    const res = await call(t.app, 'GET', url(team.org.id, report.id), { as: team.officer });
    expect(res.status).toBe(200);
    // Q2 alone: male|0-14 was not given, an empty value.
    expect(String(res.body)).toContain('"PEOPLE_Y","People trained","children","Sex by age","male|0-14",\n');
    expect(String(res.body)).toContain('"PEOPLE_Y","People trained","children","","",9\n');

    expectError(await call(t.app, 'GET', url(team.org.id, report.id)), UNAUTHORIZED);
    expectError(
      await call(t.app, 'GET', url(team.org.id, report.id), { as: team.outsider }),
      notAMember(ALL_ROLES),
    );
    // A reporter not assigned to the project.
    expectError(
      await call(t.app, 'GET', url(team.org.id, report.id), { as: team.reporter }),
      notAssigned(ALL_ROLES),
    );
    const foreignProject = await createProject(t.database.db, team.outsiderOrg.id);
    const foreignPeriod = await createPeriod(t.database.db, team.outsiderOrg.id, foreignProject.id);
    const foreign = await createDonorReport(t.app, team.outsider, team.outsiderOrg.id, {
      projectId: foreignProject.id,
      periodIds: [foreignPeriod.id],
    });
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(await call(t.app, 'GET', url(team.org.id, id), { as: team.admin }), notFoundBody('Report'));
    }
    const bad = await call(t.app, 'GET', url(team.org.id, 'nope'), { as: team.admin });
    expect([bad.status, bad.body]).toEqual([400, badRequest('id must be a UUID')]);
  });
});

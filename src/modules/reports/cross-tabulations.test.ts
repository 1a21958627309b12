import { describe, expect, it } from 'vitest';
import { createProject } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
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
async function crossedProject() {
  const orgId = team.org.id;
  const officer = team.officer;
  const ind = await postIndicator(t.app, officer, orgId, { name: 'People trained', code: 'PEOPLE_X' });
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

    const share = await call(t.app, 'PATCH', donorReportUrl(team.org.id, report.id, 'share'), {
      as: team.officer,
    });
    expect(share.status).toBe(200);
    const page = await call(t.app, 'GET', `/r/${share.body.shareToken}`);
    expect(page.status).toBe(200);
    const html = String(page.body);
    expect(html).toContain('data-cross="Sex by age"');
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

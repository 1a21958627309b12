import { describe, expect, it } from 'vitest';
import { assignProject, type TestUser } from '../../../test/helpers/factories.js';
import {
  badRequest,
  call,
  expectError,
  expectViolations,
  MISSING_ID,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  MANAGERS,
  refusedTo,
} from '../../../test/helpers/http.js';
import {
  donorReportScene,
  donorReportUrl,
  projectReportsUrl,
  publicReportUrl,
  REPORT_PUBLISHED,
  type DonorReportJson,
} from '../../../test/helpers/reports.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const scene = donorReportScene(() => ({ t, team }));

const patch = (id: string, body: unknown, as: TestUser | null = team.officer) =>
  call(t.app, 'PATCH', donorReportUrl(team.org.id, id), { as, body });
const refresh = (id: string, as: TestUser | null = team.officer) =>
  call(t.app, 'POST', donorReportUrl(team.org.id, id, 'refresh'), { as });
const ALREADY_PUBLISHED = {
  statusCode: 409,
  message: 'Report is already published',
  error: 'Conflict',
  code: 'invalid_transition' as const,
};

async function newReport() {
  const s = await scene.simpleProject();
  return { s, report: await scene.reportOf(s.project.id) };
}

/** The feed entries about one report, oldest first. */
async function feedAbout(reportId: string) {
  const res = await call(t.app, 'GET', `/orgs/${team.org.id}/activity-feed`, { as: team.admin });
  expect(res.status).toBe(200);
  return (res.body as { subject: { id: string } }[]).filter((e) => e.subject.id === reportId).reverse();
}

describe('PATCH /orgs/:orgId/reports/:id', () => {
  it('edits the title and narratives of a draft; narratives not sent stay, data sections too', async () => {
    const { report } = await newReport();
    const res = await patch(report.id, {
      title: '  Final Q1 report ',
      sections: { executiveSummary: 'Twelve wells dug.', challengesLessons: 'Late rains.' },
    });
    const edited = {
      ...report,
      title: 'Final Q1 report',
      sections: {
        ...report.sections,
        executiveSummary: 'Twelve wells dug.',
        challengesLessons: 'Late rains.',
      },
      updatedAt: expect.stringMatching(TIMESTAMP),
    };
    expect([res.status, res.body]).toEqual([200, edited]);
    const again = await patch(
      report.id,
      { sections: { recommendations: 'Train pump keepers.' } },
      team.admin,
    );
    const expected = { ...edited, sections: { ...edited.sections, recommendations: 'Train pump keepers.' } };
    expect([again.status, again.body]).toEqual([200, expected]);
    expect(await scene.read(report.id)).toEqual(again.body);
    expect(await feedAbout(report.id)).toEqual([]);
  });

  it('refuses every body violation with 400 and changes nothing', async () => {
    const { report } = await newReport();
    const cases: [unknown, string[]][] = [
      [{ title: '  ' }, ['title should not be empty']],
      [{ title: 'x'.repeat(201) }, ['title must be at most 200 characters']],
      [{ status: 'archived' }, ['status must be one of draft, published']],
      [{ sections: { indicators: [] } }, ['property sections.indicators should not exist']],
      [{ sections: { executiveSummary: 5 } }, ['sections.executiveSummary must be a string']],
      [
        { sections: { recommendations: 'x'.repeat(50_001) } },
        ['sections.recommendations must be at most 50000 characters'],
      ],
      [{ reportType: 'annual' }, ['property reportType should not exist']],
      [{ publishedAt: '2026-05-01T00:00:00.000Z' }, ['property publishedAt should not exist']],
    ];
    for (const [body, messages] of cases) expectViolations(await patch(report.id, body), ...messages);
    expect(await scene.read(report.id)).toEqual(report);
  });

  it('changes nothing for an empty body or status draft on a draft', async () => {
    const { report } = await newReport();
    for (const body of [{}, { status: 'draft' }]) {
      const res = await patch(report.id, body);
      expect([res.status, res.body]).toEqual([200, report]);
    }
  });

  it('publishes: publishedAt set, edits in the same body applied first, a report.published feed entry', async () => {
    const { s, report } = await newReport();
    const res = await patch(report.id, {
      title: 'Final Q1 report',
      sections: { executiveSummary: 'Done.' },
      status: 'published',
    });
    expect([res.status, res.body]).toEqual([
      200,
      {
        ...report,
        title: 'Final Q1 report',
        sections: { ...report.sections, executiveSummary: 'Done.' },
        status: 'published',
        publishedAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP),
      },
    ]);
    expect(await scene.read(report.id)).toEqual(res.body);
    expect(await feedAbout(report.id)).toEqual([
      {
        id: expect.any(String),
        type: 'report.published',
        occurredAt: expect.stringMatching(TIMESTAMP),
        actor: { id: team.officer.id, name: 'Omar Officer' },
        projectId: s.project.id,
        subject: { type: 'report', id: report.id, label: 'Final Q1 report' },
        summary: 'Omar Officer published the report Final Q1 report of Clean Water',
      },
    ]);
  });

  it('makes a published report refuse edits and a second publish with 409', async () => {
    const { report } = await newReport();
    const published = (await patch(report.id, { status: 'published' })).body as DonorReportJson;
    for (const body of [
      { title: 'Renamed' },
      { sections: { executiveSummary: 'Late addition.' } },
      { title: 'Renamed', status: 'draft' },
      { sections: { recommendations: 'More.' }, status: 'published' },
    ]) {
      expectError(await patch(report.id, body, team.admin), REPORT_PUBLISHED);
    }
    expectError(await patch(report.id, { status: 'published' }), ALREADY_PUBLISHED);
    expect(await scene.read(report.id)).toEqual(published);
    expect(await feedAbout(report.id)).toHaveLength(1);
  });

  it('changes nothing for an empty body on a published report (200), as on a draft', async () => {
    const { report } = await newReport();
    const published = (await patch(report.id, { status: 'published' })).body as DonorReportJson;
    const empty = await patch(report.id, {});
    expect([empty.status, empty.body]).toEqual([200, published]);
    expect(await scene.read(report.id)).toEqual(published);
  });

  it('moves a published report back to draft: publishedAt cleared, editable again', async () => {
    const { report } = await newReport();
    await patch(report.id, { status: 'published' });
    const back = await patch(report.id, { status: 'draft' }, team.admin);
    expect([back.status, back.body]).toEqual([
      200,
      { ...report, status: 'draft', publishedAt: null, updatedAt: expect.stringMatching(TIMESTAMP) },
    ]);
    const edited = await patch(report.id, { title: 'Corrected Q1 report' });
    expect([edited.status, edited.body.title, edited.body.status]).toEqual([
      200,
      'Corrected Q1 report',
      'draft',
    ]);
    const again = await patch(report.id, { status: 'published' });
    expect([again.status, again.body.publishedAt]).toEqual([200, expect.stringMatching(TIMESTAMP)]);
    expect((await feedAbout(report.id)).map((e: any) => e.subject.label)).toEqual([
      'Q1 donor report',
      'Corrected Q1 report',
    ]);
  });
});

describe('POST /orgs/:orgId/reports/:id/refresh', () => {
  it('re-assembles with the data as it is now, keeping title and narratives; a snapshot until then', async () => {
    const s = await scene.simpleProject();
    const created = await call(t.app, 'POST', projectReportsUrl(team.org.id, s.project.id), {
      as: team.officer,
      body: { title: 'First half', startDate: '2026-01-01', endDate: '2026-06-30' },
    });
    expect(created.status).toBe(201);
    const byPeriod = await scene.reportOf(s.project.id, { periodIds: [s.q1.id] });
    const edited = (
      await patch(created.body.id, { title: 'First half 2026', sections: { recommendations: 'Keep going.' } })
    ).body as DonorReportJson;

    const q2 = await scene.quarter(s.project.id, 2);
    await scene.report(s.project, s.indicator, q2.id, 20);
    const file = await scene.attachPng(s.project.id);
    expect(await scene.read(edited.id)).toEqual(edited);

    const res = await refresh(edited.id);
    const [entry] = edited.sections.indicators;
    expect([res.status, res.body]).toEqual([
      200,
      {
        ...edited,
        periodIds: [s.q1.id, q2.id],
        updatedAt: expect.stringMatching(TIMESTAMP),
        sections: {
          ...edited.sections,
          indicators: [
            {
              ...entry,
              // Q1 40 + Q2 20 = 60 against the link's target 100: 60 %, still below 70.
              value: 60,
              progressPct: 60,
              // Q2's value is the last change and the latest approval.
              provenance: {
                ...entry.provenance,
                manual: 60,
                lastChangedAt: expect.stringMatching(TIMESTAMP),
                approvedAt: expect.stringMatching(TIMESTAMP),
              },
              periods: [
                ...entry.periods,
                {
                  periodId: q2.id,
                  label: 'Q2 2026',
                  value: 20,
                  target: null,
                },
              ],
            },
          ],
        },
        attachments: [
          {
            id: file.id,
            title: 'well.png',
            fileName: 'well.png',
            contentType: 'image/png',
            size: file.size,
            createdAt: expect.stringMatching(TIMESTAMP),
            downloadUrl: `/orgs/${team.org.id}/attachments/${file.id}/download`,
          },
        ],
      },
    ]);
    expect(await scene.read(edited.id)).toEqual(res.body);

    // Chosen periods stay chosen: Q2 is not added to a report of Q1.
    const kept = await refresh(byPeriod.id, team.admin);
    expect([kept.status, kept.body.periodIds, kept.body.sections.indicators[0].value]).toEqual([
      200,
      [s.q1.id],
      40,
    ]);
  });

  it('refuses a published report with 409; back in draft it refreshes', async () => {
    const { report } = await newReport();
    const published = (await patch(report.id, { status: 'published' })).body;
    expectError(await refresh(report.id), REPORT_PUBLISHED);
    expect(await scene.read(report.id)).toEqual(published);
    await patch(report.id, { status: 'draft' });
    expect((await refresh(report.id)).status).toBe(200);
  });
});

describe('DELETE /orgs/:orgId/reports/:id', () => {
  it('deletes the report (204): it is gone, its share link answers 404, a second DELETE 404', async () => {
    const { s, report } = await newReport();
    const link = await scene.share(report.id);
    expect((await call(t.app, 'GET', publicReportUrl(link.shareToken))).status).toBe(200);
    const res = await call(t.app, 'DELETE', donorReportUrl(team.org.id, report.id), { as: team.officer });
    expect([res.status, res.body]).toEqual([204, null]);
    expectError(await call(t.app, 'GET', publicReportUrl(link.shareToken)), notFoundBody('Report'));
    expectError(
      await call(t.app, 'GET', donorReportUrl(team.org.id, report.id), { as: team.admin }),
      notFoundBody('Report'),
    );
    const listed = await call(t.app, 'GET', `/orgs/${team.org.id}/reports?projectId=${s.project.id}`, {
      as: team.admin,
    });
    expect([listed.status, listed.body]).toEqual([200, []]);
    expectError(
      await call(t.app, 'DELETE', donorReportUrl(team.org.id, report.id), { as: team.admin }),
      notFoundBody('Report'),
    );
  });
});

describe('writes on a report: PATCH, refresh, DELETE', () => {
  const WRITES = [
    ['PATCH', 'PATCH', undefined, { title: 'Renamed' }],
    ['refresh', 'POST', 'refresh', undefined],
    ['DELETE', 'DELETE', undefined, undefined],
  ] as const;

  it.each(WRITES)(
    '%s: viewer and reporter 403, outsider 403, 401, 404, 400',
    async (_label, method, action, body) => {
      const { s, report } = await newReport();
      await assignProject(t.database.db, team.org.id, s.project.id, team.reporter.id);
      const url = (id: string, orgId = team.org.id) => donorReportUrl(orgId, id, action);
      for (const user of [team.viewer, team.reporter, team.outsider]) {
        expectError(
          await call(t.app, method, url(report.id), { as: user, body }),
          refusedTo(team, user, MANAGERS),
        );
      }
      expectError(await call(t.app, method, url(report.id), { body }), UNAUTHORIZED);
      expectError(
        await call(t.app, method, url(report.id, team.outsiderOrg.id), { as: team.outsider, body }),
        notFoundBody('Report'),
      );
      expectError(
        await call(t.app, method, url(MISSING_ID), { as: team.admin, body }),
        notFoundBody('Report'),
      );
      expectError(
        await call(t.app, method, url('r-1'), { as: team.admin, body }),
        badRequest('id must be a UUID'),
      );
      expect(await scene.read(report.id)).toEqual(report);
    },
  );
});

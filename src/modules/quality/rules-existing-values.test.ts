import { describe, expect, it } from 'vitest';
import { createProject } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { linkIndicator, postIndicator, postReport, reportUrl } from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const org = () => team.org.id;

const flagsOf = async (id: string) => {
  const res = await call(t.app, 'GET', reportUrl(org(), id), { as: team.officer });
  expect(res.status).toBe(200);
  return res.body.flags as { rule: string; message: string }[];
};

describe('a rule created or changed over values already saved', () => {
  it('flags the values it finds broken at once, and clears them when changed to hold', async () => {
    const trained = await postIndicator(t.app, team.admin, org(), { name: 'People trained' });
    const registered = await postIndicator(t.app, team.admin, org(), { name: 'People registered' });
    const projects = [
      await createProject(t.database.db, org(), 'North'),
      await createProject(t.database.db, org(), 'South'),
    ];
    const reports: Record<string, string>[] = [];
    for (const [index, project] of projects.entries()) {
      for (const indicator of [trained, registered]) {
        await linkIndicator(t.app, team.admin, org(), project.id, indicator.id);
      }
      const period = await createPeriod(t.database.db, org(), project.id);
      const report = async (indicatorId: string, value: number) =>
        (
          await postReport(t.app, team.officer, org(), project.id, {
            indicatorId,
            reportingPeriodId: period.id,
            value,
          })
        ).id;
      // North breaks "trained <= registered" (120 > 100); South keeps it (80 <= 100).
      reports.push({
        trained: await report(trained.id, index === 0 ? 120 : 80),
        registered: await report(registered.id, 100),
      });
    }
    for (const pair of reports) {
      expect(await flagsOf(pair.trained!)).toEqual([]);
    }

    const created = await call(t.app, 'POST', `/orgs/${org()}/validation-rules`, {
      as: team.officer,
      body: {
        name: 'Trained within registered',
        left: trained.code,
        operator: '<=',
        right: registered.code,
        importance: 'low',
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const message = `Trained within registered: ${trained.code} (120) must be <= ${registered.code} (100)`;
    for (const id of [reports[0]!.trained!, reports[0]!.registered!]) {
      expect(await flagsOf(id)).toEqual([expect.objectContaining({ rule: created.body.id, message })]);
    }
    for (const id of [reports[1]!.trained!, reports[1]!.registered!]) expect(await flagsOf(id)).toEqual([]);

    // A new name keeps the verdicts and their justifications; the message takes the name.
    const submitted = await call(t.app, 'PATCH', reportUrl(org(), reports[0]!.trained!, 'submit'), {
      as: team.officer,
      body: { justification: 'Two sessions counted twice' },
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    const renamed = await call(t.app, 'PATCH', `/orgs/${org()}/validation-rules/${created.body.id}`, {
      as: team.officer,
      body: { name: 'Trained, at most registered' },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(await flagsOf(reports[0]!.trained!)).toEqual([
      expect.objectContaining({
        rule: created.body.id,
        message: message.replace('Trained within registered', 'Trained, at most registered'),
        justification: 'Two sessions counted twice',
      }),
    ]);

    // Changed so that South breaks it and North holds: the flags follow at once.
    const changed = await call(t.app, 'PATCH', `/orgs/${org()}/validation-rules/${created.body.id}`, {
      as: team.officer,
      body: { operator: '>=', right: `0.9 * ${registered.code}`, projectIds: [projects[1]!.id] },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    for (const id of [reports[0]!.trained!, reports[0]!.registered!]) expect(await flagsOf(id)).toEqual([]);
    const south = `Trained, at most registered: ${trained.code} (80) must be >= 0.9 * ${registered.code} (90)`;
    expect(await flagsOf(reports[1]!.trained!)).toEqual([
      expect.objectContaining({ rule: created.body.id, message: south }),
    ]);
  });
});

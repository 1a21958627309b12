import { describe, expect, it } from 'vitest';
import { createProject } from '../../../test/helpers/factories.js';
import { call, expectViolations } from '../../../test/helpers/http.js';
import {
  act,
  linkIndicator,
  postDisaggregation,
  postIndicator,
  postReport,
  reportsUrl,
  reportUrl,
  type ReportJson,
} from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const org = () => team.org.id;

/** A project with two linked indicators (trained, registered; members with Sex) and one period. */
async function scene() {
  const project = await createProject(t.database.db, org());
  const trained = await postIndicator(t.app, team.admin, org(), { name: 'People trained' });
  const registered = await postIndicator(t.app, team.admin, org(), { name: 'People registered' });
  const members = await postIndicator(t.app, team.admin, org(), { name: 'Group members' });
  await postDisaggregation(t.app, team.admin, org(), members.id, 'Sex', ['female', 'male']);
  for (const indicator of [trained, registered, members]) {
    await linkIndicator(t.app, team.admin, org(), project.id, indicator.id);
  }
  const period = await createPeriod(t.database.db, org(), project.id);
  const report = (indicatorId: string, body: Record<string, unknown>) =>
    postReport(t.app, team.officer, org(), project.id, {
      indicatorId,
      reportingPeriodId: period.id,
      ...body,
    });
  return { project, trained, registered, members, period, report };
}

const rule = async (body: Record<string, unknown>) => {
  const res = await call(t.app, 'POST', `/orgs/${org()}/validation-rules`, { as: team.officer, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
};
const read = async (id: string) =>
  (await call(t.app, 'GET', reportUrl(org(), id), { as: team.officer })).body as ReportJson & {
    flags: Record<string, unknown>[];
  };
const patch = (id: string, body: Record<string, unknown>) =>
  call(t.app, 'PATCH', reportUrl(org(), id), { as: team.officer, body });

describe('validation rules checked as values are written', () => {
  it('flags every report a broken rule reads, and clears them when an input changes', async () => {
    const s = await scene();
    const within = await rule({
      name: 'Trained within registered',
      left: s.trained.code,
      operator: '<=',
      right: s.registered.code,
      importance: 'high',
      instruction: 'Check the attendance sheets',
    });
    const registered = await s.report(s.registered.id, { value: 100 });
    expect(registered).toMatchObject({ flags: [] });
    // Saving is not refused; the answer carries the flag.
    const trained = await s.report(s.trained.id, { value: 1200 });
    const flag = {
      kind: 'rule',
      rule: within.id,
      message: `Trained within registered: ${s.trained.code} (1,200) must be <= ${s.registered.code} (100)`,
      importance: 'high',
      instruction: 'Check the attendance sheets',
      justification: null,
    };
    expect(trained).toMatchObject({ value: 1200, flags: [flag] });
    expect((await read(registered.id)).flags).toEqual([flag]);
    const list = (query: string) =>
      call(t.app, 'GET', `${reportsUrl(org(), s.project.id)}${query}`, { as: team.viewer });
    expect((await list('?flagged=true')).body.map((r: ReportJson) => r.id).sort()).toEqual(
      [trained.id, registered.id].sort(),
    );
    expect((await list('?flagged=false')).body).toEqual([]);

    // Another input written: the rule holds, both flags go.
    const raised = await patch(registered.id, { value: 1500 });
    expect(raised.body.flags).toEqual([]);
    expect((await read(trained.id)).flags).toEqual([]);
    expect((await list('?flagged=true')).body).toEqual([]);
  });

  it('reads cells, applies to its projects only, and is not checked while an input is missing', async () => {
    const s = await scene();
    const other = await createProject(t.database.db, org());
    await rule({
      name: 'Women are most members',
      left: `${s.members.code}[female]`,
      operator: '>=',
      right: `0.6 * ${s.members.code}`,
      importance: 'medium',
    });
    await rule({
      name: 'Elsewhere',
      left: s.members.code,
      operator: '<',
      right: '0',
      importance: 'low',
      projectIds: [other.id],
    });
    await rule({
      name: 'Needs registered',
      left: s.members.code,
      operator: '<=',
      right: s.registered.code,
      importance: 'low',
    });
    const members = await s.report(s.members.id, { disaggregatedValues: { female: 5, male: 5 } });
    expect(members.flags.map((f: { message: string }) => f.message)).toEqual([
      `Women are most members: ${s.members.code}[female] (5) must be >= 0.6 * ${s.members.code} (6)`,
    ]);
    const fixed = await patch(members.id, { disaggregatedValues: { female: 7, male: 3 } });
    expect(fixed.body.flags).toEqual([]);
  });

  it('asks a justification to submit a value breaking a rule of high importance, and the approver sees it', async () => {
    const s = await scene();
    const within = await rule({
      name: 'Within',
      left: s.trained.code,
      operator: '<=',
      right: s.registered.code,
      importance: 'high',
    });
    await s.report(s.registered.id, { value: 10 });
    const trained = await s.report(s.trained.id, { value: 12 });
    const submit = (body?: Record<string, unknown>) =>
      call(t.app, 'PATCH', reportUrl(org(), trained.id, 'submit'), {
        as: team.officer,
        ...(body && { body }),
      });
    expectViolations(
      await submit(),
      `justification is required: the value breaks a rule of high importance (Within: ${s.trained.code} (12) must be <= ${s.registered.code} (10))`,
    );
    expect((await submit({ justification: '  ' })).status).toBe(400);
    const submitted = await submit({ justification: 'Two sessions trained the same people' });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    expect(submitted.body.flags).toEqual([
      expect.objectContaining({ rule: within.id, justification: 'Two sessions trained the same people' }),
    ]);
    await act(t.app, team.admin, org(), trained.id, 'approve');
    const history = await call(t.app, 'GET', `${reportsUrl(org(), s.project.id)}/${trained.id}/history`, {
      as: team.admin,
    });
    const kinds = history.body.map((entry: { kind: string; changes: Record<string, unknown> }) => [
      entry.kind,
      Object.keys(entry.changes).sort(),
    ]);
    expect(kinds).toEqual([
      ['created', ['flags', 'status', 'value']],
      ['submitted', ['flags', 'status']],
      ['approved', ['flagsSeen', 'status']],
    ]);
    expect(history.body[2].changes.flagsSeen).toEqual(submitted.body.flags);
  });

  it('checks the rules of values imported in bulk', async () => {
    const s = await scene();
    await rule({
      name: 'Within',
      left: s.trained.code,
      operator: '<=',
      right: s.registered.code,
      importance: 'low',
    });
    const projectId = s.project.id;
    const res = await call(t.app, 'POST', `/orgs/${org()}/indicator-reports/bulk`, {
      as: team.officer,
      body: {
        values: [
          { projectId, indicatorId: s.registered.id, periodId: s.period.id, value: 4 },
          { projectId, indicatorId: s.trained.id, periodId: s.period.id, value: 9 },
        ],
      },
    });
    expect(res.body.summary).toMatchObject({ created: 2, refused: 0 });
    const flagged = await call(t.app, 'GET', `${reportsUrl(org(), projectId)}?flagged=true`, {
      as: team.admin,
    });
    expect(flagged.body.map((r: { flags: { message: string }[] }) => r.flags[0]!.message)).toEqual([
      `Within: ${s.trained.code} (9) must be <= ${s.registered.code} (4)`,
      `Within: ${s.trained.code} (9) must be <= ${s.registered.code} (4)`,
    ]);
  });
});

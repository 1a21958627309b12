import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestAppWithMail, type MailTestApp } from '../../../test/helpers/app.js';
import { createTeam, type Team } from '../../../test/helpers/factories.js';
import {
  badRequest,
  call,
  expectError,
  expectViolations,
  MISSING_ID,
  TIMESTAMP,
  UNAUTHORIZED,
  CONTRIBUTORS,
  MANAGERS,
  refusedTo,
} from '../../../test/helpers/http.js';
import { act, reportUrl } from '../../../test/helpers/indicators.js';
import { expectRecent, NOT_FOUND, reviewScene } from '../../../test/helpers/review-scenes.js';

let t: MailTestApp;
let team: Team;
const scene = reviewScene(() => ({ t, team }));
const { fixture, addIndicator, draft, reportIn, send, stored, feedAbout, outboxFor } = scene;

beforeAll(async () => {
  t = await buildTestAppWithMail();
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

describe('PATCH /orgs/:orgId/indicator-reports/:id/submit', () => {
  it('requires a value: a draft without one is 400 and stays a draft', async () => {
    const fx = await fixture();
    const report = await draft(fx, { value: null });
    expect(report.value).toBeNull();
    const row = await stored(report.id);
    expect((await send('submit', report.id, team.reporter)).body).toEqual(
      badRequest('value is required to submit the report'),
    );
    expect(await stored(report.id)).toEqual(row);
    expect(await feedAbout(report.id)).toEqual([]);
  });

  it('is allowed to org_admin, me_officer and the assigned reporter, recording submittedAt and submittedBy', async () => {
    const fx = await fixture();
    for (const user of [team.admin, team.officer, team.reporter]) {
      const indicator = await addIndicator(fx);
      const report = await draft(fx, { indicatorId: indicator.id });
      const before = Date.now();
      const res = await send('submit', report.id, user);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...report,
        status: 'submitted',
        submittedAt: expect.stringMatching(TIMESTAMP),
        submittedBy: user.id,
        updatedAt: expect.stringMatching(TIMESTAMP),
      });
      expectRecent(res.body.submittedAt, before);
      const row = await stored(report.id);
      expect([row.status, row.submittedBy, row.submittedAt?.toISOString()]).toEqual([
        'submitted',
        user.id,
        res.body.submittedAt,
      ]);
    }
  });

  it('refuses an unassigned reporter, the viewer and an outsider (403) and no session (401)', async () => {
    const fx = await fixture({ assign: false });
    const report = await draft(fx, { as: team.officer });
    const row = await stored(report.id);
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(await send('submit', report.id, user), refusedTo(team, user, CONTRIBUTORS));
    }
    expectError(await send('submit', report.id, null), UNAUTHORIZED);
    expect(await stored(report.id)).toEqual(row);
    expect(await feedAbout(report.id)).toEqual([]);
  });

  it('answers 404 for another organization’s report or a missing id, 400 for a malformed id', async () => {
    const foreign = await fixture({ orgId: team.outsiderOrg.id, manager: team.outsider });
    const report = await draft(foreign, { as: team.outsider });
    const row = await stored(report.id);
    for (const id of [report.id, MISSING_ID]) {
      expectError(await send('submit', id, team.admin), NOT_FOUND);
    }
    expect(await stored(report.id)).toEqual(row);
    expect((await send('submit', 'nope', team.admin)).body).toEqual(badRequest('id must be a UUID'));
  });
});

describe('PATCH /orgs/:orgId/indicator-reports/:id/approve', () => {
  it('is for me_officer and org_admin, recording reviewedAt and reviewedBy', async () => {
    for (const user of [team.officer, team.admin]) {
      const { report } = await reportIn('submitted');
      const before = Date.now();
      const res = await send('approve', report.id, user);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...report,
        status: 'approved',
        comment: null,
        reviewedAt: expect.stringMatching(TIMESTAMP),
        reviewedBy: user.id,
        updatedAt: expect.stringMatching(TIMESTAMP),
      });
      expectRecent(res.body.reviewedAt, before);
      const row = await stored(report.id);
      expect([row.status, row.reviewedBy, row.reviewedAt?.toISOString()]).toEqual([
        'approved',
        user.id,
        res.body.reviewedAt,
      ]);
    }
  });

  it('refuses the assigned reporter, the viewer and an outsider (403) and no session (401)', async () => {
    const { report } = await reportIn('submitted');
    const row = await stored(report.id);
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(await send('approve', report.id, user), refusedTo(team, user, MANAGERS));
    }
    expectError(await send('approve', report.id, null), UNAUTHORIZED);
    expect(await stored(report.id)).toEqual(row);
  });

  it('takes no body, an empty body, {} or { comment }, and stores the comment', async () => {
    const cases: { options: Parameters<typeof call>[3]; comment: string | null }[] = [
      { options: {}, comment: null },
      { options: { headers: { 'content-type': 'application/json' } }, comment: null },
      { options: { body: {} }, comment: null },
      { options: { body: { comment: null } }, comment: null },
      { options: { body: { comment: 'Good' } }, comment: 'Good' },
    ];
    for (const { options, comment } of cases) {
      const { report } = await reportIn('submitted');
      const res = await call(t.app, 'PATCH', reportUrl(team.org.id, report.id, 'approve'), {
        as: team.officer,
        ...options,
      });
      expect([res.status, res.body.status, res.body.comment]).toEqual([200, 'approved', comment]);
      expect((await stored(report.id)).comment).toBe(comment);
    }
  });

  it('rejects unknown body properties (400) and leaves the report submitted', async () => {
    const { report } = await reportIn('submitted');
    const row = await stored(report.id);
    expectViolations(
      await send('approve', report.id, team.officer, { comment: 'Good', status: 'approved', foo: 1 }),
      'property status should not exist',
      'property foo should not exist',
    );
    expect(await stored(report.id)).toEqual(row);
  });

  it('answers 404 for another organization’s report or a missing id, 400 for a malformed id', async () => {
    const foreign = await fixture({ orgId: team.outsiderOrg.id, manager: team.outsider });
    const report = await draft(foreign, { as: team.outsider });
    await act(t.app, team.outsider, foreign.orgId, report.id, 'submit');
    const row = await stored(report.id);
    for (const id of [report.id, MISSING_ID]) {
      expectError(await send('approve', id, team.admin), NOT_FOUND);
      expectError(await send('reject', id, team.admin), NOT_FOUND);
    }
    expect(await stored(report.id)).toEqual(row);
    expect((await send('approve', 'nope', team.admin)).body).toEqual(badRequest('id must be a UUID'));
    expect((await send('reject', 'nope', team.admin)).body).toEqual(badRequest('id must be a UUID'));
  });
});

describe('PATCH /orgs/:orgId/indicator-reports/:id/reject', () => {
  it('requires a non-empty comment (400) and leaves the report submitted', async () => {
    const { report } = await reportIn('submitted');
    const row = await stored(report.id);
    const cases: [unknown, string[]][] = [
      [{}, ['comment is required']],
      [{ comment: '   ' }, ['comment should not be empty']],
      [{ comment: '' }, ['comment should not be empty']],
      [{ comment: null }, ['comment must be a string']],
      [{ comment: 'Why', foo: 1 }, ['property foo should not exist']],
    ];
    for (const [body, messages] of cases) {
      expectViolations(await send('reject', report.id, team.officer, body), ...messages);
    }
    const bare = await call(t.app, 'PATCH', reportUrl(team.org.id, report.id, 'reject'), {
      as: team.officer,
    });
    // No body at all is an empty one: the missing comment is named.
    expect(bare.body).toEqual(badRequest('comment is required'));
    expect(await stored(report.id)).toEqual(row);
    expect(await feedAbout(report.id)).toEqual([
      expect.objectContaining({ type: 'indicator_report.submitted' }),
    ]);
  });

  it('is for me_officer and org_admin, storing the comment, reviewedAt and reviewedBy', async () => {
    for (const user of [team.officer, team.admin]) {
      const { report } = await reportIn('submitted');
      const before = Date.now();
      const res = await send('reject', report.id, user, { comment: 'Attach the register' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...report,
        status: 'rejected',
        comment: 'Attach the register',
        reviewedAt: expect.stringMatching(TIMESTAMP),
        reviewedBy: user.id,
        updatedAt: expect.stringMatching(TIMESTAMP),
      });
      expectRecent(res.body.reviewedAt, before);
      const row = await stored(report.id);
      expect([row.status, row.comment, row.reviewedBy]).toEqual(['rejected', 'Attach the register', user.id]);
    }
  });

  it('refuses the assigned reporter, the viewer and an outsider (403) and no session (401)', async () => {
    const { report } = await reportIn('submitted');
    const row = await stored(report.id);
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(await send('reject', report.id, user, { comment: 'No' }), refusedTo(team, user, MANAGERS));
    }
    expectError(await send('reject', report.id, null, { comment: 'No' }), UNAUTHORIZED);
    expect(await stored(report.id)).toEqual(row);
    expect(await outboxFor(report.id)).toEqual([]);
  });
});

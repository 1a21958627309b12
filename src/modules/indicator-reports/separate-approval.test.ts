import { beforeAll, describe, expect, it } from 'vitest';
import { addMember, registerUser, type TestUser } from '../../../test/helpers/factories.js';
import {
  badRequestAt,
  call,
  conflictBody,
  expectError,
  ADMINS,
  MANAGERS,
  notAMember,
  refusedTo,
  roleRefused,
  MISSING_ID,
  TIMESTAMP,
  UNAUTHORIZED,
} from '../../../test/helpers/http.js';
import { NOT_FOUND, reviewScene, type ReportBody } from '../../../test/helpers/review-scenes.js';
import { useSuite } from '../../../test/helpers/suite.js';

/**
 * Four eyes: with the organization's `separateApproval` on, whoever last submitted an indicator report
 * may not approve or reject it; off (the default), the contract's behaviour.
 */

const { t, team } = useSuite();
const { fixture, draft, send, stored, feedAbout } = reviewScene(() => ({ t, team }));

const SEPARATE = {
  statusCode: 403,
  message:
    'You submitted this indicator report, and this organization requires someone else to review it ' +
    '(separateApproval): ask another M&E officer or org admin to approve or reject it.',
  error: 'Forbidden',
  code: 'separate_approval_required' as const,
};

/** A second M&E officer of the team's organization. */
let colleague: TestUser;
beforeAll(async () => {
  colleague = await registerUser(t.app, { firstName: 'Olga', lastName: 'Colleague' });
  await addMember(t.database.db, team.org.id, colleague.id, 'me_officer');
});

const orgUrl = () => `/orgs/${team.org.id}`;
const setSeparateApproval = async (on: boolean) => {
  const res = await call(t.app, 'PATCH', orgUrl(), { as: team.admin, body: { separateApproval: on } });
  expect([res.status, res.body.separateApproval]).toEqual([200, on]);
};

/** A draft of its own fixture, submitted by `submitter`. */
async function submittedBy(submitter: TestUser): Promise<ReportBody> {
  const report = await draft(await fixture(), { as: submitter });
  const res = await send('submit', report.id, submitter);
  expect([res.status, res.body.submittedBy]).toEqual([200, submitter.id]);
  return res.body as ReportBody;
}

/** Both reviews refused to `reviewer` with 403 separate_approval_required, and the report untouched. */
async function expectRefusedTo(reviewer: TestUser, report: ReportBody) {
  const [row, feed] = [await stored(report.id), await feedAbout(report.id)];
  expect(row.status).toBe('submitted');
  expectError(await send('approve', report.id, reviewer), SEPARATE);
  expectError(await send('reject', report.id, reviewer, { comment: 'Mine to return' }), SEPARATE);
  expect(await stored(report.id)).toEqual(row);
  expect(await feedAbout(report.id)).toEqual(feed);
}

const approve = async (reviewer: TestUser, report: ReportBody) => {
  const res = await send('approve', report.id, reviewer);
  expect([res.status, res.body.status, res.body.reviewedBy]).toEqual([200, 'approved', reviewer.id]);
};

describe('the setting', () => {
  it('is false by default, wherever the organization is read', async () => {
    const one = await call(t.app, 'GET', orgUrl(), { as: team.viewer });
    expect([one.status, one.body.separateApproval]).toEqual([200, false]);
    const mine = await call(t.app, 'GET', '/orgs', { as: team.reporter });
    expect(mine.body.find((o: { id: string }) => o.id === team.org.id).separateApproval).toBe(false);
  });

  it('is changed by the org_admin alone, keeping the other settings', async () => {
    const before = (await call(t.app, 'GET', orgUrl(), { as: team.admin })).body as Record<string, unknown>;
    const on = await call(t.app, 'PATCH', orgUrl(), { as: team.admin, body: { separateApproval: true } });
    expect([on.status, on.body]).toEqual([200, { ...before, separateApproval: true }]);
    expect((await call(t.app, 'GET', orgUrl(), { as: team.reporter })).body).toEqual(on.body);
    for (const user of [team.officer, team.reporter, team.viewer, team.outsider]) {
      expectError(
        await call(t.app, 'PATCH', orgUrl(), { as: user, body: { separateApproval: false } }),
        refusedTo(team, user, ADMINS),
      );
    }
    expectError(await call(t.app, 'PATCH', orgUrl(), { body: { separateApproval: false } }), UNAUTHORIZED);
    for (const value of ['yes', null, 1]) {
      expectError(
        await call(t.app, 'PATCH', orgUrl(), { as: team.admin, body: { separateApproval: value } }),
        badRequestAt(['body', '/separateApproval', 'type', 'separateApproval must be a boolean']),
      );
    }
    const off = await call(t.app, 'PATCH', orgUrl(), { as: team.admin, body: { separateApproval: false } });
    expect([off.status, off.body]).toEqual([200, before]);
  });
});

describe('reviews with separateApproval off (the default)', () => {
  it('let the submitter approve or reject what they submitted, as before', async () => {
    await approve(team.officer, await submittedBy(team.officer));
    await approve(team.admin, await submittedBy(team.admin));
    const rejected = await send('reject', (await submittedBy(team.officer)).id, team.officer, {
      comment: 'Wrong period',
    });
    expect([rejected.status, rejected.body.status]).toEqual([200, 'rejected']);
  });
});

describe('reviews with separateApproval on', () => {
  beforeAll(() => setSeparateApproval(true));

  it('refuse the me_officer who submitted; another me_officer or an org_admin reviews', async () => {
    const report = await submittedBy(team.officer);
    await expectRefusedTo(team.officer, report);
    await approve(colleague, report);

    const returned = await submittedBy(team.officer);
    const res = await send('reject', returned.id, team.admin, { comment: 'Check the lists' });
    expect([res.status, res.body.status, res.body.reviewedBy]).toEqual([200, 'rejected', team.admin.id]);
  });

  it('refuse the org_admin who submitted; an M&E officer reviews', async () => {
    const report = await submittedBy(team.admin);
    await expectRefusedTo(team.admin, report);
    await approve(team.officer, report);
  });

  it("let either reviewer review a reporter's submission (the reporter reviews nothing)", async () => {
    const first = await submittedBy(team.reporter);
    expectError(await send('approve', first.id, team.reporter), roleRefused(MANAGERS));
    await approve(team.officer, first);
    await approve(team.admin, await submittedBy(team.reporter));
  });

  it('go by the last submission: who submitted again is the one refused', async () => {
    // The reporter submits, the officer returns it, the officer submits it again: the officer may not review.
    const report = await submittedBy(team.reporter);
    expect((await send('reject', report.id, team.officer, { comment: 'Add the lists' })).status).toBe(200);
    const again = await send('submit', report.id, team.officer);
    expect([again.status, again.body.submittedBy]).toEqual([200, team.officer.id]);
    await expectRefusedTo(team.officer, again.body as ReportBody);
    // The admin returns it, the reporter submits it again: now the officer may.
    expect((await send('reject', report.id, team.admin, { comment: 'Once more' })).status).toBe(200);
    expect((await send('submit', report.id, team.reporter)).status).toBe(200);
    await approve(team.officer, report);
  });

  it('answer the status first (409), and 404, 403 and 401 as before', async () => {
    const report = await submittedBy(team.officer);
    await approve(team.admin, report);
    expectError(
      await send('approve', report.id, team.officer),
      conflictBody('Only submitted indicator reports can be approved; this one is approved'),
    );
    expectError(await send('approve', MISSING_ID, team.officer), NOT_FOUND);
    const pending = await submittedBy(team.officer);
    expectError(await send('approve', pending.id, team.outsider), notAMember(MANAGERS));
    expectError(await send('approve', pending.id, team.viewer), roleRefused(MANAGERS));
    expectError(await send('approve', pending.id, null), UNAUTHORIZED);
    expect((await stored(pending.id)).status).toBe('submitted');
  });

  it('let the submitter review again once the organization turns it off', async () => {
    const report = await submittedBy(team.officer);
    await expectRefusedTo(team.officer, report);
    await setSeparateApproval(false);
    await approve(team.officer, report);
    const row = await stored(report.id);
    expect([row.status, row.reviewedBy, row.reviewedAt?.toISOString()]).toEqual([
      'approved',
      team.officer.id,
      expect.stringMatching(TIMESTAMP),
    ]);
  });
});

describe('the OpenAPI document', () => {
  it('states the rule on approve and reject, with its 403, and the setting on the organization', async () => {
    const doc = (await call(t.app, 'GET', '/api/openapi.json')).body;
    for (const action of ['approve', 'reject']) {
      const route = doc.paths[`/orgs/{orgId}/indicator-reports/{id}/${action}`].patch;
      expect(route.description).toContain('403 `separate_approval_required`');
      expect(route.responses['403'].description).toContain('separate_approval_required');
    }
    expect(doc.paths['/orgs/{orgId}'].patch.description).toContain('`separateApproval: true`');
  });
});

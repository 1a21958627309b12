import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestAppWithMail, type MailTestApp } from '../../../test/helpers/app.js';
import {
  addMember,
  assignProject,
  createProject,
  createTeam,
  registerUser,
  uniqueEmail,
  type Team,
  type TestUser,
} from '../../../test/helpers/factories.js';
import {
  call,
  UNAUTHORIZED,
  TIMESTAMP,
  badRequestAt,
  ALL_ROLES,
  notAMember,
} from '../../../test/helpers/http.js';
import { linkIn, type TestSmtpServer } from '../../../test/helpers/smtp.js';
import { newId } from '../../lib/ids.js';
import { recordFeedEvent, type FeedEventType } from './feed.service.js';
import { feedEvents } from './feed.tables.js';

let t: MailTestApp;
let team: Team;
let smtp: TestSmtpServer;

const feedUrl = (orgId: string) => `/orgs/${orgId}/activity-feed`;

beforeAll(async () => {
  t = await buildTestAppWithMail();
  smtp = t.smtp;
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

interface Seed {
  orgId: string;
  summary: string;
  occurredAt: Date;
  projectId?: string | null;
  actorId?: string | null;
  id?: string;
  type?: FeedEventType;
}

/** An event at a chosen moment: recordFeedEvent stamps the current time, which ordering tests cannot use. */
async function seed(event: Seed): Promise<string> {
  const id = event.id ?? newId();
  await t.database.db.insert(feedEvents).values({
    id,
    orgId: event.orgId,
    type: event.type ?? 'participant.registered',
    occurredAt: event.occurredAt,
    actorId: event.actorId ?? null,
    projectId: event.projectId ?? null,
    subjectType: 'participant',
    subjectId: newId(),
    subjectLabel: event.summary,
    summary: event.summary,
  });
  return id;
}

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
const summaries = (body: { summary: string }[]) => body.map((e) => e.summary);

describe('GET /orgs/:orgId/activity-feed', () => {
  it('shows a recorded event with its actor, project and subject', async () => {
    const own = await createTeam(t.app, t.database.db);
    const project = await createProject(t.database.db, own.org.id);
    const subjectId = newId();
    await recordFeedEvent(t.database.db, {
      orgId: own.org.id,
      type: 'indicator_report.submitted',
      actorId: own.officer.id,
      projectId: project.id,
      subject: { type: 'indicator_report', id: subjectId, label: 'Wells built, Q1' },
      summary: 'Omar Officer submitted Wells built, Q1',
    });
    const res = await call(t.app, 'GET', feedUrl(own.org.id), { as: own.viewer });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        id: expect.any(String),
        type: 'indicator_report.submitted',
        occurredAt: expect.stringMatching(TIMESTAMP),
        actor: { id: own.officer.id, name: 'Omar Officer' },
        projectId: project.id,
        subject: { type: 'indicator_report', id: subjectId, label: 'Wells built, Q1' },
        summary: 'Omar Officer submitted Wells built, Q1',
      },
    ]);
  });

  it('gives a null actor for a system event', async () => {
    const own = await createTeam(t.app, t.database.db);
    await recordFeedEvent(t.database.db, {
      orgId: own.org.id,
      type: 'reporting_period.locked',
      actorId: null,
      subject: { type: 'reporting_period', id: newId(), label: 'Q1 2026' },
      summary: 'Q1 2026 was locked',
    });
    const res = await call(t.app, 'GET', feedUrl(own.org.id), { as: own.admin });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).toMatchObject({ type: 'reporting_period.locked', actor: null, projectId: null });
  });

  it('records member.invited when an admin invites, and member.joined when the invitation is accepted', async () => {
    const own = await createTeam(t.app, t.database.db);
    const email = uniqueEmail('invitee');
    const invited = await call(t.app, 'POST', `/orgs/${own.org.id}/members`, {
      as: own.admin,
      body: { email, role: 'reporter' },
    });
    expect(invited.status).toBe(201);

    const afterInvite = await call(t.app, 'GET', feedUrl(own.org.id), { as: own.reporter });
    expect(afterInvite.body).toEqual([
      {
        id: expect.any(String),
        type: 'member.invited',
        occurredAt: expect.stringMatching(TIMESTAMP),
        actor: { id: own.admin.id, name: 'Ada Admin' },
        projectId: null,
        subject: { type: 'invitation', id: invited.body.id, label: email },
        summary: `Ada Admin invited ${email} as reporter`,
      },
    ]);

    const invitee = await registerUser(t.app, { email, firstName: 'Ines', lastName: 'Invitee' });
    const link = linkIn(await smtp.waitFor(email), 'http://app.test/invitations/');
    const token = link.slice('http://app.test/invitations/'.length);
    const accepted = await call(t.app, 'POST', `/invitations/${token}/accept`, { as: invitee });
    expect(accepted.status).toBe(200);

    const afterJoin = await call(t.app, 'GET', feedUrl(own.org.id), { as: own.viewer });
    expect(afterJoin.status).toBe(200);
    expect(afterJoin.body.map((e: { type: string }) => e.type)).toEqual(['member.joined', 'member.invited']);
    expect(afterJoin.body[0]).toEqual({
      id: expect.any(String),
      type: 'member.joined',
      occurredAt: expect.stringMatching(TIMESTAMP),
      actor: { id: invitee.id, name: 'Ines Invitee' },
      projectId: null,
      subject: { type: 'member', id: invitee.id, label: 'Ines Invitee' },
      summary: 'Ines Invitee joined as reporter',
    });
  });

  it('lists newest first, breaking ties by id descending', async () => {
    const own = await createTeam(t.app, t.database.db);
    const [low, high] = [newId(), newId()].sort();
    await seed({ orgId: own.org.id, summary: 'oldest', occurredAt: at(1) });
    await seed({ orgId: own.org.id, summary: 'newest', occurredAt: at(9) });
    await seed({ orgId: own.org.id, summary: 'tie, low id', occurredAt: at(5), id: low });
    await seed({ orgId: own.org.id, summary: 'tie, high id', occurredAt: at(5), id: high });
    const res = await call(t.app, 'GET', feedUrl(own.org.id), { as: own.admin });
    expect(res.status).toBe(200);
    expect(summaries(res.body)).toEqual(['newest', 'tie, high id', 'tie, low id', 'oldest']);
    expect(res.body[0].occurredAt).toBe('2026-01-01T00:09:00.000Z');
  });

  it('returns at most the 50 newest as a plain array without paging parameters', async () => {
    const own = await createTeam(t.app, t.database.db);
    for (let i = 0; i < 55; i++) await seed({ orgId: own.org.id, summary: `event ${i}`, occurredAt: at(i) });
    const res = await call(t.app, 'GET', feedUrl(own.org.id), { as: own.viewer });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(summaries(res.body)).toEqual(Array.from({ length: 50 }, (_, k) => `event ${54 - k}`));
  });

  it('pages with the envelope when page or limit is given', async () => {
    const own = await createTeam(t.app, t.database.db);
    for (let i = 0; i < 55; i++) await seed({ orgId: own.org.id, summary: `event ${i}`, occurredAt: at(i) });

    const second = await call(t.app, 'GET', `${feedUrl(own.org.id)}?page=2&limit=10`, { as: own.officer });
    expect(second.status).toBe(200);
    expect(second.body.meta).toEqual({ total: 55, page: 2, limit: 10, totalPages: 6 });
    expect(summaries(second.body.data)).toEqual(Array.from({ length: 10 }, (_, k) => `event ${44 - k}`));

    const last = await call(t.app, 'GET', `${feedUrl(own.org.id)}?page=6&limit=10`, { as: own.officer });
    expect(last.body.meta).toEqual({ total: 55, page: 6, limit: 10, totalPages: 6 });
    expect(summaries(last.body.data)).toEqual(['event 4', 'event 3', 'event 2', 'event 1', 'event 0']);

    const beyond = await call(t.app, 'GET', `${feedUrl(own.org.id)}?page=7&limit=10`, { as: own.officer });
    expect(beyond.body).toEqual({ data: [], meta: { total: 55, page: 7, limit: 10, totalPages: 6 } });

    const defaults = await call(t.app, 'GET', `${feedUrl(own.org.id)}?page=1`, { as: own.officer });
    expect(defaults.body.meta).toEqual({ total: 55, page: 1, limit: 20, totalPages: 3 });
    expect(defaults.body.data).toHaveLength(20);
    expect(defaults.body.data[0].summary).toBe('event 54');

    const wide = await call(t.app, 'GET', `${feedUrl(own.org.id)}?limit=100`, { as: own.officer });
    expect(wide.body.meta).toEqual({ total: 55, page: 1, limit: 100, totalPages: 1 });
    expect(wide.body.data).toHaveLength(55);
  });

  it('rejects out-of-range paging parameters with 400', async () => {
    for (const [query, path, rule, message] of [
      ['limit=0', '/limit', 'minimum', 'limit must not be less than 1'],
      ['limit=101', '/limit', 'maximum', 'limit must not be greater than 100'],
      ['page=0', '/page', 'minimum', 'page must not be less than 1'],
    ] as const) {
      const res = await call(t.app, 'GET', `${feedUrl(team.org.id)}?${query}`, { as: team.admin });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(badRequestAt(['query', path, rule, message]));
    }
  });

  it('shows a reporter org-wide events and those of assigned projects; every other role sees all', async () => {
    const own = await createTeam(t.app, t.database.db);
    const db = t.database.db;
    const assigned = await createProject(db, own.org.id, 'Assigned');
    const unassigned = await createProject(db, own.org.id, 'Unassigned');
    await assignProject(db, own.org.id, assigned.id, own.reporter.id);
    await assignProject(db, own.org.id, unassigned.id, own.officer.id);
    await seed({ orgId: own.org.id, summary: 'org-wide', occurredAt: at(1) });
    await seed({ orgId: own.org.id, summary: 'assigned', occurredAt: at(2), projectId: assigned.id });
    await seed({ orgId: own.org.id, summary: 'unassigned', occurredAt: at(3), projectId: unassigned.id });

    const mine = await call(t.app, 'GET', feedUrl(own.org.id), { as: own.reporter });
    expect(mine.status).toBe(200);
    expect(summaries(mine.body)).toEqual(['assigned', 'org-wide']);
    const paged = await call(t.app, 'GET', `${feedUrl(own.org.id)}?limit=10`, { as: own.reporter });
    expect(summaries(paged.body.data)).toEqual(['assigned', 'org-wide']);
    expect(paged.body.meta).toEqual({ total: 2, page: 1, limit: 10, totalPages: 1 });

    for (const user of [own.viewer, own.officer, own.admin]) {
      const res = await call(t.app, 'GET', feedUrl(own.org.id), { as: user });
      expect(res.status).toBe(200);
      expect(summaries(res.body)).toEqual(['unassigned', 'assigned', 'org-wide']);
    }
  });

  it("never shows another organization's events, even when the reporter is assigned there", async () => {
    const own = await createTeam(t.app, t.database.db);
    const db = t.database.db;
    const foreign = await createProject(db, own.outsiderOrg.id);
    await addMember(db, own.outsiderOrg.id, own.reporter.id, 'reporter');
    await assignProject(db, own.outsiderOrg.id, foreign.id, own.reporter.id);
    await seed({ orgId: own.org.id, summary: 'ours', occurredAt: at(1) });
    await seed({ orgId: own.outsiderOrg.id, summary: 'theirs, org-wide', occurredAt: at(2) });
    await seed({
      orgId: own.outsiderOrg.id,
      summary: 'theirs, project',
      occurredAt: at(3),
      projectId: foreign.id,
    });

    for (const user of [own.admin, own.reporter]) {
      const res = await call(t.app, 'GET', feedUrl(own.org.id), { as: user });
      expect(summaries(res.body)).toEqual(['ours']);
    }
    const paged = await call(t.app, 'GET', `${feedUrl(own.org.id)}?page=1`, { as: own.admin });
    expect(paged.body.meta.total).toBe(1);
    const theirs = await call(t.app, 'GET', feedUrl(own.outsiderOrg.id), { as: own.outsider });
    expect(summaries(theirs.body)).toEqual(['theirs, project', 'theirs, org-wide']);
  });

  it('refuses a non-member with 403, no session with 401 and a non-UUID org id with 400', async () => {
    const outsider = await call(t.app, 'GET', feedUrl(team.org.id), { as: team.outsider });
    expect(outsider.status).toBe(403);
    expect(outsider.body).toEqual(notAMember(ALL_ROLES));
    const anonymous = await call(t.app, 'GET', feedUrl(team.org.id));
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(UNAUTHORIZED);
    const bad = await call(t.app, 'GET', feedUrl('not-a-uuid'), { as: team.admin });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(badRequestAt(['path', '/orgId', 'format', 'orgId must be a UUID']));
  });

  it('keeps showing an event after its actor leaves the organization', async () => {
    const own = await createTeam(t.app, t.database.db);
    const leaver: TestUser = own.officer;
    await recordFeedEvent(t.database.db, {
      orgId: own.org.id,
      type: 'reporting_period.locked',
      actorId: leaver.id,
      subject: { type: 'reporting_period', id: newId(), label: 'Q2' },
      summary: 'Omar Officer locked Q2',
    });
    const removed = await call(t.app, 'DELETE', `/orgs/${own.org.id}/members/${leaver.id}`, {
      as: own.admin,
    });
    expect(removed.status).toBe(204);
    const res = await call(t.app, 'GET', feedUrl(own.org.id), { as: own.admin });
    expect(res.body).toHaveLength(1);
    expect(res.body[0].actor).toEqual({ id: leaver.id, name: 'Omar Officer' });
  });
});

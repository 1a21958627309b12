import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createProject, createTeam, type Team, type TestUser } from '../../../test/helpers/factories.js';
import {
  auditEntriesOf,
  eraseUrl,
  PERSONAL_FIELDS,
  personalAnswers,
  publishedForm,
  SURVEY_FIELDS,
  submitUrl,
  type FormJson,
} from '../../../test/helpers/forms.js';
import { call } from '../../../test/helpers/http.js';
import { transaction } from '../../db/client.js';
import { newId } from '../../lib/ids.js';
import { eraseExpiredPersonalAnswers, RETENTION_JOB } from './answer-retention.js';
import { personalShape } from './form-fields.js';
import { formSubmissions } from './forms.tables.js';
import { eraseSubmittedBefore } from './submissions.repo.js';

let t: TestApp;
let team: Team;

beforeAll(async () => {
  // No worker: nothing but the test runs the retention.
  t = await buildTestApp({}, { worker: false });
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

const NOW = new Date('2026-06-30T12:00:00.000Z');
const DAY = 24 * 60 * 60 * 1000;
const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY);
const KEPT = { source: 'well', village: 'Kisumu East', consent: true };

async function form(
  retentionDays: number | null,
  fields: unknown[] = PERSONAL_FIELDS,
  orgId = team.org.id,
  as: TestUser = team.officer,
): Promise<FormJson> {
  const project = await createProject(t.database.db, orgId);
  return publishedForm(t.app, as, orgId, {
    projectId: project.id,
    fields,
    personalDataRetentionDays: retentionDays,
  });
}

/** A submission through the public link, then dated `submittedAt`. */
async function submitted(
  to: FormJson,
  submittedAt: Date,
  given: Record<string, unknown> = personalAnswers(),
) {
  const res = await call(t.app, 'POST', submitUrl(to.publicToken), { body: { answers: given } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id = res.body.id as string;
  await t.database.db.update(formSubmissions).set({ submittedAt }).where(eq(formSubmissions.id, id));
  return id;
}

async function stored(ids: string[]) {
  const rows = await t.database.db.select().from(formSubmissions).where(inArray(formSubmissions.id, ids));
  return Object.fromEntries(rows.map((row) => [row.id, row]));
}

describe('eraseExpiredPersonalAnswers', () => {
  it('erases the personal answers of submissions older than the form keeps them, in every organization', async () => {
    const monthly = await form(30);
    const old = await submitted(monthly, daysAgo(31));
    const older = await submitted(monthly, daysAgo(400));
    // Exactly 30 days old is not older than 30 days.
    const boundary = await submitted(monthly, daysAgo(30));
    const recent = await submitted(monthly, daysAgo(2));
    const keptForever = await form(null);
    const forever = await submitted(keptForever, daysAgo(4000));
    const nothingPersonal = await form(1, SURVEY_FIELDS);
    const plain = await submitted(nothingPersonal, daysAgo(10), { name: 'Achieng', source: 'well' });
    const theirs = await form(7, PERSONAL_FIELDS, team.outsiderOrg.id, team.outsider);
    const foreign = await submitted(theirs, daysAgo(8));

    expect(await eraseExpiredPersonalAnswers(t.database.db, NOW)).toBe(3);
    const rows = await stored([old, older, boundary, recent, forever, plain, foreign]);
    for (const id of [old, older, foreign]) {
      expect(rows[id]!.answers).toEqual(KEPT);
      expect(rows[id]!.personalErasedAt).toEqual(NOW);
    }
    for (const id of [boundary, recent, forever]) {
      expect(rows[id]!.answers).toEqual(personalAnswers());
      expect(rows[id]!.personalErasedAt).toBeNull();
    }
    expect([rows[plain]!.answers, rows[plain]!.personalErasedAt]).toEqual([
      { name: 'Achieng', source: 'well' },
      null,
    ]);

    const entry = {
      id: expect.any(Number),
      at: expect.any(Date),
      actorId: null,
      actorRole: null,
      tokenId: null,
      tokenName: null,
      ip: null,
      requestId: null,
      action: 'retention_erase',
      route: RETENTION_JOB,
      subjectKind: 'form_submission',
    };
    expect(await auditEntriesOf(t.database.db, monthly.id)).toEqual([
      {
        ...entry,
        orgId: team.org.id,
        subjectIds: expect.arrayContaining([old, older]),
        count: 2,
        details: { formId: monthly.id, retentionDays: 30 },
      },
    ]);
    expect(await auditEntriesOf(t.database.db, theirs.id)).toEqual([
      {
        ...entry,
        orgId: team.outsiderOrg.id,
        subjectIds: [foreign],
        count: 1,
        details: { formId: theirs.id, retentionDays: 7 },
      },
    ]);
    for (const id of [keptForever.id, nothingPersonal.id]) {
      expect(await auditEntriesOf(t.database.db, id)).toEqual([]);
    }

    // A second run, even a day later, finds nothing more that is due.
    expect(await eraseExpiredPersonalAnswers(t.database.db, NOW)).toBe(0);
    expect(await auditEntriesOf(t.database.db, monthly.id)).toHaveLength(1);
    expect(await auditEntriesOf(t.database.db, theirs.id)).toHaveLength(1);
    expect(await eraseExpiredPersonalAnswers(t.database.db, new Date(NOW.getTime() + DAY))).toBe(1);
    expect((await stored([boundary]))[boundary]!.answers).toEqual(KEPT);
  });

  it('leaves submissions erased by hand alone, but erases an answer marked personal since', async () => {
    const monthly = await form(30);
    const byHand = await submitted(monthly, daysAgo(60));
    const erase = await call(t.app, 'POST', eraseUrl(team.org.id, monthly.id, byHand), {
      as: team.admin,
      body: { reason: 'Asked by the respondent' },
    });
    expect(erase.status).toBe(200);
    const erasedAt = (await stored([byHand]))[byHand]!.personalErasedAt;
    expect(await eraseExpiredPersonalAnswers(t.database.db, NOW)).toBe(0);
    expect((await stored([byHand]))[byHand]!.personalErasedAt).toEqual(erasedAt);

    const marked = PERSONAL_FIELDS.map((field) =>
      field.key === 'village' ? { ...field, personal: true } : field,
    );
    const edit = await call(t.app, 'PATCH', `/orgs/${team.org.id}/forms/${monthly.id}`, {
      as: team.officer,
      body: { fields: marked },
    });
    expect(edit.status).toBe(200);
    expect(await eraseExpiredPersonalAnswers(t.database.db, NOW)).toBe(1);
    expect((await stored([byHand]))[byHand]!.answers).toEqual({ source: 'well', consent: true });
    expect((await auditEntriesOf(t.database.db, monthly.id)).map((entry) => entry.action)).toEqual([
      'erase',
      'retention_erase',
    ]);
    expect(await eraseExpiredPersonalAnswers(t.database.db, NOW)).toBe(0);
  });

  it('erases one batch at most, whatever plan the database picks', async () => {
    const yearly = await form(365);
    const rows = Array.from({ length: 5 }, (_, i) => ({
      id: newId(),
      orgId: team.org.id,
      formId: yearly.id,
      answers: personalAnswers({ name: `Respondent ${i}` }),
      counted: false,
      submittedAt: daysAgo(400),
    }));
    await t.database.db.insert(formSubmissions).values(rows);
    const keys = personalShape(yearly.fields as unknown as Parameters<typeof personalShape>[0]);
    const erased = await transaction(t.database.db, async (tx) => {
      // The plan that rescans a subquery of the UPDATE for each row it visits.
      const settings = ['material', 'sort', 'hashjoin', 'mergejoin', 'hashagg', 'indexscan', 'bitmapscan'];
      for (const setting of settings.map((name) => `enable_${name}`)) {
        await tx.execute(sql.raw(`SET LOCAL ${setting} = off`));
      }
      return eraseSubmittedBefore(tx, team.org.id, yearly.id, keys, daysAgo(365), NOW, 2);
    });
    expect(erased).toHaveLength(2);
    await t.database.db.delete(formSubmissions).where(eq(formSubmissions.formId, yearly.id));
  });

  it('works in batches of 500, one audit entry each, oldest first', async () => {
    const yearly = await form(365);
    const base = daysAgo(400).getTime();
    const rows = Array.from({ length: 1203 }, (_, i) => ({
      id: newId(),
      orgId: team.org.id,
      formId: yearly.id,
      answers: personalAnswers({ name: `Respondent ${i}` }),
      counted: false,
      // Pairs share a timestamp: the batches are cut by (submitted_at, id).
      submittedAt: new Date(base + Math.floor(i / 2) * 1000),
    }));
    for (let i = 0; i < rows.length; i += 500) {
      await t.database.db.insert(formSubmissions).values(rows.slice(i, i + 500));
    }
    expect(await eraseExpiredPersonalAnswers(t.database.db, NOW)).toBe(1203);
    const entries = await auditEntriesOf(t.database.db, yearly.id);
    expect(entries.map((entry) => entry.count)).toEqual([500, 500, 203]);
    const ordered = [...rows]
      .sort((a, b) => a.submittedAt.getTime() - b.submittedAt.getTime() || a.id.localeCompare(b.id))
      .map((row) => row.id);
    expect(entries.flatMap((entry) => [...entry.subjectIds].sort())).toEqual([
      ...ordered.slice(0, 500).sort(),
      ...ordered.slice(500, 1000).sort(),
      ...ordered.slice(1000).sort(),
    ]);
    const left = await t.database.db
      .select({ answers: formSubmissions.answers })
      .from(formSubmissions)
      .where(eq(formSubmissions.formId, yearly.id));
    expect(left).toEqual(rows.map(() => ({ answers: KEPT })));
    expect(await eraseExpiredPersonalAnswers(t.database.db, NOW)).toBe(0);
  });
});

import { randomUUID } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  person,
  postActivity,
  register,
  registrationsUrl,
  type RegistrationJson,
} from '../../../test/helpers/activities.js';
import { buildCountingTestApp } from '../../../test/helpers/app.js';
import {
  assignProject,
  createProject,
  createTeam,
  type Team,
  type TestUser,
} from '../../../test/helpers/factories.js';
import { multipart, PDF, PNG } from '../../../test/helpers/files.js';
import {
  badRequest,
  call,
  CONTRIBUTORS,
  expectError,
  MISSING_ID,
  notAMember,
  notAssigned,
  notFoundBody,
  roleRefused,
  UNAUTHORIZED,
} from '../../../test/helpers/http.js';
import { loadWorkbook, XLSX, xlsx, type Cell } from '../../../test/helpers/imports.js';
import { rowsOf } from '../../db/client.js';
import { auditLog } from '../privacy/privacy.tables.js';
import { participants } from './activities.tables.js';
import { nationalIdIndex } from './participant-sealing.js';
import { NATIONAL_ID_ELSEWHERE } from './registration-plan.js';

let t: Awaited<ReturnType<typeof buildCountingTestApp>>;
let team: Team;
/** Assigned to the reporter. */
let assigned: { id: string };
let unassigned: { id: string };

beforeAll(async () => {
  t = await buildCountingTestApp();
  team = await createTeam(t.app, t.database.db);
  assigned = await createProject(t.database.db, team.org.id, 'Assigned');
  unassigned = await createProject(t.database.db, team.org.id, 'Unassigned');
  await assignProject(t.database.db, team.org.id, assigned.id, team.reporter.id);
});
afterAll(() => t.close());

/** A CSV as a spreadsheet exports it (cells quoted when they need it). */
const csv = (rows: Cell[][], delimiter = ',') =>
  Buffer.from(
    rows
      .map((row) =>
        row
          .map((value) => {
            const text = value === null ? '' : String(value);
            return /[",;\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
          })
          .join(delimiter),
      )
      .join('\r\n') + '\r\n',
  );

const importUrl = (activityId: string, query = '', orgId = team.org.id) =>
  `/orgs/${orgId}/activities/${activityId}/participants/import${query}`;

interface ReportJson {
  dryRun: boolean;
  applied: boolean;
  summary: { created: number; updated: number; unchanged: number; refused: number };
  rows: { sheet: string; row: number; cell: string; action: string; messages: string[] }[];
  meta: { totalRows: number; page: number; limit: number; totalPages: number };
}

/** Uploads `bytes` as the part `file`, under a request id of its own (to find its audit entry). */
async function upload(
  activityId: string,
  bytes: Buffer,
  {
    as = team.officer,
    query = '',
    fileName = 'participants.xlsx',
    orgId = team.org.id,
    headers = {},
  }: {
    as?: TestUser | null;
    query?: string;
    fileName?: string;
    orgId?: string;
    headers?: Record<string, string>;
  } = {},
) {
  const requestId = `import-${randomUUID()}`;
  const body = multipart([{ name: 'file', value: bytes, fileName }]);
  const res = await call(t.app, 'POST', importUrl(activityId, query, orgId), {
    as,
    body: body.body,
    headers: { ...body.headers, ...headers, 'x-request-id': requestId },
  });
  return { res, report: res.body as ReportJson, requestId };
}

async function newActivity(projectId = assigned.id) {
  return postActivity(t.app, team.officer, team.org.id, projectId);
}

const registrations = async (activityId: string, as: TestUser = team.officer) => {
  const res = await call(t.app, 'GET', `${registrationsUrl(team.org.id, activityId)}?limit=100`, { as });
  expect(res.status).toBe(200);
  return (res.body as { data: RegistrationJson[] }).data;
};

/** How many participants and registrations the organization has. */
async function stored() {
  const org = team.org.id;
  const result = await t.database.db.execute(sql`SELECT
    (SELECT count(*)::int FROM participants WHERE org_id = ${org}) AS people,
    (SELECT count(*)::int FROM activity_participants WHERE org_id = ${org}) AS registrations`);
  return rowsOf<{ people: number; registrations: number }>(result)[0]!;
}

const auditEntries = (requestId: string) =>
  t.database.db.select().from(auditLog).where(eq(auditLog.requestId, requestId)).orderBy(asc(auditLog.id));

const unique = () => randomUUID().slice(0, 8);

const HEADER = [
  'First Name',
  'last_name',
  'SEX',
  'date-of-birth',
  'phone',
  'nationalId',
  'Village',
  'district',
];

describe('POST /orgs/:orgId/activities/:activityId/participants/import', () => {
  it('registers the people of an .xlsx (its sheet participants), sealed, its status column skipped', async () => {
    const activity = await newActivity();
    const id = `KE-${unique()}`;
    const file = await xlsx({
      Instructions: [['Fill in the participants sheet']],
      participants: [
        [...HEADER, 'Attended', 'role', 'Status'],
        [
          'Zawadi',
          'Wanjiru',
          'Female',
          new Date(Date.UTC(1990, 4, 17)),
          '+254 700 000 001',
          id,
          'Kibera',
          'Nairobi',
          'yes',
          'facilitator',
          // A report written into the workbook before: read past.
          'refused: data!D2: dateOfBirth must be a valid date (YYYY-MM-DD)',
        ],
        [],
        ['Amani', 'O\'Tieno "Jr" \\ {1},2', 'male', null, null, null, 'NULL', 'Kisumu', null, null],
      ],
    });
    const { res, report } = await upload(activity.id, file);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(report).toEqual({
      dryRun: false,
      applied: true,
      summary: { created: 2, updated: 0, unchanged: 0, refused: 0 },
      rows: [
        { sheet: 'participants', row: 2, cell: 'participants!2:2', action: 'new', messages: [] },
        { sheet: 'participants', row: 4, cell: 'participants!4:4', action: 'new', messages: [] },
      ],
      meta: { totalRows: 2, page: 1, limit: 1000, totalPages: 1 },
    });
    const [amani, zawadi] = await registrations(activity.id);
    expect(zawadi).toMatchObject({
      role: 'facilitator',
      attended: true,
      participant: {
        firstName: 'Zawadi',
        lastName: 'Wanjiru',
        sex: 'female',
        dateOfBirth: '1990-05-17',
        phone: '+254 700 000 001',
        nationalId: id,
        village: 'Kibera',
        district: 'Nairobi',
      },
    });
    expect(amani).toMatchObject({
      role: 'attendee',
      attended: false,
      participant: {
        firstName: 'Amani',
        // Stored as written: quotes, a backslash, braces, a comma, and a village named NULL.
        lastName: 'O\'Tieno "Jr" \\ {1},2',
        village: 'NULL',
        dateOfBirth: null,
        phone: null,
        nationalId: null,
      },
    });
    // Sealed at rest as one registration seals them, the national id found by its blind index.
    const [row] = await t.database.db
      .select()
      .from(participants)
      .where(eq(participants.id, zawadi!.participantId));
    expect(row!.phone).toMatch(/^v1\./);
    expect(row!.nationalId).toMatch(/^v1\./);
    expect(row!.nationalIdIndex).toBe(nationalIdIndex(t.config.piiKeyring.current, team.org.id, id));
  });

  it('reads a CSV: semicolons, snake_case headers, Windows-1252 text, any column order', async () => {
    const activity = await newActivity();
    const text =
      'district;village;sex;last_name;first_name;attended\r\n' +
      'Nairobi;Kibera;female;Muthoni;Zoé;1\r\n' +
      'Kisumu;Nyalenda;other;Achieng;Mercy;\r\n';
    const { res, report } = await upload(activity.id, Buffer.from(text, 'latin1'), {
      fileName: 'people.csv',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(report.summary).toEqual({ created: 2, updated: 0, unchanged: 0, refused: 0 });
    expect(report.rows.map((r) => [r.sheet, r.row, r.action])).toEqual([
      ['data', 2, 'new'],
      ['data', 3, 'new'],
    ]);
    const people = await registrations(activity.id);
    expect(people.map((r) => [r.participant.firstName, r.attended])).toEqual([
      ['Mercy', false],
      ['Zoé', true],
    ]);
  });

  it('changes nothing on a dry run (dryRun=true or apply=false), answering what it would do', async () => {
    const activity = await newActivity();
    const id = `KE-${unique()}`;
    const file = csv([
      HEADER,
      ['Neema', 'Ali', 'female', null, null, id, 'Kibera', 'Nairobi'],
      ['Baraka', 'Ali', 'male', null, null, id, 'Kibera', 'Nairobi'],
    ]);
    const before = await stored();
    for (const query of ['?dryRun=true', '?apply=false']) {
      const { res, report } = await upload(activity.id, file, { query });
      expect(res.status).toBe(200);
      expect(report).toMatchObject({
        dryRun: true,
        applied: false,
        summary: { created: 1, updated: 0, unchanged: 1, refused: 0 },
      });
      expect(report.rows.map((r) => r.action)).toEqual(['new', 'matched existing']);
    }
    expect(await stored()).toEqual(before);
    // Applied, the same file does what the dry run said.
    const { report } = await upload(activity.id, file, { query: '?apply=true&dryRun=false' });
    expect(report).toMatchObject({ dryRun: false, applied: true, summary: { created: 1, unchanged: 1 } });
    expect(await stored()).toEqual({ people: before.people + 1, registrations: before.registrations + 1 });
    const contradiction = await upload(activity.id, file, { query: '?dryRun=true&apply=true' });
    expectError(contradiction.res, badRequest('dryRun and apply say the opposite: give one of them'));
    const bothFalse = await upload(activity.id, file, { query: '?dryRun=false&apply=false' });
    expectError(bothFalse.res, badRequest('dryRun and apply say the opposite: give one of them'));
  });

  it('matches people by nationalId: known in the organization, or an earlier row of the file', async () => {
    const earlier = await newActivity();
    const knownId = `KE-${unique()}`;
    const [known] = await register(t.app, team.officer, team.org.id, earlier.id, [
      person({ firstName: 'Stored', nationalId: knownId }),
    ]);
    const activity = await newActivity();
    const [already] = await register(t.app, team.officer, team.org.id, activity.id, [person()]);
    const twiceId = `KE-${unique()}`;
    const file = csv([
      [...HEADER, 'participantId', 'attended'],
      ['Other', 'Name', 'male', null, null, knownId, 'Kibera', 'Nairobi', null, 'yes'],
      ['Twice', 'First', 'female', null, null, twiceId, 'Kibera', 'Nairobi', null, 'yes'],
      ['Twice', 'Second', 'female', null, null, twiceId, 'Kibera', 'Nairobi', null, 'no'],
      [null, null, null, null, null, null, null, null, already!.participantId, 'yes'],
      [null, null, null, null, null, null, null, null, known!.participantId, null],
    ]);
    const { res, report } = await upload(activity.id, file);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(report.summary).toEqual({ created: 1, updated: 0, unchanged: 4, refused: 0 });
    expect(report.rows).toEqual([
      {
        sheet: 'data',
        row: 2,
        cell: 'data!F2',
        action: 'matched existing',
        messages: [
          "data!F2: a participant of the organization has this nationalId: this row registers that person (their stored fields are kept, not this row's)",
        ],
      },
      { sheet: 'data', row: 3, cell: 'data!3:3', action: 'new', messages: [] },
      {
        sheet: 'data',
        row: 4,
        cell: 'data!F4',
        action: 'matched existing',
        messages: ['data!F4: the same nationalId as row 3: one person, registered once, as row 3 says'],
      },
      {
        sheet: 'data',
        row: 5,
        cell: 'data!5:5',
        action: 'matched existing',
        messages: ['data!5:5: already registered in this activity: role and attendance unchanged'],
      },
      {
        sheet: 'data',
        row: 6,
        cell: 'data!I6',
        action: 'matched existing',
        messages: ['data!I6: the same participantId as row 2: one person, registered once, as row 2 says'],
      },
    ]);
    const people = await registrations(activity.id);
    expect(people).toHaveLength(3);
    const byId = new Map(people.map((r) => [r.participantId, r]));
    // The stored person keeps their fields; the first row for a person decides attendance.
    expect(byId.get(known!.participantId)).toMatchObject({
      attended: true,
      participant: { firstName: 'Stored' },
    });
    expect(byId.get(already!.participantId)).toMatchObject({ attended: false });
    expect(people.find((r) => r.participant.nationalId === twiceId)).toMatchObject({
      attended: true,
      participant: { lastName: 'First' },
    });
  });

  it('refuses rows with reasons naming the cell, and applies nothing unless atomic=false', async () => {
    const activity = await newActivity();
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const rows: Cell[][] = [
      HEADER.concat('attended', 'participantId'),
      ['Good', 'Row', 'female', '1990-01-02', null, null, 'Kibera', 'Nairobi', null, null],
      ['Bad', 'Sex', 'woman', null, null, null, 'Kibera', 'Nairobi', null, null],
      ['Bad', 'Date', 'male', '17/05/1990', null, null, 'Kibera', 'Nairobi', null, null],
      ['Future', 'Birth', 'male', tomorrow, null, null, 'Kibera', 'Nairobi', null, null],
      [null, 'Nofirst', 'male', null, null, null, 'Kibera', 'Nairobi', 'maybe', null],
      ['Lost', 'Digits', 'male', null, null, '1.23457E+11', 'Kibera', 'Nairobi', null, null],
      ['Both', 'Given', 'male', null, null, null, null, null, null, MISSING_ID],
      [null, null, null, null, null, null, null, null, null, MISSING_ID],
      [null, null, null, null, null, null, null, null, null, 'not-a-uuid'],
    ];
    const before = await stored();
    const { res, report } = await upload(activity.id, await xlsx({ Sheet1: rows }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(report).toMatchObject({
      dryRun: true,
      applied: false,
      summary: { created: 1, updated: 0, unchanged: 0, refused: 8 },
    });
    expect(report.rows.map((r) => [r.row, r.action, r.cell, r.messages])).toEqual([
      [2, 'new', 'Sheet1!2:2', []],
      [3, 'refused', 'Sheet1!C3', ['Sheet1!C3: sex must be one of female, male, other']],
      [4, 'refused', 'Sheet1!D4', ['Sheet1!D4: dateOfBirth must be a valid date (YYYY-MM-DD)']],
      [5, 'refused', 'Sheet1!D5', ['Sheet1!D5: dateOfBirth must not be in the future']],
      [
        6,
        'refused',
        'Sheet1!I6',
        ['Sheet1!I6: attended must be yes or no (true or false, 1 or 0)', 'Sheet1!A6: firstName is required'],
      ],
      [
        7,
        'refused',
        'Sheet1!F7',
        [
          'Sheet1!F7: nationalId was read as a number in scientific notation, its digits lost: format the column as text',
        ],
      ],
      [
        8,
        'refused',
        'Sheet1!J8',
        [
          "Sheet1!J8: participantId and firstName, lastName, sex are both given: give an existing participant's id or a new participant's fields, not both",
        ],
      ],
      [9, 'refused', 'Sheet1!J9', ['Sheet1!J9: participantId: Participant not found']],
      [10, 'refused', 'Sheet1!J10', ['Sheet1!J10: participantId must be a UUID']],
    ]);
    expect(await stored()).toEqual(before);

    const partial = await upload(activity.id, await xlsx({ Sheet1: rows }), { query: '?atomic=false' });
    expect(partial.report).toMatchObject({
      dryRun: false,
      applied: true,
      summary: { created: 1, unchanged: 0, refused: 8 },
    });
    expect((await registrations(activity.id)).map((r) => r.participant.lastName)).toEqual(['Row']);
  });

  it('format=xlsx answers the file sent with a status column: an .xlsx as it was, a CSV as its sheet', async () => {
    const activity = await newActivity();
    const rows: Cell[][] = [
      HEADER,
      ['Good', 'Row', 'female', null, null, null, 'Kibera', 'Nairobi'],
      ['Bad', 'Sex', 'woman', null, null, null, 'Kibera', 'Nairobi'],
    ];
    const before = await stored();
    const { res } = await upload(activity.id, await xlsx({ guide: [['read me']], participants: rows }), {
      query: '?format=xlsx',
      fileName: 'Kibera day 1.xlsx',
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(XLSX);
    expect(res.headers['content-disposition']).toContain('Kibera day 1-checked.xlsx');
    // One refused row and nothing is applied (atomic), as the JSON report would say.
    expect(res.headers['import-applied']).toBe('false');
    expect(await stored()).toEqual(before);
    const workbook = await loadWorkbook(res.response.rawPayload);
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(['guide', 'participants']);
    const sheet = workbook.getWorksheet('participants')!;
    expect((sheet.getColumn(9).values as unknown[]).slice(1)).toEqual([
      'status',
      'new',
      'refused: participants!C3: sex must be one of female, male, other',
    ]);
    expect(sheet.getCell('C3').note).toBe('participants!C3: sex must be one of female, male, other');
    expect(sheet.getCell('I3').fill).toMatchObject({ pattern: 'solid' });
    expect(sheet.getCell('G2').value).toBe('Kibera');

    // A CSV (Windows-1252 here) comes back as one sheet `data`, its header as written, applied.
    const text = 'First Name;last_name;SEX;Village;district\r\nZoé;Muthoni;female;Kibera;Nairobi\r\n';
    const fromCsv = await upload(activity.id, Buffer.from(text, 'latin1'), {
      query: '?format=xlsx',
      fileName: 'people.csv',
    });
    expect([fromCsv.res.status, fromCsv.res.headers['import-applied']]).toEqual([200, 'true']);
    expect(fromCsv.res.headers['content-disposition']).toContain('people-checked.xlsx');
    const data = (await loadWorkbook(fromCsv.res.response.rawPayload)).getWorksheet('data')!;
    expect(data.getRow(1).values).toEqual([
      undefined,
      'First Name',
      'last_name',
      'SEX',
      'Village',
      'district',
      'status',
    ]);
    expect(data.getRow(2).values).toEqual([
      undefined,
      'Zoé',
      'Muthoni',
      'female',
      'Kibera',
      'Nairobi',
      'new',
    ]);
    expect((await registrations(activity.id)).map((r) => r.participant.firstName)).toEqual(['Zoé']);
  });

  it('never quotes a cell in its messages, and writes one audit entry with counts only', async () => {
    const earlier = await newActivity();
    const knownId = `KE-SECRET-${unique()}`;
    const [known] = await register(t.app, team.officer, team.org.id, earlier.id, [
      person({ nationalId: knownId }),
    ]);
    const activity = await newActivity();
    const personal = ['Wairimu', 'Kamau', '+254 711 222 333', `KE-PRIVATE-${unique()}`, 'Githurai'] as const;
    const file = csv([
      HEADER,
      [personal[0], personal[1], 'female', null, personal[2], personal[3], personal[4], 'Nairobi'],
      ['Njeri', 'Kamau', 'female', null, '+254 799', knownId, 'Githurai', 'Nairobi'],
      [
        'Bad\u0007Name',
        'Kamau',
        'nonbinary',
        '1990-13-45',
        '1.2E+9',
        'x'.repeat(65),
        'y'.repeat(201),
        'Nairobi',
      ],
    ]);
    const { res, report, requestId } = await upload(activity.id, file);
    expect(res.status).toBe(200);
    expect(report.summary).toEqual({ created: 1, updated: 0, unchanged: 1, refused: 1 });
    const said = JSON.stringify(report);
    for (const value of [
      ...personal,
      knownId,
      '+254 799',
      'Bad',
      'nonbinary',
      '1990-13-45',
      'xxxx',
      'yyyy',
    ]) {
      expect(said).not.toContain(value);
    }
    expect([...report.rows[2]!.messages].sort()).toEqual(
      [
        'data!C4: sex must be one of female, male, other',
        'data!A4: firstName must not contain control characters (line breaks, tabs or other invisible characters)',
        'data!D4: dateOfBirth must be a valid date (YYYY-MM-DD)',
        'data!F4: nationalId must be at most 64 characters',
        'data!G4: village must be at most 200 characters',
        'data!E4: phone was read as a number in scientific notation, its digits lost: format the column as text',
      ].sort(),
    );

    const entries = await auditEntries(requestId);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      orgId: team.org.id,
      actorId: team.officer.id,
      actorRole: 'me_officer',
      action: 'import',
      route: 'POST /orgs/:orgId/activities/:activityId/participants/import',
      subjectKind: 'participant',
      subjectIds: [known!.participantId],
      count: 1,
      details: {
        format: 'csv',
        dryRun: false,
        atomic: true,
        applied: false,
        rows: 3,
        new: 1,
        matchedExisting: 1,
        refused: 1,
      },
    });
    expect(JSON.stringify(entries)).not.toContain(knownId);

    // Applied: the entry names every person registered, the new ones included.
    const fixed = csv([
      HEADER,
      [personal[0], personal[1], 'female', null, null, null, 'Githurai', 'Nairobi'],
    ]);
    const applied = await upload(activity.id, fixed);
    const [entry] = await auditEntries(applied.requestId);
    const [registration] = await registrations(activity.id);
    expect(entry).toMatchObject({ subjectIds: [registration!.participantId], count: 1 });
    expect(entry!.details).toMatchObject({ applied: true, new: 1 });
  });

  it('finds nobody through a national id of another organization', async () => {
    const nationalId = `KE-${unique()}`;
    const theirs = await createProject(t.database.db, team.outsiderOrg.id);
    const theirActivity = await postActivity(t.app, team.outsider, team.outsiderOrg.id, theirs.id);
    await register(t.app, team.outsider, team.outsiderOrg.id, theirActivity.id, [person({ nationalId })]);
    const activity = await newActivity();
    const { report } = await upload(
      activity.id,
      csv([HEADER, ['Ours', 'Person', 'male', null, null, nationalId, 'Kibera', 'Nairobi']]),
      { query: '?dryRun=true' },
    );
    expect(report.rows).toEqual([{ sheet: 'data', row: 2, cell: 'data!2:2', action: 'new', messages: [] }]);
  });

  it("refuses a reporter's row naming someone outside their projects, naming nobody", async () => {
    const elsewhere = await newActivity(unassigned.id);
    const nationalId = `KE-${unique()}`;
    await register(t.app, team.officer, team.org.id, elsewhere.id, [person({ nationalId })]);
    const [other] = await register(t.app, team.officer, team.org.id, elsewhere.id, [person()]);
    const activity = await newActivity(assigned.id);
    const { res, report } = await upload(
      activity.id,
      csv([
        [...HEADER, 'participant_id'],
        ['Someone', 'Else', 'male', null, null, nationalId, 'Kibera', 'Nairobi', null],
        [null, null, null, null, null, null, null, null, other!.participantId],
        ['Fine', 'Row', 'male', null, null, null, 'Kibera', 'Nairobi', null],
      ]),
      { as: team.reporter, query: '?atomic=false' },
    );
    expect(res.status).toBe(200);
    expect(report.rows.map((r) => [r.action, r.messages])).toEqual([
      ['refused', [`data!F2: ${NATIONAL_ID_ELSEWHERE}`]],
      ['refused', ['data!I3: participantId: Participant not found']],
      ['new', []],
    ]);
    const onUnassigned = await upload(
      elsewhere.id,
      csv([HEADER, ['A', 'B', 'male', null, null, null, 'K', 'N']]),
      {
        as: team.reporter,
      },
    );
    expectError(onUnassigned.res, notAssigned(CONTRIBUTORS));
  });

  it('answers 401, 403 (viewer, another organization) and 404 (another organization activity, none)', async () => {
    const activity = await newActivity();
    const file = csv([HEADER, ['A', 'B', 'male', null, null, null, 'K', 'N']]);
    const before = await stored();
    expectError((await upload(activity.id, file, { as: null })).res, { ...UNAUTHORIZED });
    expectError((await upload(activity.id, file, { as: team.viewer })).res, roleRefused(CONTRIBUTORS));
    expectError((await upload(activity.id, file, { as: team.outsider })).res, notAMember(CONTRIBUTORS));
    const theirs = await createProject(t.database.db, team.outsiderOrg.id);
    const theirActivity = await postActivity(t.app, team.outsider, team.outsiderOrg.id, theirs.id);
    expectError((await upload(theirActivity.id, file)).res, notFoundBody('Activity'));
    expectError((await upload(MISSING_ID, file)).res, notFoundBody('Activity'));
    expect(await stored()).toEqual(before);
  });

  it('refuses what is not a participants sheet: 415, 400 and 413', async () => {
    const activity = await newActivity();
    const refused = async (bytes: Buffer) => (await upload(activity.id, bytes)).res;
    const media = (message: string) => ({
      statusCode: 415,
      error: 'Unsupported Media Type',
      message,
      code: 'unsupported_media_type' as const,
    });
    for (const bytes of [PNG, PDF]) {
      expectError(await refused(bytes), media('file must be an .xlsx workbook or a .csv file'));
    }
    expectError(
      await refused(Buffer.alloc(0)),
      media('file must be an .xlsx workbook or a .csv file; the file is empty'),
    );
    const json = await call(t.app, 'POST', importUrl(activity.id), {
      as: team.officer,
      body: { participants: [] },
    });
    expect(json.status).toBe(415);

    expectError(
      await refused(csv([[...HEADER, 'Remarks', 'firstname']])),
      badRequest(
        'data!I1: not a column this import knows',
        'data!J1: the column firstname gives firstName, as column A does',
        'the columns are firstName, lastName, sex, dateOfBirth, phone, nationalId, village, district, participantId, role, attended (any case, with _ or spaces)',
      ),
    );
    // A file without its header row: the first person's cells are not quoted back.
    const headless = await refused(
      csv([['Zawadi', 'Wanjiru', 'female', '+254700000001', 'KE-555', 'Kibera']]),
    );
    expect(headless.status).toBe(400);
    expect(JSON.stringify(headless.body)).not.toMatch(/zawadi|wanjiru|254700000001|555|kibera/i);
    expect(headless.body.message).toContain('data!A1: not a column this import knows');
    expectError(
      await refused(
        csv([
          ['first name', 'sex'],
          ['A', 'male'],
        ]),
      ),
      badRequest(
        'data: the columns lastName, village, district are missing (a new participant needs firstName, lastName, sex, village and district; a column participantId names existing participants)',
      ),
    );
    expectError(
      await refused(csv([HEADER])),
      badRequest('data: no participant to import below the header row'),
    );
    expectError(
      await refused(Buffer.from('first_name,last_name\n"unclosed,quote\n')),
      badRequest('file: data line 2: not a CSV file that can be read'),
    );

    const tooMany = Buffer.from(
      `firstName,lastName,sex,village,district\n${'A,B,male,K,N\n'.repeat(10_001)}`,
    );
    expectError(await refused(tooMany), {
      statusCode: 413,
      error: 'Payload Too Large',
      message: 'file: data: more than 10000 rows',
      code: 'payload_too_large' as const,
    });
    const huge = await refused(Buffer.alloc(10 * 1024 * 1024 + 1, 'a'));
    expect(huge.status).toBe(413);
  });

  it('answers a retry with the same Idempotency-Key from the first import, registering once', async () => {
    const activity = await newActivity();
    const file = csv([HEADER, ['Once', 'Only', 'female', null, null, null, 'Kibera', 'Nairobi']]);
    const headers = { 'idempotency-key': `import-${unique()}` };
    const first = await upload(activity.id, file, { headers });
    const again = await upload(activity.id, file, { headers });
    expect(first.res.status).toBe(200);
    expect(again.res.status).toBe(200);
    expect(again.res.headers['idempotent-replayed']).toBe('true');
    expect(again.report).toEqual(first.report);
    expect(await registrations(activity.id)).toHaveLength(1);
    expect(await auditEntries(again.requestId)).toEqual([]);
  });

  it('pages the report: page and limit', async () => {
    const activity = await newActivity();
    const rows = Array.from({ length: 5 }, (_, i): Cell[] => [
      `P${i}`,
      'X',
      'male',
      null,
      null,
      null,
      'K',
      'N',
    ]);
    const { report } = await upload(activity.id, csv([HEADER, ...rows]), {
      query: '?dryRun=true&limit=2&page=3',
    });
    expect(report.meta).toEqual({ totalRows: 5, page: 3, limit: 2, totalPages: 3 });
    expect(report.rows.map((r) => r.row)).toEqual([6]);
    expect(report.summary.created).toBe(5);
  });

  it('imports 10,000 rows with duplicates in a few seconds and a bounded number of statements', async () => {
    const run = unique();
    // 300 people the organization knows already (registered in another activity).
    const earlier = await newActivity();
    await register(
      t.app,
      team.officer,
      team.org.id,
      earlier.id,
      Array.from({ length: 300 }, (_, i) => person({ nationalId: `${run}-known-${i}` })),
    );
    const activity = await newActivity();
    // 10,000 rows: 300 of known people, 700 new people with a national id, 700 repeating those, 1,000
    // without a national id (always new), 7,300 more new people with one.
    const nationalIdOf = (i: number) =>
      i < 300
        ? `${run}-known-${i}`
        : i < 1000
          ? `${run}-new-${i}`
          : i < 1700
            ? `${run}-new-${i - 700}`
            : i < 2700
              ? ''
              : `${run}-new-${i}`;
    const rows: string[] = [
      'first_name,last_name,sex,date_of_birth,phone,national_id,village,district,attended',
    ];
    for (let i = 0; i < 10_000; i++) {
      rows.push(
        `Person${i},Family${i % 97},${i % 2 ? 'male' : 'female'},1985-03-0${1 + (i % 9)},+254 700 ${i},` +
          `${nationalIdOf(i)},Village ${i % 50},District,${i % 3 === 0 ? 'yes' : 'no'}`,
      );
    }
    const before = await stored();
    let result: Awaited<ReturnType<typeof upload>> | undefined;
    const started = performance.now();
    const statements = await t.during(async () => {
      result = await upload(activity.id, Buffer.from(rows.join('\n')), { query: '?limit=5000' });
    });
    const seconds = (performance.now() - started) / 1000;
    const { res, report } = result!;
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
    expect(report.summary).toEqual({ created: 9000, updated: 0, unchanged: 1000, refused: 0 });
    expect(report.meta).toEqual({ totalRows: 10_000, page: 1, limit: 5000, totalPages: 2 });
    expect(report.rows[0]!.action).toBe('matched existing');
    expect(report.rows[300]).toMatchObject({ row: 302, action: 'new', messages: [] });
    expect(report.rows[1000]).toMatchObject({
      row: 1002,
      action: 'matched existing',
      messages: ['data!F1002: the same nationalId as row 302: one person, registered once, as row 302 says'],
    });
    expect(await stored()).toEqual({
      people: before.people + 9000,
      registrations: before.registrations + 9300,
    });
    const known = await t.database.db
      .select({ id: participants.id })
      .from(participants)
      .where(
        and(
          eq(participants.orgId, team.org.id),
          eq(
            participants.nationalIdIndex,
            nationalIdIndex(t.config.piiKeyring.current, team.org.id, `${run}-new-5000`),
          ),
        ),
      );
    expect(known).toHaveLength(1);
    // Slices of 1,000: a few dozen statements for 10,000 people, not one per row.
    expect(statements).toBeLessThan(80);
    expect(seconds).toBeLessThan(30);
    console.info(`10,000-row participant import: ${seconds.toFixed(1)} s, ${statements} statements`);
  });
});

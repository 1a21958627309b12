import bcrypt from 'bcrypt';
import type { OrgRole } from '../../src/modules/orgs/orgs.tables.js';
import { DAY } from './calendar.js';
import type { Cell, Column } from './bulk.js';
import type { ProgramSeed, Seeding, UserSeed } from './model.js';
import { DONORS, FEMALE_NAMES, LAST_NAMES, MALE_NAMES, REGIONS, THEMES } from './names.js';
import type { Random } from './random.js';

/** Published to IATI under a made-up identifier, so the IATI export has an organization to name. */
export const ORG = { code: 'bench', name: 'Bench Relief International', iatiRef: 'XI-IATI-BENCH' };
export const PASSWORD = 'bench-password-1';
export const ADMIN_EMAIL = 'bench-admin@bench.example';
/** The service's default BCRYPT_COST: logging in costs what it costs in production. */
const BCRYPT_COST = 12;
const ORG_CREATED = Date.UTC(2024, 0, 8, 9);

const memberEmail = (n: number) => `bench-user-${String(n).padStart(2, '0')}@bench.example`;

/** Roles of the members besides the admin, in turn: a fifth officers, three fifths reporters. */
const ROLE_CYCLE: OrgRole[] = ['me_officer', 'reporter', 'reporter', 'reporter', 'viewer'];

const BCRYPT_ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A bcrypt salt drawn from the seed: the hash, like every other column, is the same on each run. */
function seededSalt(random: Random): string {
  const bytes = Array.from({ length: 16 }, () => random.int(0, 255));
  let text = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const [a = 0, b = 0, c = 0] = bytes.slice(i, i + 3);
    const chunk = [a >> 2, ((a & 3) << 4) | (b >> 4), ((b & 15) << 2) | (c >> 6), c & 63];
    text += chunk.map((n) => BCRYPT_ALPHABET[n]).join('');
  }
  return `$2b$${BCRYPT_COST}$${text.slice(0, 22)}`;
}

const USER_COLUMNS: Column[] = [
  ['id', 'uuid'],
  ['email', 'text'],
  ['password_hash', 'text'],
  ['first_name', 'text'],
  ['last_name', 'text'],
  ['created_at', 'timestamptz'],
  ['updated_at', 'timestamptz'],
];

/** The organization, its admin and members; one password for all, hashed once. */
export async function seedOrganization(s: Seeding): Promise<void> {
  const random = s.random('organization');
  const hash = await bcrypt.hash(PASSWORD, seededSalt(random));
  const created = new Date(ORG_CREATED);
  s.orgId = s.ids.at(ORG_CREATED);
  await s.writer.insert(
    'organizations',
    [
      ['id', 'uuid'],
      ['name', 'text'],
      ['code', 'text'],
      ['iati_ref', 'text'],
      ['created_at', 'timestamptz'],
      ['updated_at', 'timestamptz'],
    ],
    1,
    [[s.orgId, ORG.name, ORG.code, ORG.iatiRef, created, created]],
  );

  const people: { user: UserSeed; first: string; last: string; created: Date }[] = [];
  const addUser = (email: string, role: OrgRole, time: number) => {
    const first = random.pick(random.chance(0.5) ? FEMALE_NAMES : MALE_NAMES);
    const last = random.pick(LAST_NAMES);
    const user = { id: s.ids.at(time), email, name: `${first} ${last}`, role };
    people.push({ user, first, last, created: new Date(time) });
    return user;
  };
  s.admin = addUser(ADMIN_EMAIL, 'org_admin', ORG_CREATED - 60_000);
  for (let n = 1; n <= s.plan.members; n += 1) {
    const joined = ORG_CREATED + n * 3 * DAY + random.int(0, DAY);
    s.users.push(addUser(memberEmail(n), ROLE_CYCLE[(n - 1) % ROLE_CYCLE.length]!, joined));
  }
  await s.writer.insert(
    'users',
    USER_COLUMNS,
    people.length,
    people.map(({ user, first, last, created: at }) => [user.id, user.email, hash, first, last, at, at]),
  );
  await s.writer.insert(
    'org_members',
    [
      ['org_id', 'uuid'],
      ['user_id', 'uuid'],
      ['role', 'org_role'],
      ['joined_at', 'timestamptz'],
    ],
    people.length,
    people.map(({ user, created: at }) => [s.orgId, user.id, user.role, at]),
  );
}

/** Donors, programs with their donors, and each program's results framework. */
export async function seedPrograms(s: Seeding): Promise<void> {
  const random = s.random('programs');
  const donors = Array.from({ length: s.plan.donors }, (_, i) => {
    const donor = DONORS[i % DONORS.length]!;
    const round = Math.floor(i / DONORS.length);
    const time = ORG_CREATED + DAY + i * 3_600_000;
    const slug = donor.code.toLowerCase();
    return {
      id: s.ids.at(time),
      row: [
        donor.name + (round > 0 ? ` ${round + 1}` : ''),
        donor.code + (round > 0 ? String(round + 1) : ''),
        donor.type,
        donor.country,
        `https://www.${slug}.example`,
        `${random.pick(FEMALE_NAMES)} ${random.pick(LAST_NAMES)}`,
        `grants@${slug}.example`,
        random.chance(0.3) ? 'Quarterly narrative and financial reports required.' : null,
        new Date(time),
      ],
    };
  });
  await s.writer.insert(
    'donors',
    [
      ['id', 'uuid'],
      ['org_id', 'uuid'],
      ['name', 'text'],
      ['code', 'text'],
      ['type', 'donor_type'],
      ['country', 'text'],
      ['website', 'text'],
      ['contact_name', 'text'],
      ['contact_email', 'text'],
      ['notes', 'text'],
      ['created_at', 'timestamptz'],
      ['updated_at', 'timestamptz'],
    ],
    donors.length,
    donors.map(({ id, row }) => [id, s.orgId, ...row, row.at(-1)]),
  );

  const programRows = [];
  for (let i = 0; i < s.plan.programs; i += 1) {
    const theme = THEMES[i % THEMES.length]!;
    const region = REGIONS[Math.floor(i / THEMES.length) % REGIONS.length]!;
    const phase = Math.floor(i / (THEMES.length * REGIONS.length));
    const time = ORG_CREATED + 5 * DAY + i * 7_200_000;
    const program: ProgramSeed = { id: s.ids.at(time), theme, region, outcomeIds: [], outputIds: [] };
    s.programs.push(program);
    const status = random.weighted([
      ['active', 85],
      ['completed', 10],
      ['draft', 5],
    ] as const);
    programRows.push([
      program.id,
      s.orgId,
      `${theme.name} in ${region}${phase > 0 ? ` (phase ${phase + 1})` : ''}`,
      `Improving ${theme.topics[0]!} and ${theme.services[0]!} for ${theme.groups[0]!} across ${region}.`,
      '2024-01-01',
      random.pick(['2026-12-31', '2027-06-30', '2027-12-31']),
      status,
      new Date(time),
      new Date(time),
    ]);
  }
  await s.writer.insert(
    'programs',
    [
      ['id', 'uuid'],
      ['org_id', 'uuid'],
      ['name', 'text'],
      ['description', 'text'],
      ['start_date', 'date'],
      ['end_date', 'date'],
      ['status', 'program_status'],
      ['created_at', 'timestamptz'],
      ['updated_at', 'timestamptz'],
    ],
    programRows.length,
    programRows,
  );
  const links = s.programs.flatMap((program) =>
    random.sample(donors, random.int(1, Math.min(3, donors.length))).map((d) => [s.orgId, program.id, d.id]),
  );
  await s.writer.insert(
    'program_donors',
    [
      ['org_id', 'uuid'],
      ['program_id', 'uuid'],
      ['donor_id', 'uuid'],
    ],
    links.length,
    links,
  );
  await seedResultNodes(s, random);
}

const NODE_COLUMNS: Column[] = [
  ['id', 'uuid'],
  ['org_id', 'uuid'],
  ['program_id', 'uuid'],
  ['parent_id', 'uuid'],
  ['level', 'result_level'],
  ['title', 'text'],
  ['order_index', 'int4'],
  ['created_at', 'timestamptz'],
  ['updated_at', 'timestamptz'],
];

/** Impact > outcomes > outputs per program, one level at a time so parents exist before children. */
async function seedResultNodes(s: Seeding, random: Random): Promise<void> {
  const levels: Cell[][][] = [[], [], []];
  s.programs.forEach((program, p) => {
    const { theme } = program;
    let time = ORG_CREATED + 10 * DAY + p * 3_600_000;
    const node = (level: 0 | 1 | 2, parentId: string | null, title: string, order: number) => {
      time += 60_000;
      const id = s.ids.at(time);
      const kind = (['impact', 'outcome', 'output'] as const)[level];
      levels[level]!.push([
        id,
        s.orgId,
        program.id,
        parentId,
        kind,
        title,
        order,
        new Date(time),
        new Date(time),
      ]);
      return id;
    };
    const impact = node(0, null, `Improved wellbeing of ${theme.groups[0]!} in ${program.region}`, 0);
    const outcomes = random.int(2, 3);
    for (let o = 0; o < outcomes; o += 1) {
      const group = theme.groups[o % theme.groups.length]!;
      const outcome = node(1, impact, `${capitalize(group)} adopt improved ${theme.topics[o % 3]!}`, o);
      program.outcomeIds.push(outcome);
      const outputs = random.int(2, 3);
      for (let u = 0; u < outputs; u += 1) {
        const title = [
          `${capitalize(group)} trained in ${theme.topics[(o + u) % 3]!}`,
          `${capitalize(theme.items[u % 2]!)} distributed to ${group}`,
          `${capitalize(theme.services[u % 2]!)} delivered`,
        ][u]!;
        program.outputIds.push(node(2, outcome, title, u));
      }
    }
  });
  for (const rows of levels) {
    await s.writer.insert('result_nodes', NODE_COLUMNS, rows.length, rows);
  }
}

export const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

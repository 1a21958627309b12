import type { Sex } from '../../src/lib/demographics.js';
import { seal, sealingKey, type Keyring } from '../../src/lib/sealed-values.js';
import { nationalIdIndex } from '../../src/modules/activities/participant-sealing.js';
import type { ActivitySeed } from './activities.js';
import { ANCHOR, DAY, isoDate, WINDOW } from './calendar.js';
import type { Cell } from './bulk.js';
import type { Seeding } from './model.js';
import { DISTRICTS, FEMALE_NAMES, LAST_NAMES, MALE_NAMES, VILLAGES } from './names.js';
import type { Random } from './random.js';

const YEAR = 365.25 * DAY;

/**
 * The PII_KEY the seed seals phones and national ids under, as the service does (bench/run.ts starts
 * the service with it). A fixed key: the bench data is synthetic.
 */
export const BENCH_PII_KEY = Buffer.alloc(32, 0x5e).toString('base64');
const keyring: Keyring = { current: sealingKey(BENCH_PII_KEY) };
const sealed = (value: string | null) => (value === null ? null : seal(keyring, value));
/** A fifth of registrations are people the project already met in an earlier activity. */
const RETURNING = 0.2;

/**
 * Who attends what, decided before the people are written: a person's district is the one of the
 * project that first met them, and they were registered before their earliest activity.
 */
function planRegistrations(s: Seeding, activities: ActivitySeed[], random: Random) {
  const people = s.plan.participants;
  const firstProject = new Int32Array(people).fill(-1);
  const earliest = new Float64Array(people).fill(Infinity);
  const activityOf: number[] = [];
  const personOf: number[] = [];
  const met = new Map<number, number[]>();
  let fresh = 0;
  activities.forEach((activity, a) => {
    const count = activity.status === 'cancelled' ? random.int(0, 3) : random.int(5, 20);
    const pool = met.get(activity.projectIndex) ?? [];
    met.set(activity.projectIndex, pool);
    const chosen = new Set<number>();
    for (let k = 0; k < count; k += 1) {
      let person: number;
      if (fresh < people && !(pool.length > 0 && random.chance(RETURNING))) person = fresh++;
      else person = pool.length > 0 ? random.pick(pool) : random.int(0, people - 1);
      if (chosen.has(person)) continue;
      chosen.add(person);
      if (firstProject[person] === -1) {
        firstProject[person] = activity.projectIndex;
        pool.push(person);
      }
      earliest[person] = Math.min(earliest[person]!, activity.start);
      activityOf.push(a);
      personOf.push(person);
    }
  });
  return { firstProject, earliest, activityOf, personOf };
}

const SEX_WEIGHTS = [
  ['female', 52],
  ['male', 46],
  ['other', 2],
] as const;

/** Ages of participants at the anchor, in years. */
const AGES: readonly (readonly [[number, number], number])[] = [
  [[1, 17], 15],
  [[18, 35], 45],
  [[36, 59], 30],
  [[60, 85], 10],
];

const RELATIONSHIPS = [
  ['child', 50],
  ['spouse', 15],
  ['parent', 10],
  ['sibling', 12],
  ['grandchild', 8],
  ['other', 5],
] as const;
const AGE_BY_RELATIONSHIP: Record<(typeof RELATIONSHIPS)[number][0], [number, number]> = {
  child: [0, 17],
  spouse: [18, 70],
  parent: [45, 90],
  sibling: [8, 60],
  grandchild: [0, 12],
  other: [5, 80],
};

const firstNameOf = (sex: Sex, random: Random) =>
  random.pick(
    sex === 'female' ? FEMALE_NAMES : sex === 'male' ? MALE_NAMES : [...FEMALE_NAMES, ...MALE_NAMES],
  );

/** The organization's participants, their households, and their registrations in activities. */
export async function seedParticipants(s: Seeding, activities: ActivitySeed[]): Promise<void> {
  const random = s.random('participants');
  const plan = planRegistrations(s, activities, random);
  const ids: string[] = [];
  const households: Cell[][] = [];

  function* people(): Generator<Cell[]> {
    for (let i = 0; i < s.plan.participants; i += 1) {
      const project = plan.firstProject[i]! >= 0 ? s.projects[plan.firstProject[i]!]! : null;
      const district = project?.district ?? random.pick(DISTRICTS);
      const met = plan.earliest[i]!;
      const created = Number.isFinite(met)
        ? met - random.int(8, 30) * DAY - random.int(0, DAY)
        : WINDOW.start + Math.floor(random.next() * (ANCHOR - WINDOW.start));
      const id = s.ids.at(created);
      ids.push(id);
      const sex = random.weighted(SEX_WEIGHTS);
      const lastName = random.pick(LAST_NAMES);
      const [low, high] = random.weighted(AGES);
      const born = ANCHOR - random.int(low, high) * YEAR - random.int(0, 364) * DAY;
      if (random.chance(0.12)) addHousehold(s, households, random, id, lastName, created);
      const dateOfBirth = random.chance(0.88) ? isoDate(born) : null;
      const phone = random.chance(0.6) ? `+2547${random.int(10_000_000, 99_999_999)}` : null;
      // Unique per organization: a multiplier prime to 10^8 maps each index to its own number.
      const nationalId = random.chance(0.55)
        ? `NIN${String((i * 7919 + 104_729) % 100_000_000).padStart(8, '0')}`
        : null;
      yield [
        id,
        s.orgId,
        firstNameOf(sex, random),
        lastName,
        sex,
        dateOfBirth,
        sealed(phone),
        sealed(nationalId),
        nationalId === null ? null : nationalIdIndex(keyring.current, s.orgId, nationalId),
        random.pick(VILLAGES),
        district.name,
        new Date(created),
        new Date(created),
      ];
    }
  }
  await s.writer.insert(
    'participants',
    [
      ['id', 'uuid'],
      ['org_id', 'uuid'],
      ['first_name', 'text'],
      ['last_name', 'text'],
      ['sex', 'sex'],
      ['date_of_birth', 'date'],
      ['phone', 'text'],
      ['national_id', 'text'],
      ['national_id_index', 'text'],
      ['village', 'text'],
      ['district', 'text'],
      ['created_at', 'timestamptz'],
      ['updated_at', 'timestamptz'],
    ],
    s.plan.participants,
    people(),
  );
  await s.writer.insert(
    'household_members',
    [
      ['id', 'uuid'],
      ['org_id', 'uuid'],
      ['participant_id', 'uuid'],
      ['name', 'text'],
      ['relationship', 'text'],
      ['sex', 'sex'],
      ['age', 'int4'],
      ['created_at', 'timestamptz'],
    ],
    households.length,
    households,
  );

  function* registrations(): Generator<Cell[]> {
    for (let k = 0; k < plan.activityOf.length; k += 1) {
      const activity = activities[plan.activityOf[k]!]!;
      const registered = activity.start - random.int(0, 7) * DAY + random.int(0, DAY);
      const attended =
        activity.status === 'completed'
          ? random.chance(0.85)
          : activity.status === 'in_progress' && random.chance(0.5);
      const role = random.weighted([
        ['attendee', 95],
        ['volunteer', 3],
        ['facilitator', 2],
      ] as const);
      yield [
        s.ids.at(registered),
        s.orgId,
        activity.id,
        ids[plan.personOf[k]!]!,
        role,
        attended,
        new Date(registered),
      ];
    }
  }
  await s.writer.insert(
    'activity_participants',
    [
      ['id', 'uuid'],
      ['org_id', 'uuid'],
      ['activity_id', 'uuid'],
      ['participant_id', 'uuid'],
      ['role', 'text'],
      ['attended', 'bool'],
      ['registered_at', 'timestamptz'],
    ],
    plan.activityOf.length,
    registrations(),
  );
}

function addHousehold(
  s: Seeding,
  rows: Cell[][],
  random: Random,
  participantId: string,
  lastName: string,
  created: number,
) {
  const size = random.int(1, 6);
  for (let m = 0; m < size; m += 1) {
    const relationship = random.weighted(RELATIONSHIPS);
    const [low, high] = AGE_BY_RELATIONSHIP[relationship];
    const sex = random.weighted(SEX_WEIGHTS);
    const at = created + (m + 1) * 60_000;
    rows.push([
      s.ids.at(at),
      s.orgId,
      participantId,
      `${firstNameOf(sex, random)} ${lastName}`,
      relationship,
      sex,
      random.int(low, high),
      new Date(at),
    ]);
  }
}

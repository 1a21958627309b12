import type { ActivityStatus } from '../../src/modules/activities/activities.tables.js';
import { ANCHOR, DAY, isoDate, WINDOW } from './calendar.js';
import type { Cell } from './bulk.js';
import { BIG, type Seeding } from './model.js';
import { personName, VILLAGES } from './names.js';
import { capitalize } from './organization.js';
import { seedParticipants } from './participants.js';
import { apportion, type Random } from './random.js';

/** What the participants' registrations need to know of each activity. */
export interface ActivitySeed {
  id: string;
  projectIndex: number;
  start: number;
  status: ActivityStatus;
}

function statusOf(start: number, end: number, random: Random): ActivityStatus {
  if (end < ANCHOR) {
    return random.weighted([
      ['completed', 93],
      ['cancelled', 7],
    ] as const);
  }
  if (start <= ANCHOR) return 'in_progress';
  return random.weighted([
    ['planned', 95],
    ['cancelled', 5],
  ] as const);
}

function titleOf(
  random: Random,
  words: { group: string; topic: string; service: string; item: string; village: string },
) {
  return random.pick([
    `Training of ${words.group} on ${words.topic}`,
    `Community dialogue on ${words.topic} in ${words.village}`,
    `Distribution of ${words.item} in ${words.village}`,
    `${capitalize(words.service)} outreach in ${words.village}`,
    `Monitoring visit to ${words.village}`,
    `Refresher session on ${words.topic}`,
  ]);
}

/** Activities over the reporting window, then the people who took part in them. */
export async function seedActivities(s: Seeding): Promise<void> {
  const random = s.random('activities');
  const ordinary = s.projects.filter((project) => project.index !== BIG);
  const shares = apportion(
    s.plan.activities - s.plan.big.activities,
    ordinary.map(() => random.between(0.4, 1.6)),
  );
  const counts = s.projects.map((project) =>
    project.index === BIG ? s.plan.big.activities : shares[project.index - 1]!,
  );
  const activities: ActivitySeed[] = [];
  const span = WINDOW.end - WINDOW.start - 5 * DAY;

  function* rows(): Generator<Cell[]> {
    for (const project of s.projects) {
      const program = s.programs[project.programIndex]!;
      for (let n = 0; n < counts[project.index]!; n += 1) {
        const start = WINDOW.start + Math.floor(random.next() * (span / DAY)) * DAY;
        const days = random.weighted([
          [1, 70],
          [random.int(2, 5), 20],
          [random.int(10, 30), 10],
        ] as const);
        const end = start + (days - 1) * DAY;
        const status = statusOf(start, end, random);
        const created = start - random.int(7, 30) * DAY + random.int(0, DAY);
        const id = s.ids.at(created);
        activities.push({ id, projectIndex: project.index, start, status });
        const village = random.pick(VILLAGES);
        const { theme } = program;
        const words = {
          group: random.pick(theme.groups),
          topic: random.pick(theme.topics),
          service: random.pick(theme.services),
          item: random.pick(theme.items),
          village,
        };
        const facilitator = personName(random);
        const updated = status === 'completed' ? end + DAY : created;
        yield [
          id,
          s.orgId,
          project.id,
          random.chance(0.8) ? random.pick(program.outputIds) : null,
          titleOf(random, words),
          random.chance(0.4) ? `${capitalize(words.topic)} with ${words.group} of ${village}.` : null,
          isoDate(start),
          isoDate(end),
          `${village}, ${project.district.name}`,
          facilitator,
          status,
          new Date(created),
          new Date(updated),
        ];
      }
    }
  }
  await s.writer.insert(
    'activities',
    [
      ['id', 'uuid'],
      ['org_id', 'uuid'],
      ['project_id', 'uuid'],
      ['output_id', 'uuid'],
      ['title', 'text'],
      ['description', 'text'],
      ['start_date', 'date'],
      ['end_date', 'date'],
      ['location', 'text'],
      ['facilitator', 'text'],
      ['status', 'activity_status'],
      ['created_at', 'timestamptz'],
      ['updated_at', 'timestamptz'],
    ],
    counts.reduce((sum, n) => sum + n, 0),
    rows(),
  );
  await seedParticipants(s, activities);
}

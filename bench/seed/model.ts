import type { AggregationMethod } from '../../src/lib/scoring.js';
import type { OrgRole } from '../../src/modules/orgs/orgs.tables.js';
import type { Writer } from './bulk.js';
import type { District, Theme } from './names.js';
import type { Plan } from './plan.js';
import { IdFactory, Random } from './random.js';

/** What the generated parts of the data set know of each other while they are written. */

export interface UserSeed {
  id: string;
  email: string;
  name: string;
  role: OrgRole;
}

export interface ProgramSeed {
  id: string;
  theme: Theme;
  region: string;
  outcomeIds: string[];
  outputIds: string[];
}

export interface IndicatorSeed {
  index: number;
  id: string;
  code: string;
  kind: IndicatorKind;
  method: AggregationMethod | null;
  /** Sex and age band disaggregations, as a pre-fill reports them. */
  disaggregated: boolean;
  isFormula: boolean;
  programIndex: number;
}

export type IndicatorKind = 'people' | 'households' | 'percent' | 'count' | 'money' | 'score' | 'formula';

export interface LinkSeed {
  indicator: IndicatorSeed;
  /** For the whole project (all periods); null: no target set. */
  target: number | null;
  /** How well the project does on it: the reported values are about this share of the target. */
  performance: number;
}

export interface ProjectSeed {
  index: number;
  id: string;
  code: string;
  name: string;
  programIndex: number;
  district: District;
  currency: string;
  status: 'draft' | 'active' | 'completed' | 'suspended';
  /** Oldest first, one per calendar period. */
  periodIds: string[];
  links: LinkSeed[];
  /** Users assigned as reporters. */
  reporters: UserSeed[];
}

/** A pair whose report only forms fill: a draft holding the sum of the counted submissions. */
export interface CountedPair {
  /** The report's id, which each counted submission names as its source. */
  reportId: string;
  projectIndex: number;
  indicatorId: string;
  periodIndex: number;
  value: number;
  submissions: number;
  firstSubmission: number;
  lastSubmission: number;
  /** The submissions counted into it, in the order made (not of time: several forms may feed it). */
  sources: { submissionId: string; time: number; amount: number }[];
}

export interface Seeding {
  plan: Plan;
  seed: number;
  writer: Writer;
  ids: IdFactory;
  orgId: string;
  admin: UserSeed;
  users: UserSeed[];
  programs: ProgramSeed[];
  projects: ProjectSeed[];
  indicators: IndicatorSeed[];
  counted: CountedPair[];
  /** A stream of its own per part of the data set. */
  random(stream: string): Random;
}

export function newSeeding(plan: Plan, seed: number, writer: Writer): Seeding {
  return {
    plan,
    seed,
    writer,
    ids: new IdFactory(new Random(seed, 'ids')),
    orgId: '',
    admin: { id: '', email: '', name: '', role: 'org_admin' },
    users: [],
    programs: [],
    projects: [],
    indicators: [],
    counted: [],
    random: (stream) => new Random(seed, stream),
  };
}

/** The project shaped like the biggest real ones is the first; the second is an ordinary one. */
export const BIG = 0;
export const TYPICAL = 1;

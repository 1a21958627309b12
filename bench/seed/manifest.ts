import { OPEN_PERIOD } from './calendar.js';
import { REGISTRATION_ANSWERS } from './form-templates.js';
import type { FormsPlan } from './forms.js';
import { BIG, TYPICAL, type Seeding } from './model.js';
import { ADMIN_EMAIL, ORG, PASSWORD } from './organization.js';
import type { Size } from './plan.js';
import type { QualityManifest } from './quality.js';

/** What a seed run made, for the bench runner (`bench/.seed.json`): where to find what. */
export interface SeedManifest {
  size: Size;
  seed: number;
  seededAt: string;
  seconds: number;
  counts: Record<string, number>;
  orgId: string;
  orgCode: string;
  admin: { email: string; password: string };
  users: { email: string; password: string; role: string }[];
  bigProject: { id: string; periodIds: string[]; indicatorCount: number; activityCount: number };
  typicalProjectId: string;
  intake: {
    formId: string;
    publicToken: string;
    projectId: string;
    indicatorId: string;
    periodId: string;
    fieldName: string;
    answers: Record<string, unknown>;
  };
  csvForm: { id: string; submissions: number };
  /** An approved indicator report with thousands of history entries. */
  busyReport: { id: string; projectId: string; historyEntries: number };
  /**
   * The quality benchmark's drafts in the big project: those of indicators two validation rules and the
   * default outlier check read, and those of as many equivalent indicators with every check off.
   */
  quality: QualityManifest;
}

export function manifestOf(
  s: Seeding,
  forms: FormsPlan,
  busyReport: SeedManifest['busyReport'],
  quality: QualityManifest,
  seconds: number,
): SeedManifest {
  const big = s.projects[BIG]!;
  const { intake } = forms;
  return {
    size: s.plan.size,
    seed: s.seed,
    seededAt: new Date().toISOString(),
    seconds: Math.round(seconds * 10) / 10,
    counts: { ...s.writer.counts },
    orgId: s.orgId,
    orgCode: ORG.code,
    admin: { email: ADMIN_EMAIL, password: PASSWORD },
    users: s.users.map((user) => ({ email: user.email, password: PASSWORD, role: user.role })),
    bigProject: {
      id: big.id,
      periodIds: [...big.periodIds],
      indicatorCount: big.links.length,
      activityCount: s.plan.big.activities,
    },
    typicalProjectId: s.projects[TYPICAL]!.id,
    intake: {
      formId: intake.id,
      publicToken: intake.token,
      projectId: intake.project.id,
      indicatorId: intake.indicator!.id,
      periodId: intake.project.periodIds[OPEN_PERIOD]!,
      fieldName: intake.template.valueFieldKey!,
      answers: { ...REGISTRATION_ANSWERS },
    },
    csvForm: { id: forms.csv.id, submissions: s.plan.csvSubmissions },
    busyReport,
    quality,
  };
}

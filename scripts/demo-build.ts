/**
 * The story of scripts/demo-story.ts written through the API, each part by the role that does it in an
 * organization: the org admin sets up the program, the M&E officer the framework, indicators, periods,
 * form and report, the reporter the values and the training. Without a team the admin does it all.
 */
import type { Service, Session } from './demo-client.js';
import { DemoError, messageOf } from './demo-client.js';
import {
  ACTIVITY,
  BUDGET_LINES,
  DONOR,
  FORM,
  FORM_ANSWERS,
  INDICATORS,
  PARTICIPANTS,
  PERIODS,
  PROGRAM,
  PROJECTS,
  REPORT_SECTIONS,
  RESULTS,
  VALUES,
  activityDates,
  programDates,
  quarters,
  reportTitle,
  type DemoRole,
  type IndicatorKey,
  type ProjectKey,
  type QuarterKey,
  type ResultKey,
} from './demo-story.js';

export interface StoryInput {
  service: Service;
  orgId: string;
  team: Map<DemoRole, Session>;
  today: Date;
  print: (line: string) => void;
}

interface Id {
  id: string;
}

const keysOf = <T extends object>(record: T) => Object.keys(record) as Array<keyof T>;

export async function buildStory(input: StoryInput): Promise<{ formUrl: string; shareUrl: string }> {
  const { service, team, today, print } = input;
  const admin = team.get('org_admin')!;
  const officer = team.get('me_officer') ?? admin;
  const reporter = team.get('reporter') ?? admin;
  const org = `/orgs/${input.orgId}`;
  const dates = programDates(today);
  const quarter = quarters(today);

  // The org admin: donor, program, projects, budget, and the reporter's projects.
  const donor = await admin.post<Id>(`${org}/donors`, DONOR);
  const program = await admin.post<Id>(`${org}/programs`, {
    ...PROGRAM,
    ...dates,
    status: 'active',
    donorIds: [donor.id],
  });
  const reporterId = team.has('reporter') ? (await reporter.get<Id>('/auth/me')).id : null;
  const projects = {} as Record<ProjectKey, string>;
  for (const key of keysOf(PROJECTS)) {
    const project = await admin.post<Id>(`${org}/programs/${program.id}/projects`, {
      ...PROJECTS[key],
      ...dates,
      status: 'active',
    });
    projects[key] = project.id;
    if (reporterId) await admin.post(`${org}/projects/${project.id}/members`, { userId: reporterId });
  }
  for (const line of BUDGET_LINES) await admin.post(`${org}/projects/${projects.water}/budget-lines`, line);

  // The M&E officer: results framework, indicators with disaggregations and targets, reporting periods.
  const results = {} as Record<ResultKey, string>;
  const addResult = async (key: ResultKey, level: string, parent: ResultKey | null) => {
    const node = await officer.post<Id>(`${org}/programs/${program.id}/result-nodes`, {
      level,
      parentId: parent ? results[parent] : null,
      title: RESULTS[key].title,
    });
    results[key] = node.id;
  };
  await addResult('impact', 'impact', null);
  await addResult('waterOutcome', 'outcome', 'impact');
  await addResult('waterOutput', 'output', 'waterOutcome');
  await addResult('hygieneOutcome', 'outcome', 'impact');
  await addResult('hygieneOutput', 'output', 'hygieneOutcome');

  const indicators = {} as Record<IndicatorKey, string>;
  const baselineYear = Number(dates.startDate.slice(0, 4)) - 1;
  for (const key of keysOf(INDICATORS)) {
    const { result, disaggregations, project, target, ...definition } = INDICATORS[key];
    const indicator = await officer.post<Id>(`${org}/indicators`, {
      ...definition,
      resultNodeId: results[result],
    });
    indicators[key] = indicator.id;
    for (const disaggregation of disaggregations) {
      await officer.post(`${org}/indicators/${indicator.id}/disaggregations`, disaggregation);
    }
    await officer.post(`${org}/projects/${projects[project]}/indicators`, {
      indicatorId: indicator.id,
      target,
      baseline: 0,
      baselineYear,
    });
  }

  const periods = { water: {}, hygiene: {} } as Record<ProjectKey, Partial<Record<QuarterKey, string>>>;
  for (const project of keysOf(PERIODS)) {
    for (const key of PERIODS[project]) {
      const period = await officer.post<Id>(
        `${org}/projects/${projects[project]}/reporting-periods`,
        quarter[key],
      );
      periods[project][key] = period.id;
    }
  }
  const periodOf = (project: ProjectKey, key: QuarterKey) => periods[project][key]!;
  print('  program with 2 projects, results framework, 5 indicators with targets, 5 quarterly periods');

  // The reporter reports; the M&E officer approves, leaves for review, or returns with a comment.
  for (const entry of VALUES) {
    const report = await reporter.post<Id>(`${org}/projects/${projects[entry.project]}/indicator-reports`, {
      indicatorId: indicators[entry.indicator],
      reportingPeriodId: periodOf(entry.project, entry.quarter),
      value: entry.value,
      target: entry.target,
      narrative: entry.narrative,
      ...(entry.disaggregatedValues ? { disaggregatedValues: entry.disaggregatedValues } : {}),
    });
    await reporter.patch(`${org}/indicator-reports/${report.id}/submit`);
    const { outcome } = entry;
    if (outcome.status === 'approved') {
      await officer.patch(`${org}/indicator-reports/${report.id}/approve`, { comment: outcome.comment });
    } else if (outcome.status === 'returned') {
      await officer.patch(`${org}/indicator-reports/${report.id}/reject`, { comment: outcome.comment });
    }
  }
  // The quarter two back is closed.
  for (const project of keysOf(PROJECTS)) {
    await officer.patch(`${org}/reporting-periods/${periodOf(project, 'earlier')}`, { isLocked: true });
  }
  const count = (status: string) => VALUES.filter((v) => v.outcome.status === status).length;
  print(
    `  values: ${count('approved')} approved, ${count('submitted')} awaiting review, ` +
      `${count('returned')} returned to the reporter; ${quarter.earlier.label} locked`,
  );

  const activity = await reporter.post<Id>(`${org}/projects/${projects.water}/activities`, {
    ...ACTIVITY,
    ...activityDates(today),
    outputId: results.waterOutput,
  });
  await reporter.post(`${org}/activities/${activity.id}/participants`, { participants: PARTICIPANTS });

  // A published form counting household visits into this quarter, answered three times.
  const form = await officer.post<Id & { publicToken: string; publicUrl: string }>(`${org}/forms`, {
    ...FORM,
    projectId: projects.water,
    indicatorId: indicators.householdVisits,
    reportingPeriodId: periodOf('water', 'current'),
  });
  await officer.post(`${org}/forms/${form.id}/publish`);
  for (const answers of FORM_ANSWERS) {
    const answer = await service.send('POST', `/forms/public/${form.publicToken}/submit`, { answers });
    if (answer.status !== 201) throw new DemoError(`Answering the form: ${messageOf(answer.body)}`);
  }

  const report = await officer.post<Id>(`${org}/reports`, {
    title: reportTitle(quarter.earlier.label, quarter.last.label),
    projectId: projects.water,
    reportType: 'ad_hoc',
    periodIds: [periodOf('water', 'earlier'), periodOf('water', 'last')],
  });
  await officer.patch(`${org}/reports/${report.id}`, { sections: REPORT_SECTIONS, status: 'published' });
  const share = await officer.patch<{ shareUrl: string }>(`${org}/reports/${report.id}/share`, {});
  print(
    `  training with ${PARTICIPANTS.length} participants, form with ${FORM_ANSWERS.length} answers, ` +
      'report published and shared',
  );
  return { formUrl: form.publicUrl, shareUrl: share.shareUrl };
}

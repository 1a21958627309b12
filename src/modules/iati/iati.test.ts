import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createDonor } from '../../../test/helpers/donors.js';
import {
  assignProject,
  createTeam,
  registerUser,
  createOrg,
  uniqueCode,
  type Team,
} from '../../../test/helpers/factories.js';
import {
  badRequestAt,
  call,
  conflictBody,
  expectError,
  MISSING_ID,
  notFoundBody,
  UNAUTHORIZED,
  MANAGERS,
  refusedTo,
} from '../../../test/helpers/http.js';
import { linkIndicator, postDisaggregation, postIndicator } from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { postProgram, postProject } from '../../../test/helpers/programs.js';
import { insertResultNode } from '../../../test/helpers/results.js';
import { childrenNamed, narrativeOf, parseXml, type XmlElement } from '../../../test/helpers/xml.js';
import { budgetLines } from '../budget/budget.tables.js';
import { indicatorReports } from '../indicator-reports/indicator-reports.tables.js';
import { IATI_ORGANISATION_TYPE_CODES } from '../orgs/iati-organisation-types.js';
import { projects } from '../projects/projects.tables.js';
import { NO_IATI_REF, NO_PROJECTS, SAME_IDENTIFIER } from './iati.service.js';
import { UNATTACHED_RESULT_TITLE } from './results-framework.js';

let t: TestApp;
let team: Team;
const url = (orgId: string, projectId?: string) =>
  `/orgs/${orgId}/iati/activities.xml${projectId ? `?projectId=${projectId}` : ''}`;

/** The official code lists (IATI 2.03) the export may use, written out here as the test's own statement. */
const CODES = {
  activityStatus: ['1', '2', '3', '4', '5', '6'],
  activityDateType: ['1', '2', '3', '4'],
  organisationRole: ['1', '2', '3', '4'],
  organisationType: IATI_ORGANISATION_TYPE_CODES as string[],
  resultType: ['1', '2', '3', '9'],
  indicatorMeasure: ['1', '2', '3', '4', '5'],
  budgetType: ['1', '2'],
  budgetStatus: ['1', '2'],
  descriptionType: ['1', '2', '3', '4'],
};

/** The sequences of the 2.03 activities schema, as far as the export writes them. */
const SCHEMA_ORDER: Record<string, { order: string[]; required: string[] }> = {
  'iati-activity': {
    order: [
      'iati-identifier',
      'reporting-org',
      'title',
      'description',
      'participating-org',
      'activity-status',
      'activity-date',
      'budget',
      'result',
    ],
    required: [
      'iati-identifier',
      'reporting-org',
      'title',
      'description',
      'participating-org',
      'activity-status',
      'activity-date',
    ],
  },
  budget: {
    order: ['period-start', 'period-end', 'value'],
    required: ['period-start', 'period-end', 'value'],
  },
  result: { order: ['title', 'indicator'], required: ['title', 'indicator'] },
  indicator: { order: ['title', 'baseline', 'period'], required: ['title'] },
  period: {
    order: ['period-start', 'period-end', 'target', 'actual'],
    required: ['period-start', 'period-end'],
  },
  actual: { order: ['dimension'], required: [] },
};

/** Every element the table above knows has its children in schema order and its required ones. */
function expectSchemaOrder(element: XmlElement): void {
  const rule = SCHEMA_ORDER[element.name];
  if (rule) {
    const names = element.children.map((child) => child.name);
    const positions = names.map((name) => rule.order.indexOf(name));
    expect(positions, `${element.name}: ${names.join(', ')}`).not.toContain(-1);
    expect(positions, `${element.name}: ${names.join(', ')}`).toEqual([...positions].sort((a, b) => a - b));
    for (const required of rule.required) expect(names, element.name).toContain(required);
  }
  element.children.forEach(expectSchemaOrder);
}

const all = (element: XmlElement, name: string): XmlElement[] => [
  ...(element.name === name ? [element] : []),
  ...element.children.flatMap((child) => all(child, name)),
];

/** A period as a compact line: dates, target, actuals with their dimensions. */
const periodLine = (period: XmlElement) =>
  [
    `${childrenNamed(period, 'period-start')[0]!.attributes['iso-date']}..${childrenNamed(period, 'period-end')[0]!.attributes['iso-date']}`,
    ...childrenNamed(period, 'target').map((target) => `target ${target.attributes.value}`),
    ...childrenNamed(period, 'actual').map((actual) =>
      [
        `actual ${actual.attributes.value}`,
        ...childrenNamed(actual, 'dimension').map((d) => `${d.attributes.name}=${d.attributes.value}`),
      ].join(' '),
    ),
  ].join(' | ');

const resultsOf = (activity: XmlElement) =>
  childrenNamed(activity, 'result').map((result) => ({
    type: result.attributes.type,
    title: narrativeOf(childrenNamed(result, 'title')[0]!),
    indicators: childrenNamed(result, 'indicator').map((indicator) => ({
      title: narrativeOf(childrenNamed(indicator, 'title')[0]!),
      measure: indicator.attributes.measure,
      baseline: childrenNamed(indicator, 'baseline').map((b) => b.attributes),
      periods: childrenNamed(indicator, 'period').map(periodLine),
    })),
  }));

let org: { id: string; iatiRef: string };
let program: { id: string };
let wash: { id: string; code: string };
let alpha: { id: string; code: string };
const NAME = 'Water & "Sanitation" <Phase 1>\u0001\u0008';
const CLEAN_NAME = 'Water & "Sanitation" <Phase 1>';

type ReportStatus = 'draft' | 'submitted' | 'approved' | 'rejected';
async function insertReport(
  projectId: string,
  indicatorId: string,
  periodId: string,
  status: ReportStatus,
  value: number,
  extra: { target?: number; disaggregatedValues?: Record<string, number> } = {},
) {
  await t.database.db.insert(indicatorReports).values({
    orgId: team.org.id,
    projectId,
    indicatorId,
    reportingPeriodId: periodId,
    status,
    value,
    target: extra.target ?? null,
    disaggregatedValues: extra.disaggregatedValues ?? {},
  });
}

beforeAll(async () => {
  t = await buildTestApp();
  team = await createTeam(t.app, t.database.db);
  const { admin, officer } = team;
  const orgId = team.org.id;
  const patched = await call(t.app, 'PATCH', `/orgs/${orgId}`, {
    as: admin,
    body: { iatiRef: 'GB-CHC-1234567', iatiOrgType: '22' },
  });
  expect(patched.status).toBe(200);
  org = { id: orgId, iatiRef: 'GB-CHC-1234567' };

  const usaid = await createDonor(t.app, admin, orgId, {
    name: 'USAID & Partners <Intl>',
    type: 'bilateral',
  });
  const eu = await createDonor(t.app, admin, orgId, { name: 'European Union', type: 'multilateral' });
  program = await postProgram(t.app, admin, orgId, { donorIds: [usaid.id, eu.id] });

  // The framework: impact > outcome > two outputs, and an impact without indicators (left out).
  const db = t.database.db;
  const impact = await insertResultNode(db, orgId, program.id, 'impact', null, 0, 'Healthier children');
  await insertResultNode(db, orgId, program.id, 'impact', null, 1, 'Unused impact');
  const outcome = await insertResultNode(db, orgId, program.id, 'outcome', impact.id, 0, 'Safe water used');
  const wells = await insertResultNode(db, orgId, program.id, 'output', outcome.id, 0, 'Wells built');
  const trained = await insertResultNode(db, orgId, program.id, 'output', outcome.id, 1, 'People trained');

  const people = await postIndicator(t.app, officer, orgId, {
    name: 'People reached',
    code: 'A_PEOPLE',
    unit: 'people',
    resultNodeId: trained.id,
  });
  await postDisaggregation(t.app, officer, orgId, people.id, 'Sex', ['female', 'male']);
  const share = await postIndicator(t.app, officer, orgId, {
    name: 'Share of households with safe water',
    code: 'B_SHARE',
    unit: '% of households',
    aggregationMethod: 'latest',
    resultNodeId: outcome.id,
  });
  const stunting = await postIndicator(t.app, officer, orgId, {
    name: 'Stunting score',
    code: 'C_SCORE',
    unit: 'score',
    aggregationMethod: 'latest',
    resultNodeId: impact.id,
  });
  const tiny = await postIndicator(t.app, officer, orgId, {
    name: 'Unattached tiny rate',
    code: 'D_TINY',
    unit: 'per mille',
  });
  const doubled = await postIndicator(t.app, officer, orgId, {
    name: 'Doubled people',
    code: 'E_DOUBLED',
    unit: 'people',
    formula: 'A_PEOPLE * 2',
    resultNodeId: wells.id,
  });

  wash = await postProject(t.app, team.admin, orgId, program.id, {
    name: CLEAN_NAME,
    code: 'WASH 01/B&C',
    description: 'Wells & latrines in <three> districts',
    startDate: '2024-01-01',
    endDate: '2025-06-30',
    currency: 'EUR',
  });
  // A name stored before names refused control characters (issue 36, finding 11): the export drops them.
  await t.database.db.update(projects).set({ name: NAME }).where(eq(projects.id, wash.id));
  for (const status of ['active', 'completed']) {
    const res = await call(t.app, 'PATCH', `/orgs/${orgId}/projects/${wash.id}`, {
      as: admin,
      body: { status },
    });
    expect(res.status).toBe(200);
  }
  alpha = await postProject(t.app, team.admin, orgId, program.id, {
    name: 'Alpha pilot',
    code: 'ALPHA',
    startDate: '2099-01-01',
    endDate: '2099-12-31',
  });

  await linkIndicator(t.app, officer, orgId, wash.id, people.id, { baseline: 10, baselineYear: 2023 });
  await linkIndicator(t.app, officer, orgId, wash.id, share.id, { baseline: 40 });
  await linkIndicator(t.app, officer, orgId, wash.id, stunting.id);
  await linkIndicator(t.app, officer, orgId, wash.id, tiny.id);
  await linkIndicator(t.app, officer, orgId, wash.id, doubled.id);

  const p1 = await createPeriod(db, orgId, wash.id, {
    label: 'H1 2024',
    startDate: '2024-01-01',
    endDate: '2024-06-30',
  });
  const p2 = await createPeriod(db, orgId, wash.id, {
    label: 'H2 2024',
    startDate: '2024-07-01',
    endDate: '2024-12-31',
  });
  const p3 = await createPeriod(db, orgId, wash.id, {
    label: 'H1 2025',
    startDate: '2025-01-01',
    endDate: '2025-06-30',
  });

  await insertReport(wash.id, people.id, p1.id, 'approved', 30, {
    target: 25,
    disaggregatedValues: { female: 18, male: 12 },
  });
  await insertReport(wash.id, people.id, p2.id, 'submitted', 991);
  await insertReport(wash.id, people.id, p3.id, 'rejected', 992);
  await insertReport(wash.id, share.id, p1.id, 'approved', 55.5, { target: 60 });
  await insertReport(wash.id, share.id, p2.id, 'draft', 993);
  await insertReport(wash.id, stunting.id, p2.id, 'approved', 3);
  await insertReport(wash.id, tiny.id, p1.id, 'approved', 1.5e-7);
  await insertReport(wash.id, tiny.id, p3.id, 'approved', 1e21, { target: 2e21 });

  await db.insert(budgetLines).values([
    { orgId, projectId: wash.id, category: 'Works', plannedAmount: 1000, actualAmount: 900 },
    { orgId, projectId: wash.id, category: 'Staff', plannedAmount: 500.55, actualAmount: 0 },
  ]);
});
afterAll(() => t.close());

async function exportAs(as: Team['admin'], orgId = org.id, projectId?: string) {
  const res = await call(t.app, 'GET', url(orgId, projectId), { as });
  expect(res.status, res.response.body.slice(0, 500)).toBe(200);
  return { res, document: parseXml(res.response.body) };
}

describe('GET /orgs/:orgId/iati/activities.xml', () => {
  it('writes an iati-activities 2.03 document, one activity per project by code, in schema order', async () => {
    const { res, document } = await exportAs(team.officer);
    expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(res.response.body.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<iati-activities ')).toBe(
      true,
    );
    expect(document.name).toBe('iati-activities');
    expect(document.attributes.version).toBe('2.03');
    expect(Date.parse(document.attributes['generated-datetime']!)).toBeGreaterThan(Date.now() - 60_000);
    const activities = childrenNamed(document, 'iati-activity');
    expect(activities.map((a) => childrenNamed(a, 'iati-identifier')[0]!.text)).toEqual([
      'GB-CHC-1234567-ALPHA',
      // Whitespace and / & | ? are not allowed in identifiers: each run became a dash.
      'GB-CHC-1234567-WASH-01-B-C',
    ]);
    expect(document.children.map((child) => child.name)).toEqual(['iati-activity', 'iati-activity']);
    expectSchemaOrder(document);
  });

  it('maps the project: organizations, status, dates, currency, budget by year, escaped text', async () => {
    const { document } = await exportAs(team.admin, org.id, wash.id);
    const [activity] = childrenNamed(document, 'iati-activity');
    expect(activity!.attributes).toEqual({ 'default-currency': 'EUR' });
    expect(childrenNamed(activity!, 'reporting-org').map((o) => [o.attributes, narrativeOf(o)])).toEqual([
      [{ ref: 'GB-CHC-1234567', type: '22' }, team.org.name],
    ]);
    expect(narrativeOf(childrenNamed(activity!, 'title')[0]!)).toBe(CLEAN_NAME);
    expect(childrenNamed(activity!, 'description').map((d) => [d.attributes, narrativeOf(d)])).toEqual([
      [{ type: '1' }, 'Wells & latrines in <three> districts'],
    ]);
    expect(childrenNamed(activity!, 'participating-org').map((o) => [o.attributes, narrativeOf(o)])).toEqual([
      [{ role: '1', type: '40' }, 'European Union'],
      [{ role: '1', type: '10' }, 'USAID & Partners <Intl>'],
      [{ ref: 'GB-CHC-1234567', type: '22', role: '4' }, team.org.name],
    ]);
    expect(childrenNamed(activity!, 'activity-status')[0]!.attributes).toEqual({ code: '3' });
    expect(childrenNamed(activity!, 'activity-date').map((d) => d.attributes)).toEqual([
      { type: '1', 'iso-date': '2024-01-01' },
      { type: '2', 'iso-date': '2024-01-01' },
      { type: '3', 'iso-date': '2025-06-30' },
      { type: '4', 'iso-date': '2025-06-30' },
    ]);
    expect(
      childrenNamed(activity!, 'budget').map((b) => [
        b.attributes,
        childrenNamed(b, 'period-start')[0]!.attributes['iso-date'],
        childrenNamed(b, 'period-end')[0]!.attributes['iso-date'],
        childrenNamed(b, 'value')[0]!.attributes,
        childrenNamed(b, 'value')[0]!.text,
      ]),
    ).toEqual([
      [{ type: '1', status: '1' }, '2024-01-01', '2024-12-31', { 'value-date': '2024-01-01' }, '1004.02'],
      [{ type: '1', status: '1' }, '2025-01-01', '2025-06-30', { 'value-date': '2025-01-01' }, '496.53'],
    ]);
  });

  it('publishes the results framework with approved values only, per reporting period', async () => {
    const { res, document } = await exportAs(team.admin, org.id, wash.id);
    const [activity] = childrenNamed(document, 'iati-activity');
    const periods = ['2024-01-01..2024-06-30', '2024-07-01..2024-12-31', '2025-01-01..2025-06-30'];
    expect(resultsOf(activity!)).toEqual([
      {
        type: '3',
        title: 'Healthier children',
        indicators: [
          {
            title: 'Stunting score',
            measure: '1',
            baseline: [],
            periods: [periods[0], `${periods[1]} | actual 3`, periods[2]],
          },
        ],
      },
      {
        type: '2',
        title: 'Safe water used',
        indicators: [
          {
            title: 'Share of households with safe water',
            measure: '2',
            // No baseline year on the link: the project's start year.
            baseline: [{ year: '2024', value: '40' }],
            periods: [`${periods[0]} | target 60 | actual 55.5`, periods[1], periods[2]],
          },
        ],
      },
      {
        type: '1',
        title: 'Wells built',
        indicators: [
          {
            // A formula: its inputs' approved values of the period; nothing where an input has none.
            title: 'Doubled people',
            measure: '1',
            baseline: [],
            periods: [`${periods[0]} | actual 60`, periods[1], periods[2]],
          },
        ],
      },
      {
        type: '1',
        title: 'People trained',
        indicators: [
          {
            title: 'People reached',
            measure: '1',
            baseline: [{ year: '2023', value: '10' }],
            periods: [
              `${periods[0]} | target 25 | actual 30 | actual 18 Sex=female | actual 12 Sex=male`,
              periods[1],
              periods[2],
            ],
          },
        ],
      },
      {
        type: '9',
        title: UNATTACHED_RESULT_TITLE,
        indicators: [
          {
            title: 'Unattached tiny rate',
            measure: '1',
            baseline: [],
            periods: [
              `${periods[0]} | actual 0.00000015`,
              periods[1],
              `${periods[2]} | target 2000000000000000000000 | actual 1000000000000000000000`,
            ],
          },
        ],
      },
    ]);
    // Draft, submitted and rejected values are nowhere in the document.
    for (const value of ['991', '992', '993']) expect(res.response.body).not.toContain(value);
  });

  it('describes a project without a description by its name, and gives a draft no actual dates', async () => {
    const { document } = await exportAs(team.admin, org.id, alpha.id);
    const activities = childrenNamed(document, 'iati-activity');
    expect(activities).toHaveLength(1);
    const [activity] = activities;
    expect(narrativeOf(childrenNamed(activity!, 'description')[0]!)).toBe('Alpha pilot');
    expect(childrenNamed(activity!, 'activity-status')[0]!.attributes.code).toBe('1');
    expect(childrenNamed(activity!, 'activity-date').map((d) => d.attributes.type)).toEqual(['1', '3']);
    expect(childrenNamed(activity!, 'budget')).toEqual([]);
    expect(childrenNamed(activity!, 'result')).toEqual([]);
    expectSchemaOrder(document);
  });

  it('uses only codes of the official code lists', async () => {
    const { document } = await exportAs(team.admin);
    const codes = (name: string, attribute: string) =>
      all(document, name).map((e) => e.attributes[attribute]!);
    const expectIn = (values: string[], list: string[]) => {
      expect(values.length).toBeGreaterThan(0);
      for (const value of values) expect(list).toContain(value);
    };
    expectIn(codes('activity-status', 'code'), CODES.activityStatus);
    expectIn(codes('activity-date', 'type'), CODES.activityDateType);
    expectIn(codes('participating-org', 'role'), CODES.organisationRole);
    expectIn(
      [...codes('participating-org', 'type'), ...codes('reporting-org', 'type')],
      CODES.organisationType,
    );
    expectIn(codes('result', 'type'), CODES.resultType);
    expectIn(codes('indicator', 'measure'), CODES.indicatorMeasure);
    expectIn(codes('budget', 'type'), CODES.budgetType);
    expectIn(codes('budget', 'status'), CODES.budgetStatus);
    expectIn(codes('description', 'type'), CODES.descriptionType);
  });

  it('refuses viewers, reporters (assigned or not) and members of other organizations with 403', async () => {
    await assignProject(t.database.db, org.id, wash.id, team.reporter.id);
    for (const user of [team.viewer, team.reporter, team.outsider]) {
      expectError(await call(t.app, 'GET', url(org.id), { as: user }), refusedTo(team, user, MANAGERS));
      expectError(
        await call(t.app, 'GET', url(org.id, wash.id), { as: user }),
        refusedTo(team, user, MANAGERS),
      );
    }
    expectError(await call(t.app, 'GET', url(org.id)), UNAUTHORIZED);
  });

  it("answers 404 for another organization's project or an unknown one, 400 for a malformed id", async () => {
    const otherProgram = await postProgram(t.app, team.outsider, team.outsiderOrg.id);
    const foreign = await postProject(t.app, team.outsider, team.outsiderOrg.id, otherProgram.id);
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(await call(t.app, 'GET', url(org.id, id), { as: team.admin }), notFoundBody('Project'));
    }
    expectError(
      await call(t.app, 'GET', url(org.id, 'not-a-uuid'), { as: team.admin }),
      badRequestAt(['query', '/projectId', 'format', 'projectId must be a UUID']),
    );
  });

  it('answers 409 while the organization has no iatiRef, and when it has no project', async () => {
    const owner = await registerUser(t.app);
    const fresh = await createOrg(t.app, owner, 'No Ref NGO');
    expectError(
      await call(t.app, 'GET', url(fresh.id), { as: owner }),
      conflictBody(NO_IATI_REF, 'conflict'),
    );
    const set = await call(t.app, 'PATCH', `/orgs/${fresh.id}`, {
      as: owner,
      body: { iatiRef: 'XM-DAC-41114' },
    });
    expect(set.status).toBe(200);
    expectError(
      await call(t.app, 'GET', url(fresh.id), { as: owner }),
      conflictBody(NO_PROJECTS, 'conflict'),
    );
    const freshProgram = await postProgram(t.app, owner, fresh.id);
    const project = await postProject(t.app, owner, fresh.id, freshProgram.id, { code: uniqueCode('x') });
    const cleared = await call(t.app, 'PATCH', `/orgs/${fresh.id}`, { as: owner, body: { iatiRef: null } });
    expect(cleared.status).toBe(200);
    expectError(
      await call(t.app, 'GET', url(fresh.id, project.id), { as: owner }),
      conflictBody(NO_IATI_REF, 'conflict'),
    );
  });

  it('answers 409 naming the projects whose codes give one identifier, before the first byte', async () => {
    const owner = await registerUser(t.app);
    const org = await createOrg(t.app, owner, 'Clashing Codes NGO');
    const ref = await call(t.app, 'PATCH', `/orgs/${org.id}`, { as: owner, body: { iatiRef: 'XM-CLASH-1' } });
    expect(ref.status).toBe(200);
    const program = await postProgram(t.app, owner, org.id);
    const lone = await postProject(t.app, owner, org.id, program.id, { code: 'A B' });
    await postProject(t.app, owner, org.id, program.id, { code: 'A/B' });
    await postProject(t.app, owner, org.id, program.id, { code: 'ZZ' });
    expectError(
      await call(t.app, 'GET', url(org.id), { as: owner }),
      conflictBody(`${SAME_IDENTIFIER}: A B, A/B`, 'conflict'),
    );
    // One of them alone is one activity: nothing clashes.
    const one = await call(t.app, 'GET', url(org.id, lone.id), { as: owner });
    expect(one.status).toBe(200);
    expect(one.response.body).toContain('<iati-identifier>XM-CLASH-1-A-B</iati-identifier>');
  });
});

/**
 * With xmllint and the official schema at hand (IATI_SCHEMA_DIR: a folder holding
 * iati-activities-schema.xsd, iati-common.xsd and xml.xsd of IATI-Schemas, branch version-2.03), the
 * document is validated against it; CI has neither, and the test says so by its name.
 */
const schemaDir = process.env.IATI_SCHEMA_DIR;
const xmllint = spawnSync('xmllint', ['--version']).status === 0;
const canValidate = Boolean(
  schemaDir && existsSync(path.join(schemaDir, 'iati-activities-schema.xsd')) && xmllint,
);

it.skipIf(!canValidate)(
  'validates against the official IATI 2.03 schema with xmllint (skipped without IATI_SCHEMA_DIR and xmllint)',
  async () => {
    const { res } = await exportAs(team.admin);
    const dir = mkdtempSync(path.join(tmpdir(), 'iati-'));
    try {
      const file = path.join(dir, 'activities.xml');
      writeFileSync(file, res.response.body);
      const run = spawnSync(
        'xmllint',
        ['--noout', '--schema', path.join(schemaDir!, 'iati-activities-schema.xsd'), file],
        { encoding: 'utf8' },
      );
      expect([run.status, run.stderr.trim()]).toEqual([0, `${file} validates`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/errors/codes.js';
import { IDS, PEOPLE } from '../src/http/documentation/story.js';
import { CREDENTIALS, REGISTRATION, TOKEN, TOKEN_REQUEST, USER } from '../src/modules/auth/auth.examples.js';
import {
  FORM,
  FORM_CREATE,
  FORM_PUBLISHED,
  PUBLIC_FORM,
  SUBMISSION,
  SUBMISSION_RECEIPT,
} from '../src/modules/forms/forms.examples.js';
import {
  INDICATOR_REPORT_APPROVAL,
  INDICATOR_REPORT_APPROVED,
  INDICATOR_REPORT_CREATE,
  INDICATOR_REPORT_DRAFT,
  INDICATOR_REPORT_RETURN,
  INDICATOR_REPORT_RETURNED,
  INDICATOR_REPORT_SUBMITTED,
} from '../src/modules/indicator-reports/indicator-reports.examples.js';
import {
  DISAGGREGATION,
  DISAGGREGATION_CREATE,
  INDICATOR,
  INDICATOR_CREATE,
  PROJECT_INDICATOR,
  PROJECT_INDICATOR_CREATE,
} from '../src/modules/indicators/indicators.examples.js';
import { ORGANIZATION, ORGANIZATION_CREATE } from '../src/modules/orgs/orgs.examples.js';
import { PERIOD, PERIOD_CREATE } from '../src/modules/periods/periods.examples.js';
import { PROGRAM, PROGRAM_CREATE } from '../src/modules/programs/programs.examples.js';
import { PROJECT, PROJECT_CREATE } from '../src/modules/projects/projects.examples.js';
import {
  PROJECT_REPORT_CREATE,
  PUBLISHED_REPORT,
  REPORT_ASSEMBLED,
  REPORT_CREATE,
  REPORT_DRAFT,
  REPORT_PUBLISH,
  SHARE_LINK,
  SHARE_REQUEST,
  SHARED_REPORT,
} from '../src/modules/reports/reports.examples.js';
import {
  RESULT_NODE,
  RESULT_NODE_CREATE,
  RESULTS_FRAMEWORK,
} from '../src/modules/results/results.examples.js';
import { addMember, assignProject, registerUser, uniqueEmail, type TestUser } from './helpers/factories.js';
import { call, type Call } from './helpers/http.js';
import { useSuite } from './helpers/suite.js';

type Json = Record<string, any>;

const { t } = useSuite();
let doc: Json;
beforeAll(async () => {
  doc = (await call(t.app, 'GET', '/api/openapi.json')).body;
});

/** The operations of the main story, from an account to a report shared with the donor. */
const STORY = [
  'registerUser',
  'signIn',
  'issueToken',
  'createOrganization',
  'createProgram',
  'createProject',
  'createResultNode',
  'getResultsFramework',
  'createIndicator',
  'createDisaggregation',
  'linkProjectIndicator',
  'createReportingPeriod',
  'createIndicatorReport',
  'submitIndicatorReport',
  'approveIndicatorReport',
  'rejectIndicatorReport',
  'createForm',
  'publishForm',
  'getPublicForm',
  'submitPublicForm',
  'createProjectReport',
  'createReport',
  'refreshReport',
  'updateReport',
  'shareReport',
  'getSharedReport',
];

function operation(id: string): Json {
  for (const item of Object.values(doc.paths as Json)) {
    for (const op of Object.values(item as Json)) if ((op as Json).operationId === id) return op as Json;
  }
  throw new Error(`No operation ${id}`);
}

/**
 * A validator of the document's schemas (JSON Schema 2020-12, as OpenAPI 3.1 has them): each compiled
 * with the document's components beside it, where its `#/components/schemas/...` references point.
 */
function validatorOf(document: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats.default(ajv);
  for (const format of ['password', 'binary', 'uri-reference']) ajv.addFormat(format, () => true);
  return (schema: Json, value: unknown): string[] => {
    const validate = ajv.compile({ ...schema, components: document.components });
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

describe('examples in the OpenAPI document', () => {
  it('gives every request body and success answer of the main story an example', () => {
    const missing: string[] = [];
    for (const id of STORY) {
      const op = operation(id);
      const body = op.requestBody?.content?.['application/json'];
      if (body && body.example === undefined) missing.push(`${id} request body`);
      for (const [status, answer] of Object.entries(op.responses as Json)) {
        const json = (answer as Json).content?.['application/json'];
        if (/^2/.test(status) && json && json.example === undefined) missing.push(`${id} ${status}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('gives every example of a body or an answer the shape of its schema', () => {
    const validate = validatorOf(doc);
    const wrong: string[] = [];
    let checked = 0;
    const visit = (node: unknown, where: string): void => {
      if (typeof node !== 'object' || node === null) return;
      const media = node as Json;
      if (media.schema && media.example !== undefined) {
        checked += 1;
        for (const problem of validate(media.schema, media.example)) wrong.push(`${where}: ${problem}`);
      }
      for (const [key, value] of Object.entries(media))
        if (key !== 'example') visit(value, `${where}/${key}`);
    };
    visit(doc.paths, 'paths');
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(STORY.length * 2 - 8);
  });

  it('has one example body of every error code, each in the Error schema', () => {
    const validate = validatorOf(doc);
    const catalogue = doc.components.schemas.Error.examples as Json[];
    expect(catalogue.map((body) => body.code)).toEqual(Object.keys(ERROR_CODES));
    for (const body of catalogue) {
      expect([body.code, validate({ $ref: '#/components/schemas/Error' }, body)]).toEqual([body.code, []]);
    }
  });

  it('shows on each error answer the examples of its status', () => {
    const validate = validatorOf(doc);
    const examples = doc.components.examples as Json;
    for (const [name, example] of Object.entries(examples)) {
      expect([name, validate({ $ref: '#/components/schemas/Error' }, example.value)]).toEqual([name, []]);
    }
    const wrong: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        for (const [status, answer] of Object.entries((op as Json).responses as Json)) {
          const json = ((answer as Json).$ref ? resolve(answer as Json) : (answer as Json)).content?.[
            'application/json'
          ];
          if (Number(status) < 400 || json?.schema?.$ref !== '#/components/schemas/Error') continue;
          const shown = Object.values((json.examples ?? {}) as Json).map((ref) => resolve(ref as Json).value);
          if (shown.length === 0 || shown.some((body) => body.statusCode !== Number(status))) {
            wrong.push(`${method.toUpperCase()} ${path} ${status}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    // The 403 shows the refusals of a role, of a stranger and of a reporter outside the project.
    expect(Object.keys(doc.components.responses.Forbidden.content['application/json'].examples)).toEqual([
      'forbidden',
      'forbidden_not_a_member',
      'forbidden_project_not_assigned',
    ]);
  });
});

function resolve(node: Json): Json {
  if (typeof node.$ref !== 'string') return node;
  return resolve(
    node.$ref
      .slice(2)
      .split('/')
      .reduce((at: Json, key: string) => at[key], doc),
  );
}

/**
 * The story told by the examples, played against the service: each example body is sent as it is
 * (the story's ids replaced by the ones the service gave, the email and code made unique), and each
 * answer is the example answer once ids, times and secrets are put aside.
 */
describe('the main story of the examples, sent to the service', () => {
  /** The service's id of each id of the story, and back. */
  const real = new Map<string, string>();
  const story = new Map<string, string>();
  const learn = (storyId: string, id: string) => {
    real.set(storyId, id);
    story.set(id, storyId);
  };

  /** The example with the service's ids for the story's. */
  const sent = <T>(example: T): T =>
    JSON.parse(JSON.stringify(example), (_key, value: unknown) =>
      typeof value === 'string' && real.has(value) ? real.get(value) : value,
    ) as T;

  const TIME_KEYS = new Set([
    'createdAt',
    'updatedAt',
    'submittedAt',
    'reviewedAt',
    'publishedAt',
    'lockedAt',
    'lastChangedAt',
    'approvedAt',
    'joinedAt',
  ]);
  const SECRET_KEYS = new Set(['accessToken', 'publicToken', 'publicUrl', 'shareToken', 'shareUrl']);

  /** An answer or an example with the story's ids, and times and secrets as placeholders. */
  const comparable = (value: unknown): unknown =>
    JSON.parse(JSON.stringify(value), (key, node: unknown) => {
      if (TIME_KEYS.has(key) && typeof node === 'string') return '<time>';
      if (SECRET_KEYS.has(key) && typeof node === 'string') return '<secret>';
      if (typeof node === 'string' && story.has(node)) return story.get(node);
      return node;
    });

  const expectLike = (res: Call, status: number, example: unknown) => {
    expect([res.status, comparable(res.body)]).toEqual([status, comparable(example)]);
  };

  let admin: TestUser;
  let officer: TestUser;
  let reporter: TestUser;
  const email = uniqueEmail('amina');
  const code = `maji-safi-${Date.now().toString(36)}`;

  it('signs up, in and gets a token with the examples', async () => {
    const registered = await call(t.app, 'POST', '/auth/register', { body: { ...REGISTRATION, email } });
    learn(PEOPLE.admin.id, registered.body.id);
    expectLike(registered, 201, { ...USER, email });
    const login = await call(t.app, 'POST', '/auth/login', { body: { ...CREDENTIALS, email } });
    expectLike(login, 200, { ...USER, email });
    const token = await call(t.app, 'POST', '/auth/token', { body: { ...TOKEN_REQUEST, email } });
    expectLike(token, 200, TOKEN);
    admin = { ...PEOPLE.admin, email, token: token.body.accessToken };
  });

  it('sets up the organization, program, project and results framework with the examples', async () => {
    const org = await call(t.app, 'POST', '/orgs', { as: admin, body: { ...ORGANIZATION_CREATE, code } });
    learn(IDS.organization, org.body.id);
    expectLike(org, 201, { ...ORGANIZATION, code });
    const orgUrl = `/orgs/${org.body.id}`;
    const named = ({ firstName, lastName }: { firstName: string; lastName: string }) =>
      registerUser(t.app, { firstName, lastName });
    [officer, reporter] = await Promise.all([named(PEOPLE.officer), named(PEOPLE.reporter)]);
    learn(PEOPLE.officer.id, officer.id);
    learn(PEOPLE.reporter.id, reporter.id);
    await addMember(t.database.db, org.body.id, officer.id, 'me_officer');
    await addMember(t.database.db, org.body.id, reporter.id, 'reporter');

    const donor = await call(t.app, 'POST', `${orgUrl}/donors`, {
      as: admin,
      body: { name: 'Global Water Fund', code: 'GWF', type: 'private' },
    });
    learn(IDS.donor, donor.body.id);
    const program = await call(t.app, 'POST', `${orgUrl}/programs`, {
      as: admin,
      body: sent(PROGRAM_CREATE),
    });
    learn(IDS.program, program.body.id);
    expectLike(program, 201, PROGRAM);
    const project = await call(t.app, 'POST', `${orgUrl}/programs/${program.body.id}/projects`, {
      as: admin,
      body: PROJECT_CREATE,
    });
    learn(IDS.project, project.body.id);
    expectLike(project, 201, PROJECT);
    await assignProject(t.database.db, org.body.id, project.body.id, reporter.id);

    const nodesUrl = `${orgUrl}/programs/${program.body.id}/result-nodes`;
    const [impact] = RESULTS_FRAMEWORK;
    const made = await call(t.app, 'POST', nodesUrl, {
      as: officer,
      body: { level: 'impact', code: impact!.code, title: impact!.title, description: impact!.description },
    });
    learn(IDS.impact, made.body.id);
    const outcome = await call(t.app, 'POST', nodesUrl, { as: officer, body: sent(RESULT_NODE_CREATE) });
    learn(IDS.outcome, outcome.body.id);
    expectLike(outcome, 201, RESULT_NODE);
    const output = impact!.children[0]!.children[0]!;
    const last = await call(t.app, 'POST', nodesUrl, {
      as: officer,
      body: sent({ level: 'output', parentId: output.parentId, code: output.code, title: output.title }),
    });
    learn(IDS.output, last.body.id);
    expectLike(await call(t.app, 'GET', nodesUrl, { as: officer }), 200, RESULTS_FRAMEWORK);
  });

  it('defines the indicator, its disaggregation, its target and the quarter with the examples', async () => {
    const orgUrl = `/orgs/${real.get(IDS.organization)}`;
    const projectUrl = `${orgUrl}/projects/${real.get(IDS.project)}`;
    const indicator = await call(t.app, 'POST', `${orgUrl}/indicators`, {
      as: officer,
      body: sent(INDICATOR_CREATE),
    });
    learn(IDS.indicator, indicator.body.id);
    expectLike(indicator, 201, INDICATOR);
    const dimension = await call(t.app, 'POST', `${orgUrl}/indicators/${indicator.body.id}/disaggregations`, {
      as: officer,
      body: DISAGGREGATION_CREATE,
    });
    learn(IDS.disaggregation, dimension.body.id);
    expectLike(dimension, 201, DISAGGREGATION);
    const link = await call(t.app, 'POST', `${projectUrl}/indicators`, {
      as: officer,
      body: sent(PROJECT_INDICATOR_CREATE),
    });
    expectLike(link, 201, PROJECT_INDICATOR);
    const period = await call(t.app, 'POST', `${projectUrl}/reporting-periods`, {
      as: officer,
      body: PERIOD_CREATE,
    });
    learn(IDS.period, period.body.id);
    expectLike(period, 201, PERIOD);
  });

  it("takes the quarter's figure through submission, return and approval with the examples", async () => {
    const orgUrl = `/orgs/${real.get(IDS.organization)}`;
    const created = await call(
      t.app,
      'POST',
      `${orgUrl}/projects/${real.get(IDS.project)}/indicator-reports`,
      {
        as: reporter,
        body: sent(INDICATOR_REPORT_CREATE),
      },
    );
    learn(IDS.indicatorReport, created.body.id);
    expectLike(created, 201, INDICATOR_REPORT_DRAFT);
    const url = (action: string) => `${orgUrl}/indicator-reports/${created.body.id}/${action}`;
    expectLike(await call(t.app, 'PATCH', url('submit'), { as: reporter }), 200, INDICATOR_REPORT_SUBMITTED);
    const returned = await call(t.app, 'PATCH', url('reject'), {
      as: officer,
      body: INDICATOR_REPORT_RETURN,
    });
    expectLike(returned, 200, INDICATOR_REPORT_RETURNED);
    expect((await call(t.app, 'PATCH', url('submit'), { as: reporter })).status).toBe(200);
    const approved = await call(t.app, 'PATCH', url('approve'), {
      as: officer,
      body: INDICATOR_REPORT_APPROVAL,
    });
    expectLike(approved, 200, INDICATOR_REPORT_APPROVED);
  });

  it('publishes the survey and answers it with the examples', async () => {
    const orgUrl = `/orgs/${real.get(IDS.organization)}`;
    // The story's survey closed at the end of its quarter; this one stays open to be answered.
    const open = { closesAt: null };
    const form = await call(t.app, 'POST', `${orgUrl}/forms`, {
      as: officer,
      body: { ...sent(FORM_CREATE), ...open },
    });
    learn(IDS.form, form.body.id);
    expectLike(form, 201, { ...FORM, ...open });
    const published = await call(t.app, 'POST', `${orgUrl}/forms/${form.body.id}/publish`, { as: officer });
    expectLike(published, 200, { ...FORM_PUBLISHED, ...open });
    const publicUrl = `/forms/public/${form.body.publicToken}`;
    expectLike(await call(t.app, 'GET', publicUrl), 200, { ...PUBLIC_FORM, ...open });
    const receipt = await call(t.app, 'POST', `${publicUrl}/submit`, { body: SUBMISSION });
    learn(IDS.submission, receipt.body.id);
    expectLike(receipt, 201, SUBMISSION_RECEIPT);
  });

  it('assembles, publishes and shares the quarterly report with the examples', async () => {
    const orgUrl = `/orgs/${real.get(IDS.organization)}`;
    // What the story has and this one does not: an activity and budget lines, from outside the main story.
    const withoutExtras = (report: unknown) => {
      const copy = comparable(report) as Json;
      copy.sections = { ...copy.sections, activities: [], budget: { currency: 'USD' } };
      return copy;
    };
    const expectReport = (res: Call, status: number, example: unknown) => {
      expect([res.status, withoutExtras(res.body)]).toEqual([status, withoutExtras(example)]);
    };
    const byPeriods = await call(t.app, 'POST', `${orgUrl}/reports`, {
      as: officer,
      body: sent(REPORT_CREATE),
    });
    learn(IDS.report, byPeriods.body.id);
    expectReport(byPeriods, 201, REPORT_DRAFT);
    const created = await call(t.app, 'POST', `${orgUrl}/projects/${real.get(IDS.project)}/reports`, {
      as: officer,
      body: PROJECT_REPORT_CREATE,
    });
    learn(IDS.report, created.body.id);
    expectReport(created, 201, REPORT_DRAFT);
    const reportUrl = `${orgUrl}/reports/${created.body.id}`;
    expectReport(await call(t.app, 'POST', `${reportUrl}/refresh`, { as: officer }), 200, REPORT_ASSEMBLED);
    const published = await call(t.app, 'PATCH', reportUrl, { as: officer, body: REPORT_PUBLISH });
    expectReport(published, 200, PUBLISHED_REPORT);
    // The story's link expires at the end of July 2026; this one must still be in the future.
    const until = '2099-07-31T23:59:59.000Z';
    expect(Object.keys(SHARE_REQUEST)).toEqual(['expiresAt']);
    const share = await call(t.app, 'PATCH', `${reportUrl}/share`, {
      as: officer,
      body: { expiresAt: until },
    });
    expectLike(share, 200, { ...SHARE_LINK, shareExpiresAt: until });
    const shared = await call(t.app, 'GET', `/reports/share/${share.body.shareToken}`);
    expectReport(shared, 200, { ...SHARED_REPORT, shareExpiresAt: until });
  });
});

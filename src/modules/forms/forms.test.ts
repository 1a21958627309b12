import { describe, expect, it } from 'vitest';
import { assignProject, createProject, createTeam, type Team } from '../../../test/helpers/factories.js';
import {
  formsUrl,
  formTargets,
  formUrl,
  postForm,
  SURVEY_FIELDS,
  type FormJson,
} from '../../../test/helpers/forms.js';
import {
  badRequest,
  call,
  type Caller,
  expectError,
  expectViolations,
  MISSING_ID,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  ALL_ROLES,
  MANAGERS,
  notAMember,
  notAssigned,
  refusedTo,
} from '../../../test/helpers/http.js';
import { linkIndicator, postIndicator } from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const KEY_RULE =
  'fields.0.key must be 1 to 64 lower-case letters, digits or underscores, starting with a letter';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const survey = (projectId: string, extra: Record<string, unknown> = {}) => ({
  projectId,
  title: 'Household water survey',
  fields: SURVEY_FIELDS,
  ...extra,
});
const post = (body: unknown, as: Caller | null = team.officer, orgId = team.org.id) =>
  call(t.app, 'POST', formsUrl(orgId), { as, body });
const formsOf = async (projectId: string, query = '') =>
  (await call(t.app, 'GET', `${formsUrl(team.org.id)}?projectId=${projectId}${query}`, { as: team.admin }))
    .body as FormJson[];
const newProject = () => createProject(t.database.db, team.org.id);

describe('POST /orgs/:orgId/forms', () => {
  it('creates an unpublished form (201) with a fresh public token and link, counting toward an indicator', async () => {
    const { project, period, indicator } = await formTargets(t.app, t.database.db, team.officer, team.org.id);
    const res = await post(
      survey(project.id, {
        title: '  Household water survey ',
        description: ' Ask the head of the household ',
        closesAt: '2030-01-01T00:00:00+02:00',
        indicatorId: indicator.id,
        reportingPeriodId: period.id,
        valueFieldKey: 'household_size',
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      orgId: team.org.id,
      projectId: project.id,
      indicatorId: indicator.id,
      reportingPeriodId: period.id,
      valueFieldKey: 'household_size',
      countInto: 'fixed_period',
      countDateField: null,
      disaggregateBy: null,
      countRepeat: null,
      countWhere: null,
      title: 'Household water survey',
      description: 'Ask the head of the household',
      publicToken: expect.stringMatching(UUID),
      publicUrl: `http://app.test/f/${res.body.publicToken}`,
      isPublished: false,
      closesAt: '2029-12-31T22:00:00.000Z',
      personalDataRetentionDays: null,
      fields: SURVEY_FIELDS,
      defaultLanguage: 'en',
      translations: {},
      submissionCount: 0,
      uncountedCount: 0,
      uncountedBy: {},
      createdAt: expect.stringMatching(TIMESTAMP),
      updatedAt: res.body.createdAt,
    });
    const read = await call(t.app, 'GET', formUrl(team.org.id, res.body.id), { as: team.viewer });
    expect([read.status, read.body]).toEqual([200, res.body]);
  });

  it('leaves links, description and closesAt null when not given; blank description is null', async () => {
    const project = await newProject();
    const res = await post(survey(project.id, { description: '   ' }), team.admin);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      indicatorId: null,
      reportingPeriodId: null,
      valueFieldKey: null,
      description: null,
      closesAt: null,
      isPublished: false,
    });
    const other = await postForm(t.app, team.admin, team.org.id, { projectId: project.id });
    expect(other.publicToken).not.toBe(res.body.publicToken);
  });

  it('refuses every body violation with 400 naming the field', async () => {
    const project = await newProject();
    const one = (field: Record<string, unknown>) => survey(project.id, { fields: [field] });
    const text = { type: 'text', label: 'Name', key: 'name' };
    const cases: [unknown, string[]][] = [
      [{}, ['projectId is required', 'title is required', 'fields is required']],
      [survey(project.id, { fields: [] }), ['fields must contain at least 1 items']],
      [
        survey(project.id, {
          fields: Array.from({ length: 201 }, (_, i) => ({ ...text, key: `q${i}` })),
        }),
        ['fields must contain at most 200 items'],
      ],
      [one({ ...text, key: 'Name' }), [KEY_RULE]],
      [one({ ...text, key: '1st' }), [KEY_RULE]],
      [one({ ...text, key: 'household-size' }), [KEY_RULE]],
      [one({ ...text, key: `a${'b'.repeat(64)}` }), [KEY_RULE]],
      [one({ ...text, type: 'select', options: [] }), ['fields.0.options must contain at least 1 items']],
      [
        one({ ...text, type: 'select', options: ['a', 'a'] }),
        ['fields.0.options must not contain duplicates'],
      ],
      [one({ ...text, type: 'select', options: ['a', ' '] }), ['fields.0.options.1 should not be empty']],
      [
        one({ ...text, type: 'photo' }),
        [
          'fields.0.type must be one of text, textarea, number, select, multi_select, date, boolean, location, file, note, calculate, group, repeat',
        ],
      ],
      [one({ ...text, label: '' }), ['fields.0.label should not be empty']],
      [one({ ...text, hints: 'x' }), ['property fields.0.hints should not exist']],
      [one({ ...text, showIf: { field: 'name' } }), ['fields.0.showIf.equals is required']],
      [survey(project.id, { title: ' ' }), ['title should not be empty']],
      [survey('p-1'), ['projectId must be a UUID']],
      [
        survey(project.id, { valueFieldKey: 'Size' }),
        ['valueFieldKey must be 1 to 64 lower-case letters, digits or underscores, starting with a letter'],
      ],
      [survey(project.id, { closesAt: 'tomorrow' }), ['closesAt must be a valid ISO 8601 timestamp']],
      [survey(project.id, { isPublished: true }), ['property isPublished should not exist']],
    ];
    for (const [body, messages] of cases) expectViolations(await post(body), ...messages);
    expect(await formsOf(project.id)).toEqual([]);
  });

  it('refuses fields breaking the form rules, all problems in one 400', async () => {
    const project = await newProject();
    const fields = [
      { type: 'text', label: 'Name', key: 'name', showIf: { field: 'source', equals: 'river' } },
      { type: 'select', label: 'Source', key: 'source', options: ['well', 'river'] },
      { type: 'number', label: 'Size', key: 'name' },
      { type: 'multi_select', label: 'Crops', key: 'crops' },
      { type: 'boolean', label: 'Consent', key: 'consent', options: ['yes', 'no'] },
      { type: 'text', label: 'Why', key: 'why', showIf: { field: 'source', equals: 'lake' } },
      { type: 'text', label: 'Where', key: 'where', showIf: { field: 'nowhere', equals: 'x' } },
    ];
    expectViolations(
      await post(survey(project.id, { fields })),
      'fields.0.showIf.field must be the key of an earlier field',
      'fields.2.key must be unique; name is used before',
      'fields.3.options is required for multi_select fields',
      'fields.4.options should not exist for boolean fields',
      'fields.5.showIf.equals must be one of well, river',
      'fields.6.showIf.field must be the key of an earlier field',
    );
    expect(await formsOf(project.id)).toEqual([]);
  });

  it('refuses links that do not fit together (400)', async () => {
    const { project, period, indicator } = await formTargets(t.app, t.database.db, team.officer, team.org.id);
    const cases: [Record<string, unknown>, string[]][] = [
      [{ indicatorId: indicator.id }, ['reportingPeriodId is required with indicatorId']],
      [
        { indicatorId: indicator.id, reportingPeriodId: period.id, valueFieldKey: 'name' },
        ['valueFieldKey must be the key of a number field'],
      ],
      [
        { indicatorId: indicator.id, reportingPeriodId: period.id, valueFieldKey: 'age' },
        ['valueFieldKey must be the key of a number field'],
      ],
      [{ valueFieldKey: 'household_size' }, ['valueFieldKey needs indicatorId']],
      [
        { valueFieldKey: 'consent', indicatorId: indicator.id },
        ['reportingPeriodId is required with indicatorId', 'valueFieldKey must be the key of a number field'],
      ],
    ];
    for (const [links, messages] of cases)
      expectViolations(await post(survey(project.id, links)), ...messages);
    expect(await formsOf(project.id)).toEqual([]);
  });

  it('answers 404 for an unknown or foreign project, indicator or reporting period', async () => {
    const { project, period, indicator } = await formTargets(t.app, t.database.db, team.officer, team.org.id);
    const foreign = await formTargets(t.app, t.database.db, team.outsider, team.outsiderOrg.id);
    for (const projectId of [MISSING_ID, foreign.project.id]) {
      expectError(await post(survey(projectId)), notFoundBody('Project'));
    }
    for (const indicatorId of [MISSING_ID, foreign.indicator.id]) {
      const body = survey(project.id, { indicatorId, reportingPeriodId: period.id });
      expectError(await post(body), notFoundBody('Indicator'));
    }
    for (const reportingPeriodId of [MISSING_ID, foreign.period.id]) {
      expectError(await post(survey(project.id, { reportingPeriodId })), notFoundBody('Reporting period'));
      const body = survey(project.id, { indicatorId: indicator.id, reportingPeriodId });
      expectError(await post(body), notFoundBody('Reporting period'));
    }
    expect(await formsOf(project.id)).toEqual([]);
  });

  it('refuses an unlinked or formula indicator and a period of another project (400)', async () => {
    const { project, period, indicator } = await formTargets(t.app, t.database.db, team.officer, team.org.id);
    const unlinked = await postIndicator(t.app, team.officer, team.org.id);
    expectError(
      await post(survey(project.id, { indicatorId: unlinked.id, reportingPeriodId: period.id })),
      badRequest('indicatorId must be an indicator linked to the project'),
    );
    const formula = await postIndicator(t.app, team.officer, team.org.id, {
      isFormula: true,
      formula: `${indicator.code} * 2`,
    });
    await linkIndicator(t.app, team.officer, team.org.id, project.id, formula.id);
    expectError(
      await post(survey(project.id, { indicatorId: formula.id, reportingPeriodId: period.id })),
      badRequest('Formula indicators are computed and cannot receive reports'),
    );
    const sibling = await newProject();
    const elsewhere = await createPeriod(t.database.db, team.org.id, sibling.id);
    expectError(
      await post(survey(project.id, { indicatorId: indicator.id, reportingPeriodId: elsewhere.id })),
      badRequest('reportingPeriodId must be a reporting period of this project'),
    );
    expect(await formsOf(project.id)).toEqual([]);
  });

  it('is for org_admin and me_officer: viewer and reporter 403, outsider 403, no session 401', async () => {
    const project = await newProject();
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(await post(survey(project.id), user), refusedTo(team, user, MANAGERS));
    }
    expectError(await post(survey(project.id), null), UNAUTHORIZED);
    expectError(await post(survey(project.id), team.outsider, team.outsiderOrg.id), notFoundBody('Project'));
    expect(await formsOf(project.id)).toEqual([]);
  });
});

describe('GET /orgs/:orgId/forms', () => {
  it('lists newest first, narrowed to a project, plain or paged', async () => {
    const project = await newProject();
    const other = await newProject();
    const first = await postForm(t.app, team.officer, team.org.id, { projectId: project.id, title: 'First' });
    const second = await postForm(t.app, team.admin, team.org.id, { projectId: project.id, title: 'Second' });
    await postForm(t.app, team.admin, team.org.id, { projectId: other.id });
    const third = await postForm(t.app, team.officer, team.org.id, { projectId: project.id, title: 'Third' });

    const res = await call(t.app, 'GET', `${formsUrl(team.org.id)}?projectId=${project.id}`, {
      as: team.viewer,
    });
    expect([res.status, res.body]).toEqual([200, [third, second, first]]);
    const paged = await call(
      t.app,
      'GET',
      `${formsUrl(team.org.id)}?projectId=${project.id}&page=2&limit=2`,
      {
        as: team.viewer,
      },
    );
    expect([paged.status, paged.body]).toEqual([
      200,
      { data: [first], meta: { total: 3, page: 2, limit: 2, totalPages: 2 } },
    ]);
  });

  it("shows a reporter only the forms of projects assigned to them; others see every project's", async () => {
    const own = await createTeam(t.app, t.database.db);
    const assigned = await createProject(t.database.db, own.org.id);
    const unassigned = await createProject(t.database.db, own.org.id);
    await assignProject(t.database.db, own.org.id, assigned.id, own.reporter.id);
    const mine = await postForm(t.app, own.officer, own.org.id, { projectId: assigned.id });
    const theirs = await postForm(t.app, own.officer, own.org.id, { projectId: unassigned.id });
    const list = (as: typeof own.admin, query = '') =>
      call(t.app, 'GET', `${formsUrl(own.org.id)}${query}`, { as });

    expect((await list(own.reporter)).body).toEqual([mine]);
    expect((await list(own.reporter, '?limit=5')).body).toEqual({
      data: [mine],
      meta: { total: 1, page: 1, limit: 5, totalPages: 1 },
    });
    expect((await list(own.reporter, `?projectId=${assigned.id}`)).body).toEqual([mine]);
    expectError(await list(own.reporter, `?projectId=${unassigned.id}`), notAssigned(ALL_ROLES));
    for (const user of [own.viewer, own.officer, own.admin]) {
      expect((await list(user)).body).toEqual([theirs, mine]);
    }
  });

  it('answers 401 without a session, 403 to an outsider, 404 for a foreign or unknown project', async () => {
    const project = await newProject();
    expectError(await call(t.app, 'GET', formsUrl(team.org.id)), UNAUTHORIZED);
    expectError(
      await call(t.app, 'GET', formsUrl(team.org.id), { as: team.outsider }),
      notAMember(ALL_ROLES),
    );
    const byProject = (orgId: string, projectId: string, as: Team['admin']) =>
      call(t.app, 'GET', `${formsUrl(orgId)}?projectId=${projectId}`, { as });
    expectError(await byProject(team.outsiderOrg.id, project.id, team.outsider), notFoundBody('Project'));
    expectError(await byProject(team.org.id, MISSING_ID, team.admin), notFoundBody('Project'));
    expectError(
      await call(t.app, 'GET', `${formsUrl(team.org.id)}?projectId=p-1`, { as: team.admin }),
      badRequest('projectId must be a UUID'),
    );
  });
});

describe('GET /orgs/:orgId/forms/:id', () => {
  it('returns the form to every role that may read its project', async () => {
    const project = await newProject();
    const form = await postForm(t.app, team.officer, team.org.id, { projectId: project.id });
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    for (const user of [team.admin, team.officer, team.viewer, team.reporter]) {
      const res = await call(t.app, 'GET', formUrl(team.org.id, form.id), { as: user });
      expect([res.status, res.body]).toEqual([200, form]);
    }
  });

  it('answers 403 to a reporter not assigned and an outsider, 401 without a session', async () => {
    const form = await postForm(t.app, team.officer, team.org.id, { projectId: (await newProject()).id });
    for (const user of [team.reporter, team.outsider]) {
      expectError(
        await call(t.app, 'GET', formUrl(team.org.id, form.id), { as: user }),
        refusedTo(team, user, ALL_ROLES),
      );
    }
    expectError(await call(t.app, 'GET', formUrl(team.org.id, form.id)), UNAUTHORIZED);
  });

  it('answers 404 for an unknown form or one of another organization, 400 for a malformed id', async () => {
    const form = await postForm(t.app, team.officer, team.org.id, { projectId: (await newProject()).id });
    expectError(
      await call(t.app, 'GET', formUrl(team.outsiderOrg.id, form.id), { as: team.outsider }),
      notFoundBody('Form'),
    );
    expectError(
      await call(t.app, 'GET', formUrl(team.org.id, MISSING_ID), { as: team.admin }),
      notFoundBody('Form'),
    );
    expectError(
      await call(t.app, 'GET', formUrl(team.org.id, 'f-1'), { as: team.admin }),
      badRequest('id must be a UUID'),
    );
  });
});

describe('writes on a form: PATCH, DELETE, publish, unpublish, regenerate-token', () => {
  const WRITES = [
    ['PATCH', undefined, { title: 'Renamed' }],
    ['DELETE', undefined, undefined],
    ['POST', 'publish', undefined],
    ['POST', 'unpublish', undefined],
    ['POST', 'regenerate-token', undefined],
  ] as const;

  it.each(WRITES)(
    '%s %s is refused to viewer, reporter, outsider and without a session',
    async (method, action, body) => {
      const project = await newProject();
      await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
      const form = await postForm(t.app, team.officer, team.org.id, { projectId: project.id });
      const url = formUrl(team.org.id, form.id, action);
      for (const user of [team.viewer, team.reporter, team.outsider]) {
        expectError(await call(t.app, method, url, { as: user, body }), refusedTo(team, user, MANAGERS));
      }
      expectError(await call(t.app, method, url, { body }), UNAUTHORIZED);
      expectError(
        await call(t.app, method, formUrl(team.outsiderOrg.id, form.id, action), { as: team.outsider, body }),
        notFoundBody('Form'),
      );
      expectError(
        await call(t.app, method, formUrl(team.org.id, MISSING_ID, action), { as: team.admin, body }),
        notFoundBody('Form'),
      );
      const after = await call(t.app, 'GET', formUrl(team.org.id, form.id), { as: team.admin });
      expect(after.body).toEqual(form);
    },
  );
});

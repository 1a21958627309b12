/**
 * ISO 8601 has a year 0000; PostgreSQL's dates and timestamps do not. `0000-01-01` passed the `date`
 * format and reached the database: a 500 on every route taking a day. A date, or a timestamp once its
 * offset is applied, must now fall in years 1 to 9999 (UTC), refused with the field's message otherwise.
 */
import { describe, expect, it } from 'vitest';
import { createProject } from '../helpers/factories.js';
import { formUrl, postForm } from '../helpers/forms.js';
import { call, expectViolations } from '../helpers/http.js';
import { programsUrl } from '../helpers/programs.js';
import { useSuite } from '../helpers/suite.js';

const { t, team } = useSuite();

describe('a day outside years 1 to 9999', () => {
  it('is a 400 naming the field, in a body', async () => {
    const res = await call(t.app, 'POST', programsUrl(team.org.id), {
      as: team.admin,
      body: { name: 'Year zero', startDate: '0000-01-01', endDate: '0000-12-31' },
    });
    expectViolations(
      res,
      'startDate must be a valid date (YYYY-MM-DD)',
      'endDate must be a valid date (YYYY-MM-DD)',
    );
  });

  it('is a 400 naming the parameter, in a query', async () => {
    const res = await call(t.app, 'GET', `/orgs/${team.org.id}/data-quality?periodFrom=0000-06-30`, {
      as: team.admin,
    });
    expectViolations(res, 'periodFrom must be a valid date (YYYY-MM-DD)');
  });

  it('is a 400 for a timestamp whose offset carries it into year 0 or past 9999', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const form = await postForm(t.app, team.admin, team.org.id, { projectId: project.id });
    for (const closesAt of [
      '0000-12-31T23:00:00Z',
      '0001-01-01T00:00:00+14:00',
      '9999-12-31T23:00:00-05:00',
    ]) {
      const res = await call(t.app, 'PATCH', formUrl(team.org.id, form.id), {
        as: team.admin,
        body: { closesAt },
      });
      expectViolations(res, 'closesAt must be a valid ISO 8601 timestamp');
    }
  });

  it('takes the first and the last day of the range', async () => {
    const res = await call(t.app, 'POST', programsUrl(team.org.id), {
      as: team.admin,
      body: { name: 'Whole range', startDate: '0001-01-01', endDate: '9999-12-31' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ startDate: '0001-01-01', endDate: '9999-12-31' });
    const read = await call(t.app, 'GET', `${programsUrl(team.org.id)}/${res.body.id}`, { as: team.admin });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ startDate: '0001-01-01', endDate: '9999-12-31' });
    const project = await createProject(t.database.db, team.org.id);
    const form = await postForm(t.app, team.admin, team.org.id, { projectId: project.id });
    const closing = await call(t.app, 'PATCH', formUrl(team.org.id, form.id), {
      as: team.admin,
      body: { closesAt: '9999-12-31T18:59:59-05:00' },
    });
    expect(closing.status, JSON.stringify(closing.body)).toBe(200);
    expect(closing.body.closesAt).toBe('9999-12-31T23:59:59.000Z');
  });
});

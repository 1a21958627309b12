import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { activities } from '../../src/modules/activities/activities.tables.js';
import { feedEvents } from '../../src/modules/feed/feed.tables.js';
import { attachments } from '../../src/modules/files/files.tables.js';
import { formSubmissions, forms } from '../../src/modules/forms/forms.tables.js';
import { createOrg, createProject, registerUser } from '../helpers/factories.js';
import { publishedForm } from '../helpers/forms.js';
import { call, type Call } from '../helpers/http.js';
import { useSuite } from '../helpers/suite.js';

const { t, team } = useSuite();

const BASE = 'http://api.test';
const next = (pathAndQuery: string) => `<${BASE}${pathAndQuery}>; rel="next"`;

/** Rows straight into the database, 500 a statement: through the API thousands would take minutes. */
async function inChunks<T>(rows: T[], insert: (slice: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) await insert(rows.slice(i, i + 500));
}

/** The path and query a `rel="next"` Link points to, for following it through the app. */
function nextTarget(res: Call): string {
  const link = String(res.headers.link);
  expect(link.startsWith(`<${BASE}/`) && link.endsWith('>; rel="next"'), link).toBe(true);
  return link.slice(BASE.length + 1, link.indexOf('>'));
}

const ids = (res: Call) =>
  (Array.isArray(res.body) ? res.body : res.body.data).map((item: { id: string }) => item.id);

/** The first 1,000 in the documented order: pages 1 to 10 of 100 (only the ends when `ends` is set). */
async function firstThousandPaged(url: string, ends = false): Promise<string[]> {
  const pages: string[] = [];
  const separator = url.includes('?') ? '&' : '?';
  for (const page of ends ? [1, 10] : [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) {
    const res = await call(t.app, 'GET', `${url}${separator}page=${page}&limit=100`, { as: team.admin });
    expect(res.status).toBe(200);
    pages.push(...ids(res));
  }
  return pages;
}

describe('finding 5: unpaged lists stop at 1,000 with a next link', () => {
  let projectId: string;
  let url: string;
  let planned: { id: string; startDate: string }[];

  beforeAll(async () => {
    const project = await createProject(t.database.db, team.org.id);
    projectId = project.id;
    url = `/orgs/${team.org.id}/projects/${projectId}/activities`;
    // 1,001 planned and 1,000 completed, start dates shared by ten at a time so ties fall back to the id.
    const rows = Array.from({ length: 2001 }, (_, i) => ({
      id: newId(),
      orgId: team.org.id,
      projectId,
      title: `Training ${i}`,
      startDate: new Date(Date.UTC(2026, 0, 1 + Math.floor(i / 10))).toISOString().slice(0, 10),
      endDate: '2026-12-31',
      status: i < 1001 ? ('planned' as const) : ('completed' as const),
    }));
    await inChunks(rows, (slice) => t.database.db.insert(activities).values(slice));
    planned = rows.filter((row) => row.status === 'planned');
  });

  it('returns the first 1,000 activities in the documented order, with a Link to page 11 of 100', async () => {
    const res = await call(t.app, 'GET', url, { as: team.admin });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body).toHaveLength(1000);
    expect(res.headers.link).toBe(next(`${url}?page=11&limit=100`));
    expect(ids(res)).toEqual(await firstThousandPaged(url));
  });

  it('keeps the filters in the Link, which leads to the 1,001st item; none at exactly 1,000 or on a page', async () => {
    const filtered = `${url}?status=planned&from=2026-01-01`;
    const res = await call(t.app, 'GET', filtered, { as: team.admin });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1000);
    expect(res.headers.link).toBe(next(`${url}?status=planned&from=2026-01-01&page=11&limit=100`));
    // Newest first: latest startDate, then the larger id.
    const expected = [...planned]
      .sort((a, b) => b.startDate.localeCompare(a.startDate) || b.id.localeCompare(a.id))
      .map((row) => row.id);
    expect(ids(res)).toEqual(expected.slice(0, 1000));

    const following = await call(t.app, 'GET', nextTarget(res), { as: team.admin });
    expect(following.status).toBe(200);
    expect(following.body.meta).toEqual({ total: 1001, page: 11, limit: 100, totalPages: 11 });
    expect(ids(following)).toEqual(expected.slice(1000));
    expect(following.headers.link).toBeUndefined();

    // The rest of the query is carried over encoded: nothing in it can end the URL or the header.
    const odd = await call(t.app, 'GET', `${url}?note=a%3E%0D%0Ab+c&status=planned`, { as: team.admin });
    expect(odd.headers.link).toBe(next(`${url}?note=a%3E%0D%0Ab+c&status=planned&page=11&limit=100`));

    // Exactly 1,000: nothing more to link to; a page carries its own meta instead.
    const thousand = await call(t.app, 'GET', `${url}?status=completed`, { as: team.admin });
    expect(thousand.status).toBe(200);
    expect(thousand.body).toHaveLength(1000);
    expect(thousand.headers.link).toBeUndefined();

    const paged = await call(t.app, 'GET', `${url}?status=planned&limit=100`, { as: team.admin });
    expect(paged.status).toBe(200);
    expect(paged.body.meta).toEqual({ total: 1001, page: 1, limit: 100, totalPages: 11 });
    expect(paged.headers.link).toBeUndefined();
  });

  it('caps form submissions, attachments and forms the same way', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const form = await publishedForm(t.app, team.officer, team.org.id, {
      projectId: project.id,
      fields: [{ type: 'text', label: 'Name', key: 'name' }],
    });
    const at = Date.parse('2026-05-01T00:00:00.000Z');
    await inChunks(
      Array.from({ length: 1001 }, (_, i) => ({
        orgId: team.org.id,
        formId: form.id,
        answers: { name: `Respondent ${i}` },
        counted: false,
        submittedAt: new Date(at + i * 1000),
      })),
      (slice) => t.database.db.insert(formSubmissions).values(slice),
    );
    await inChunks(
      Array.from({ length: 1001 }, (_, i) => ({
        orgId: team.org.id,
        projectId: project.id,
        title: `Receipt ${i}`,
        fileName: `receipt-${i}.pdf`,
        contentType: 'application/pdf',
        size: 1,
        storageKey: randomUUID(),
      })),
      (slice) => t.database.db.insert(attachments).values(slice),
    );
    await inChunks(
      Array.from({ length: 1000 }, (_, i) => ({
        orgId: team.org.id,
        projectId: project.id,
        title: `Survey ${i}`,
        publicToken: randomUUID(),
        fields: [],
      })),
      (slice) => t.database.db.insert(forms).values(slice),
    );

    const lists = [
      `/orgs/${team.org.id}/forms/${form.id}/submissions`,
      `/orgs/${team.org.id}/projects/${project.id}/attachments`,
      `/orgs/${team.org.id}/forms?projectId=${project.id}`,
    ];
    for (const list of lists) {
      const res = await call(t.app, 'GET', list, { as: team.admin });
      expect(res.status, list).toBe(200);
      expect(res.body, list).toHaveLength(1000);
      const [path, query] = list.split('?');
      expect(res.headers.link, list).toBe(next(`${path}?${query ? `${query}&` : ''}page=11&limit=100`));
      const got = ids(res);
      expect([...got.slice(0, 100), ...got.slice(900)], list).toEqual(await firstThousandPaged(list, true));
    }
  });

  it('gives the activity feed its 50 newest, with a Link to page 2 of 50 when more exist', async () => {
    const owner = await registerUser(t.app);
    const org = await createOrg(t.app, owner);
    const feedUrl = `/orgs/${org.id}/activity-feed`;
    const already = await call(t.app, 'GET', `${feedUrl}?limit=100`, { as: owner });
    const event = (i: number) => ({
      orgId: org.id,
      type: 'member.invited' as const,
      occurredAt: new Date(Date.parse('2026-06-01T00:00:00.000Z') + i * 1000),
      subjectType: 'invitation',
      subjectId: newId(),
      subjectLabel: `person-${i}@example.org`,
      summary: `person-${i}@example.org was invited`,
    });
    const upTo50 = 50 - (already.body.meta.total as number);
    await t.database.db.insert(feedEvents).values(Array.from({ length: upTo50 }, (_, i) => event(i)));

    const fifty = await call(t.app, 'GET', feedUrl, { as: owner });
    expect(fifty.status).toBe(200);
    expect(fifty.body).toHaveLength(50);
    expect(fifty.headers.link).toBeUndefined();

    await t.database.db.insert(feedEvents).values(event(upTo50));
    const res = await call(t.app, 'GET', feedUrl, { as: owner });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(50);
    expect(res.headers.link).toBe(next(`${feedUrl}?page=2&limit=50`));
    const firstPage = await call(t.app, 'GET', `${feedUrl}?page=1&limit=50`, { as: owner });
    expect(ids(res)).toEqual(ids(firstPage));
    const second = await call(t.app, 'GET', `${feedUrl}?page=2&limit=50`, { as: owner });
    expect(second.body.data).toHaveLength(1);
    expect(second.headers.link).toBeUndefined();
  });
});

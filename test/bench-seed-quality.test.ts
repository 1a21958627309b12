import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { qualitySaves } from '../bench/quality.js';
import { seed, type Query, type SeedManifest } from '../bench/seed/index.js';
import { BENCH_PII_KEY } from '../bench/seed/participants.js';
import type { Database } from '../src/db/client.js';
import { buildTestApp, openTestDatabase, type TestApp } from './helpers/app.js';
import { call, sessionCookie, type Caller } from './helpers/http.js';

/** A sliver of `small`, as in bench-seed.test.ts: the big project keeps its 20 indicators whatever the scale. */
const SCALE = 0.05;

let database: Database;
let q: Query;
let manifest: SeedManifest;
let t: TestApp;
let admin: Caller;

beforeAll(async () => {
  database = await openTestDatabase();
  const client = (database.db as unknown as { $client: { query: Query } }).$client;
  q = (sql, params) => client.query(sql, params);
  manifest = await seed({ query: q, size: 'small', scale: SCALE });
  t = await buildTestApp({ PII_KEY: BENCH_PII_KEY }, { database, worker: false });
  const login = await call(t.app, 'POST', '/auth/login', { body: manifest.admin });
  expect(login.status).toBe(200);
  admin = { token: sessionCookie(login)! };
}, 60_000);
afterAll(async () => {
  await t?.close();
  await database?.close();
});

const reportPath = (id: string) => `/orgs/${manifest.orgId}/indicator-reports/${id}`;

describe('bench seed: the quality benchmark’s drafts', () => {
  it('makes as many checked indicators as unchecked ones, each with a draft holding a value per open period', async () => {
    const { quality } = manifest;
    expect(quality.projectId).toBe(manifest.bigProject.id);
    expect(quality.checked.length).toBeGreaterThanOrEqual(2);
    expect(quality.unchecked).toHaveLength(quality.checked.length);
    const reports = [...quality.checked, ...quality.unchecked].flatMap((indicator) => indicator.reports);
    expect(reports).toHaveLength(quality.checked.length * 2 * 6);
    const { rows } = await q(
      `SELECT r.id, r.status, r.value, p.is_locked AS locked, r.project_id AS "projectId"
         FROM indicator_reports r JOIN reporting_periods p ON p.id = r.reporting_period_id
        WHERE r.id = ANY($1::uuid[])`,
      [reports.map((report) => report.id)],
    );
    expect(rows).toHaveLength(reports.length);
    for (const row of rows as any[]) {
      const seeded = reports.find((report) => report.id === row.id)!;
      expect(row).toEqual({
        id: seeded.id,
        status: 'draft',
        value: seeded.value,
        locked: false,
        projectId: quality.projectId,
      });
    }
  });

  it('writes two rules per checked indicator, none naming an unchecked one, whose checks are off', async () => {
    const { quality } = manifest;
    const { rows: rules } = await q(
      `SELECT r.id, r.left_expression AS "left", r.project_ids AS "projectIds",
              array_agg(i.indicator_id::text ORDER BY i.indicator_id) AS reads
         FROM validation_rules r JOIN validation_rule_inputs i ON i.rule_id = r.id GROUP BY r.org_id, r.id`,
    );
    expect(rules).toHaveLength(quality.checked.length * 2);
    expect((rules as any[]).map((rule) => rule.id).sort()).toEqual([...quality.ruleIds].sort());
    for (const indicator of quality.checked) {
      const reading = (rules as any[]).filter((rule) => rule.reads.includes(indicator.id));
      expect(reading.map((rule) => rule.left).sort()).toEqual([indicator.code, `${indicator.code}[female]`]);
      expect(reading.find((rule) => rule.left === indicator.code).reads).toContain(quality.partnerId);
      for (const rule of reading) expect(rule.projectIds).toEqual([quality.projectId]);
    }
    const unchecked = quality.unchecked.map((indicator) => indicator.id);
    expect(
      (rules as any[]).filter((rule) => rule.reads.some((id: string) => unchecked.includes(id))),
    ).toEqual([]);
    const { rows: checks } = await q(
      'SELECT id, quality_checks AS checks FROM indicators WHERE id = ANY($1::uuid[])',
      [[...quality.checked, ...quality.unchecked].map((indicator) => indicator.id)],
    );
    for (const row of checks as any[]) {
      expect(row.checks).toEqual(unchecked.includes(row.id) ? { method: 'off' } : null);
    }
  });

  it('has the bench’s saves accepted as changes that leave the flags empty, on both sides', async () => {
    const pool = { query: q } as unknown as pg.Pool;
    const saves = await qualitySaves(manifest, pool, { authorization: `Bearer ${admin.token}` });
    for (const save of Object.values(saves)) {
      const before = await call(t.app, 'GET', save.path, { as: admin });
      expect(before.status).toBe(200);
      const saved = await call(t.app, 'PATCH', save.path, { as: admin, body: JSON.parse(save.body) });
      expect(saved.status).toBe(200);
      expect(saved.body.value).not.toBe(before.body.value);
      expect(saved.body).toMatchObject({ status: 'draft', flags: [] });
    }
  });

  it('flags a checked draft that breaks its rule or stands out, and not an unchecked one', async () => {
    const { quality } = manifest;
    const checked = quality.checked[0]!.reports.at(-1)!;
    const unchecked = quality.unchecked[0]!.reports.at(-1)!;
    // Far above the partner's count and the indicator's history alike.
    const wild = { value: checked.value * 20, disaggregatedValues: null };
    const flagged = await call(t.app, 'PATCH', reportPath(checked.id), { as: admin, body: wild });
    expect(flagged.status).toBe(200);
    expect((flagged.body.flags as any[]).map((flag) => flag.kind).sort()).toEqual(['outlier', 'rule']);
    expect(flagged.body.flags.find((flag: any) => flag.kind === 'rule').message).toMatch(
      /^Trained within registered/,
    );
    const quiet = await call(t.app, 'PATCH', reportPath(unchecked.id), {
      as: admin,
      body: { value: unchecked.value * 20, disaggregatedValues: null },
    });
    expect(quiet.status).toBe(200);
    expect(quiet.body.flags).toEqual([]);
  });
});

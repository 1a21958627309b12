/**
 * `npm run bench`: the load scenarios against the service and against the floor (floor.ts), in one run,
 * on the PostgreSQL of DATABASE_URL seeded by `npm run seed:bench`. Prints a table and writes
 * bench/results/latest.json. `--smoke` runs every scenario for a second (CI checks that it all works).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { BENCH_PII_KEY } from './seed/participants.js';
import { captureStatements } from './capture.js';
import { load, type LoadResult } from './load.js';
import { readManifest, type Manifest } from './manifest.js';
import { startServer, type Server } from './processes.js';
import { machine, printTable, type Row } from './report.js';
import { scenarios, type FloorScenario, type Scenario } from './scenarios.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    few: { type: 'string', default: '1' },
    only: { type: 'string' },
    smoke: { type: 'boolean', default: false },
  },
});
const duration = args.smoke ? 1 : Number(args.duration);
const many = args.smoke ? 4 : Number(args.connections);
const few = args.smoke ? 1 : Number(args.few);
/** The login storm: readers, and clients signing in over and over. */
const stormSize = args.smoke ? { readers: 2, logins: 2 } : { readers: 4, logins: 8 };

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl || !/^postgres(ql)?:/.test(databaseUrl)) {
  console.error('bench needs DATABASE_URL pointing at the PostgreSQL seeded by `npm run seed:bench`');
  process.exit(1);
}

const env: Record<string, string> = {
  NODE_ENV: 'production',
  DATABASE_URL: databaseUrl,
  DATA_DIR: mkdtempSync(path.join(tmpdir(), 'mel-bench-')),
  JWT_SECRET: randomBytes(32).toString('base64url'),
  // The key the seed sealed personal data under (bench/seed.ts).
  PII_KEY: process.env.PII_KEY ?? BENCH_PII_KEY,
  BASE_URL: 'http://127.0.0.1',
  LOG_LEVEL: 'warn',
  // Limits stay on (their cost is part of the service) but high enough never to refuse the load.
  RATE_LIMIT_MAX: '1000000',
  PUBLIC_RATE_LIMIT_MAX: '1000000',
  AUTH_RATE_LIMIT_MAX: '1000000',
};

const sql = new pg.Pool({ connectionString: databaseUrl, max: 2 });

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** The counted value of the intake indicator and how many submissions counted towards it. */
async function intakeState(manifest: Manifest) {
  const { intake } = manifest;
  const { rows } = await sql.query<{ value: number | null; counted: string }>(
    `SELECT (SELECT value FROM indicator_reports
              WHERE project_id = $1 AND indicator_id = $2 AND reporting_period_id = $3) AS value,
            (SELECT count(*) FROM form_submissions WHERE form_id = $4 AND counted) AS counted`,
    [intake.projectId, intake.indicatorId, intake.periodId, intake.formId],
  );
  return { value: rows[0]?.value ?? 0, counted: Number(rows[0]?.counted ?? 0) };
}

/** One export read to the end, with the server's resident memory sampled every 20 ms. */
async function exportOnce(server: Server, path_: string, headers: Record<string, string>) {
  let peak = server.rss();
  const sampler = setInterval(() => (peak = Math.max(peak, server.rss())), 20);
  const started = performance.now();
  try {
    const res = await fetch(`${server.url}${path_}`, { headers, signal: AbortSignal.timeout(600_000) });
    if (!res.ok) throw new Error(`${server.name} export: ${res.status}`);
    let lines = 0;
    for await (const chunk of res.body ?? []) {
      for (const byte of chunk as Uint8Array) if (byte === 10) lines += 1;
    }
    const seconds = (performance.now() - started) / 1000;
    return { rows: lines - (server.name === 'service' ? 1 : 0), seconds, peakRss: peak };
  } finally {
    clearInterval(sampler);
  }
}

type Export = Awaited<ReturnType<typeof exportOnce>>;

/** An export's row: rows a second, against another export's. */
function exportRow(scenario: string, ours: Export, bare: Export, note: string): Row {
  const rate = (run: Export) => run.rows / run.seconds;
  return {
    scenario,
    connections: 1,
    rps: rate(ours),
    p50: ours.seconds * 1000,
    p99: null,
    floorRps: rate(bare),
    ratio: rate(ours) / rate(bare),
    note,
  };
}

function loadRow(scenario: Scenario, service: LoadResult, floor: LoadResult | null, note = ''): Row {
  return {
    scenario: scenario.title,
    connections: scenario.connections === 'many' ? many : few,
    rps: service.rps,
    p50: service.p50,
    p99: service.p99,
    floorRps: floor?.rps ?? null,
    ratio: floor ? service.rps / floor.rps : null,
    note: [
      service.failures || floor?.failures ? `failures ${service.failures}/${floor?.failures ?? 0}` : '',
      note,
    ]
      .filter(Boolean)
      .join('; '),
  };
}

async function main() {
  const manifest = readManifest();
  const config = loadConfig(env);
  console.log(`bench: ${manifest.size} data set (seed ${manifest.seed}), ${duration} s per run`);

  const service = await startServer('service', path.join(root, 'src/server.ts'), env);
  let floor: Server | undefined;
  try {
    const login = await fetch(`${service.url}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(manifest.admin),
    });
    if (!login.ok)
      throw new Error(`sign-in as ${manifest.admin.email}: ${login.status} ${await login.text()}`);
    const { accessToken } = (await login.json()) as { accessToken: string };
    const auth = { authorization: `Bearer ${accessToken}` };
    const { id: reportId } = await post(
      `${service.url}/orgs/${manifest.orgId}/reports`,
      {
        title: 'Stored bench report',
        projectId: manifest.bigProject.id,
        reportType: 'ad_hoc',
        periodIds: manifest.bigProject.periodIds,
      },
      auth,
    );
    const chosen = scenarios(manifest, accessToken, String(reportId)).filter(
      (s) => !args.only || args.only.split(',').includes(s.name),
    );

    // Record what each request costs in SQL; the floor runs exactly that.
    const captured = await captureStatements(
      config,
      Object.fromEntries(chosen.map((s) => [s.name, s.request])),
    );
    const floorScenarios: Record<string, FloorScenario> = {};
    for (const s of chosen) {
      const { statements, status, body } = captured[s.name]!;
      if (status >= 300) throw new Error(`${s.name}: the service answered ${status}: ${body.slice(0, 300)}`);
      floorScenarios[s.name] = {
        method: s.request.method,
        statements,
        transaction: s.writes,
        csv: s.kind === 'export',
        freshIds: s.freshIdsFrom?.(body) ?? [],
      };
    }
    const floorFile = path.join(env.DATA_DIR!, 'floor.json');
    writeFileSync(floorFile, JSON.stringify(floorScenarios));
    floor = await startServer('floor', path.join(root, 'bench/floor.ts'), {
      DATABASE_URL: databaseUrl!,
      FLOOR_SCENARIOS: floorFile,
    });

    const rows: Row[] = [];
    for (const s of chosen) {
      const statements = floorScenarios[s.name]!.statements.length;
      process.stdout.write(`- ${s.title}: ${statements} statements ... `);
      if (s.kind === 'export') {
        const ours = await exportOnce(service, s.request.path, s.request.headers ?? {});
        const bare = await exportOnce(floor, `/${s.name}`, {});
        rows.push(
          exportRow(
            s.title,
            ours,
            bare,
            `rows/s; peak RSS ${Math.round(ours.peakRss / 2 ** 20)} MB (floor ${Math.round(bare.peakRss / 2 ** 20)} MB); ${ours.rows} rows`,
          ),
        );
        console.log('done');
        continue;
      }
      const connections = s.connections === 'many' ? many : few;
      const target = { method: s.request.method, body: s.request.body, connections };
      // Warm both (JIT, prepared statements, caches) before measuring.
      const warm = Math.min(2, duration);
      await load({
        ...target,
        url: `${service.url}${s.request.path}`,
        headers: s.request.headers,
        duration: warm,
      });
      await load({
        ...target,
        url: `${floor.url}/${s.name}`,
        headers: { 'content-type': 'application/json' },
        duration: warm,
      });

      const before = s.name === 'submission' ? await intakeState(manifest) : null;
      const ours = await load({
        ...target,
        url: `${service.url}${s.request.path}`,
        headers: s.request.headers,
        duration,
      });
      let note = `${statements} SQL statements`;
      if (before) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        const after = await intakeState(manifest);
        const increment = Number(manifest.intake.answers[manifest.intake.fieldName] ?? 1);
        const exact = after.value - before.value === (after.counted - before.counted) * increment;
        const acknowledged = after.counted - before.counted >= ours.requests;
        note +=
          exact && acknowledged ? '; count exact' : `; COUNT WRONG (${JSON.stringify({ before, after })})`;
        if (!exact || !acknowledged) process.exitCode = 1;
      }
      const bare = await load({
        ...target,
        url: `${floor.url}/${s.name}`,
        headers: { 'content-type': 'application/json' },
        duration,
      });
      rows.push(loadRow(s, ours, bare, note));
      console.log('done');
    }

    if (!args.only || args.only.split(',').includes('storm'))
      rows.push(await loginStorm(manifest, service, auth));
    if (!args.only || args.only.split(',').includes('personal'))
      rows.push(...(await personalDataOverhead(manifest, service, auth)));

    printTable(rows);
    const results = {
      at: new Date().toISOString(),
      machine: await machine(sql),
      manifest: summary(manifest),
      duration,
      rows,
    };
    mkdirSync(path.join(root, 'bench/results'), { recursive: true });
    const file = path.join(root, 'bench/results', args.smoke ? 'smoke.json' : 'latest.json');
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`written to ${path.relative(process.cwd(), file)}`);
    if (rows.some((r) => r.note.includes('failures'))) process.exitCode = 1;
  } finally {
    await floor?.stop();
    await service.stop();
    await sql.end();
    rmSync(env.DATA_DIR!, { recursive: true, force: true });
  }
}

/** Reads of a project alone, then the same reads while others sign in with bcrypt at the default cost. */
async function loginStorm(manifest: Manifest, service: Server, auth: Record<string, string>): Promise<Row> {
  process.stdout.write('- login storm ... ');
  const reads = {
    url: `${service.url}/orgs/${manifest.orgId}/projects/${manifest.bigProject.id}`,
    headers: auth,
    connections: stormSize.readers,
    duration,
  };
  const alone = await load(reads);
  const storm = load({
    url: `${service.url}/auth/login`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(manifest.admin),
    connections: stormSize.logins,
    duration,
  });
  const during = await load(reads);
  const logins = await storm;
  console.log('done');
  return {
    scenario: 'reads during a login storm',
    connections: stormSize.readers,
    rps: during.rps,
    p50: during.p50,
    p99: during.p99,
    floorRps: null,
    ratio: null,
    note: `p99 ${during.p99} ms vs ${alone.p99} ms alone (x${(during.p99 / Math.max(alone.p99, 1)).toFixed(1)}); ${logins.rps.toFixed(1)} logins/s${
      during.failures || logins.failures ? `; failures ${during.failures}/${logins.failures}` : ''
    }`,
  };
}

/**
 * What protecting personal data costs (issue 22): the same list and the same export read by an officer
 * (phones and national ids opened, an audit entry written) and by a viewer (neither: viewers get no
 * personal field, so nothing is opened and nothing recorded). Goal: the officer's throughput at least
 * 0.90 of the viewer's. The list is an activity of 100 people registered through the API here.
 */
async function personalDataOverhead(
  manifest: Manifest,
  service: Server,
  auth: Record<string, string>,
): Promise<Row[]> {
  process.stdout.write('- personal data: decryption and audit ... ');
  const org = `${service.url}/orgs/${manifest.orgId}`;
  const viewer = manifest.users.find((user) => user.role === 'viewer');
  if (!viewer) throw new Error('the seed has no viewer');
  const { accessToken } = await post(`${service.url}/auth/token`, {
    email: viewer.email,
    password: viewer.password,
  });
  const asViewer = { authorization: `Bearer ${String(accessToken)}` };
  const { id: activityId } = await post(
    `${org}/projects/${manifest.bigProject.id}/activities`,
    { title: 'Bench: 100 participants', startDate: '2026-01-10', endDate: '2026-01-12' },
    auth,
  );
  const run = randomBytes(4).toString('hex');
  const people = Array.from({ length: 100 }, (_, i) => ({
    firstName: `Person${i}`,
    lastName: `Bench${run}`,
    sex: i % 2 ? 'female' : 'male',
    dateOfBirth: `19${50 + (i % 50)}-0${1 + (i % 9)}-1${i % 10}`,
    phone: `+2547${String(10_000_000 + i)}`,
    nationalId: `BENCH-${run}-${i}`,
    village: 'Bench village',
    district: 'Bench district',
  }));
  await post(`${org}/activities/${String(activityId)}/participants`, { participants: people }, auth);

  const list = `${org}/activities/${String(activityId)}/participants`;
  const compare = async (headers: Record<string, string>) => {
    await load({ url: list, headers, connections: many, duration: Math.min(2, duration) });
    return load({ url: list, headers, connections: many, duration });
  };
  const officer = await compare(auth);
  const bare = await compare(asViewer);
  const csvPath = `/orgs/${manifest.orgId}/forms/${manifest.csvForm.id}/submissions.csv`;
  const csvOfficer = await exportOnce(service, csvPath, auth);
  const csvViewer = await exportOnce(service, csvPath, asViewer);
  console.log('done');
  return [
    {
      scenario: 'participants of an activity (100), opened + audited',
      connections: many,
      rps: officer.rps,
      p50: officer.p50,
      p99: officer.p99,
      floorRps: bare.rps,
      ratio: officer.rps / bare.rps,
      note: `"floor": the same list as a viewer (nothing opened, nothing audited); goal >= 0.90${
        officer.failures || bare.failures ? `; failures ${officer.failures}/${bare.failures}` : ''
      }`,
    },
    exportRow(
      'CSV export with personal answers, audited',
      csvOfficer,
      csvViewer,
      'rows/s; "floor": the same export as a viewer (personal answers empty, no audit entry); goal >= 0.90',
    ),
  ];
}

function summary(manifest: Manifest) {
  return { size: manifest.size, seed: manifest.seed, seededAt: manifest.seededAt, counts: manifest.counts };
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
await main();

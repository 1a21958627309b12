/**
 * `npm run bench`: the load scenarios against the service and against the floor (floor.ts), in one run,
 * on the PostgreSQL of DATABASE_URL seeded by `npm run seed:bench`. Prints a table and the targets of
 * issue 26, and writes bench/results/latest.json. `--smoke` runs every scenario for a second (CI checks
 * that it all works); `--only project,csv,...` runs the scenarios named.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { uuidV7Time } from '../src/lib/ids.js';
import { BENCH_PII_KEY } from './seed/participants.js';
import { bulkValues } from './bulk.js';
import { captureStatements, type Statement } from './capture.js';
import { loginStorm, personalExport, personalList, type Settings } from './comparisons.js';
import { combined, load, type LoadOptions, type LoadResult } from './load.js';
import { readManifest, type Manifest } from './manifest.js';
import { documents, exportOnce, exportRow, loadRow, post } from './measure.js';
import { qualitySave } from './quality.js';
import { startServer, type Server } from './processes.js';
import { machine, printTable, type Row } from './report.js';
import { scenarios, type FloorScenario, type Scenario, type StoredReport } from './scenarios.js';
import { judgeTargets, targetsTable } from './targets.js';
import { WebhookSubscription } from './webhook.js';

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
const settings: Settings = {
  duration,
  many,
  storm: args.smoke ? { readers: 2, logins: 2 } : { readers: 4, logins: 8 },
};
/** Warm-up of each side before it is measured (JIT, prepared statements, caches). */
const warm = Math.min(2, duration);
/**
 * How long the webhook worker may take to deliver what the submission run queued before the floor's
 * run (which drops what is left): the run must fit its time.
 */
const DRAIN_TIMEOUT_MS = 120_000;
const only = args.only?.split(',');
const chosen = (name: string) => !only || only.includes(name);

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
  // The submission scenario's webhook goes to a receiver of this process, over http on loopback.
  WEBHOOK_ALLOW_PRIVATE: 'true',
};

const sql = new pg.Pool({ connectionString: databaseUrl, max: 2 });

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

/**
 * The ids the service made for the recorded request (UUIDv7s no older than it, among its statements'
 * parameters): the floor gives each of its requests new ones, or its inserts would collide.
 */
function madeDuring(statements: Statement[], sentAt: number): string[] {
  const ids = statements
    .flatMap((statement) => statement.params)
    .filter((param): param is string => typeof param === 'string' && (uuidV7Time(param) ?? 0) >= sentAt - 1);
  return [...new Set(ids)];
}

/** A stored report to read (assembled here, as the big project's over all its periods) and its ETag. */
async function storedReport(service: Server, manifest: Manifest, auth: Record<string, string>) {
  const reports = `${service.url}/orgs/${manifest.orgId}/reports`;
  const { id } = await post(
    reports,
    {
      title: 'Stored bench report',
      projectId: manifest.bigProject.id,
      reportType: 'ad_hoc',
      periodIds: manifest.bigProject.periodIds,
    },
    auth,
  );
  const first = await fetch(`${reports}/${String(id)}`, { headers: auth });
  await first.arrayBuffer();
  const etag = first.headers.get('etag');
  if (!first.ok || !etag) throw new Error(`GET the stored report: ${first.status}, ETag ${etag}`);
  return { id: String(id), etag } satisfies StoredReport;
}

interface Sides {
  service: Server;
  floor: Server;
  manifest: Manifest;
  webhook: WebhookSubscription | null;
}

/** Requests each side answered under load (warm-ups included): a CPU profile's time is divided by them. */
const served = { service: 0, floor: 0 };
function tally(side: keyof typeof served, result: LoadResult): LoadResult {
  served[side] += result.requests + result.failures;
  return result;
}

/** A load scenario: both sides warmed, then measured interleaved (service, floor, floor, service). */
async function measureLoad(s: Scenario, statementCount: number, sides: Sides): Promise<Row> {
  const connections = s.connections === 'many' ? many : few;
  const common = {
    method: s.request.method,
    body: s.request.body,
    connections,
    accept: s.accept,
    // Both sides get it: the load generator shares the machine, and builds each such request anew.
    freshHeader: s.freshHeader,
  };
  const onService = (seconds: number) =>
    load({
      ...common,
      url: `${sides.service.url}${s.request.path}`,
      headers: s.request.headers,
      duration: seconds,
    }).then((result) => tally('service', result));
  const onFloor = (seconds: number) =>
    load({
      ...common,
      url: `${sides.floor.url}/${s.name}`,
      headers: { 'content-type': 'application/json' },
      duration: seconds,
    } satisfies LoadOptions).then((result) => tally('floor', result));
  const note = `${statementCount} SQL statements`;
  if (s.name === 'submission') return measureSubmission(s, connections, sides, onService, onFloor, note);
  if (s.kind === 'document') return measureDocument(s, sides, note);

  await onService(warm);
  await onFloor(warm);
  // Service, floor, floor, service, half the run each: a machine that speeds up or slows down during
  // the scenario (another tenant, the database's own work) weighs on both sides alike. Runs measured
  // one after the other put the same code at 0.63 and 0.88 of its floor here.
  const half = Math.max(1, duration / 2);
  const first = await onService(half);
  const bare = [await onFloor(half), await onFloor(half)];
  const ours = combined([first, await onService(half)]);
  return loadRow(s.name, s.title, connections, ours, combined(bare), note);
}

/** A heavy document: each side warmed with one request, then read whole over and over, one at a time. */
async function measureDocument(s: Scenario, { service, floor }: Sides, note: string): Promise<Row> {
  const headers = s.request.headers ?? {};
  await documents(service, s.request.path, headers, { seconds: 0, atLeast: 1 });
  await documents(floor, `/${s.name}`, {}, { seconds: 0, atLeast: 1 });
  const ours = await documents(service, s.request.path, headers, { seconds: duration, atLeast: 2 });
  const bare = await documents(floor, `/${s.name}`, {}, { seconds: duration, atLeast: 2 });
  const mb = Math.round(ours.peakRss / 2 ** 20);
  return {
    ...loadRow(s.name, s.title, 1, ours, bare, `${note}; ${ours.requests} documents; peak RSS ${mb} MB`),
    peakRss: ours.peakRss,
  };
}

/**
 * The public submission: counted exactly (the indicator's value grew by what was acknowledged), and
 * with one webhook endpoint subscribed, delivered by the service's own worker while it runs; the
 * backlog is delivered before anything else runs (for DRAIN_TIMEOUT_MS at most: what is left then is
 * dropped, and the note says so). The floor replays the same SQL (it queues a delivery too) while the
 * worker is held off the endpoint.
 */
async function measureSubmission(
  s: Scenario,
  connections: number,
  { manifest, webhook }: Sides,
  onService: (seconds: number) => ReturnType<typeof load>,
  onFloor: (seconds: number) => ReturnType<typeof load>,
  note: string,
): Promise<Row> {
  if (!webhook) throw new Error('the submission scenario needs its webhook endpoint');
  await onService(warm);
  // Held, the warm-up's deliveries are dropped with the floor's: nobody waits for them.
  await webhook.hold(() => onFloor(warm));

  const before = await intakeState(manifest);
  const receivedBefore = webhook.received;
  const ours = await onService(duration);
  // Requests still in flight when the run ended commit (and queue their delivery) meanwhile.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const drained = await webhook.drain(DRAIN_TIMEOUT_MS);
  const after = await intakeState(manifest);
  const counted = after.counted - before.counted;
  const increment = Number(manifest.intake.answers[manifest.intake.fieldName] ?? 1);
  const countExact = after.value - before.value === counted * increment && counted >= ours.requests;
  const delivered = webhook.received - receivedBefore;
  const notes = [
    note,
    countExact
      ? 'count exact'
      : `COUNT WRONG (${JSON.stringify({ before, after, acknowledged: ours.requests })})`,
    drained.left > 0
      ? `${delivered} webhook deliveries, ${drained.left} still queued ${Math.round(drained.seconds)} s after the run (dropped)`
      : `${delivered} webhook deliveries, the last ${drained.seconds.toFixed(1)} s after the run`,
  ];
  // Every submission counted queued one delivery; all made, none may be missing.
  if (drained.left === 0 && delivered < counted) notes.push(`DELIVERIES MISSING (${counted - delivered})`);
  if (!countExact || (drained.left === 0 && delivered < counted)) process.exitCode = 1;

  const { result: bare, deliveredMeanwhile } = await webhook.hold(() => onFloor(duration));
  if (deliveredMeanwhile > 0) notes.push(`the worker delivered ${deliveredMeanwhile} during the floor's run`);
  return { ...loadRow(s.name, s.title, connections, ours, bare, notes.join('; ')), countExact };
}

async function main() {
  const began = performance.now();
  const manifest = readManifest();
  const config = loadConfig(env);
  console.log(`bench: ${manifest.size} data set (seed ${manifest.seed}), ${duration} s per run`);

  const service = await startServer('service', path.join(root, 'src/server.ts'), env);
  // Resident memory once started and settled, before any request but the readiness probe.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const idleRss = service.rss();
  let floor: Server | undefined;
  let webhook: WebhookSubscription | null = null;
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
    const stored = await storedReport(service, manifest, auth);
    const picked = scenarios(manifest, accessToken, stored).filter((s) => chosen(s.name));
    if (picked.some((s) => s.name === 'submission'))
      webhook = await WebhookSubscription.start(sql, service.url, manifest.orgId, auth);

    // Record what each request costs in SQL; the floor runs exactly that.
    const capturing = performance.now();
    const captured = await captureStatements(
      config,
      Object.fromEntries(picked.map((s) => [s.name, s.request])),
    );
    const floorScenarios: Record<string, FloorScenario> = {};
    for (const s of picked) {
      const { statements, status, body, sentAt } = captured[s.name]!;
      if (status >= 300 && !s.accept?.includes(status))
        throw new Error(`${s.name}: the service answered ${status}: ${body.slice(0, 300)}`);
      const freshHeader = s.freshHeader ? s.request.headers?.[s.freshHeader] : undefined;
      floorScenarios[s.name] = {
        method: s.request.method,
        statements,
        transaction: s.writes,
        answer: s.floorAnswer,
        // A read may write too (an audit entry): its new ids are as fresh.
        freshIds: [...madeDuring(statements, sentAt), ...(freshHeader ? [freshHeader] : [])],
      };
    }
    console.log(`recorded the SQL of ${picked.length} requests (${seconds(capturing)})`);
    const floorFile = path.join(env.DATA_DIR!, 'floor.json');
    writeFileSync(floorFile, JSON.stringify(floorScenarios));
    floor = await startServer('floor', path.join(root, 'bench/floor.ts'), {
      DATABASE_URL: databaseUrl!,
      FLOOR_SCENARIOS: floorFile,
    });

    const rows: Row[] = [];
    const sides = { service, floor, manifest, webhook };
    for (const s of picked) {
      const statements = floorScenarios[s.name]!.statements.length;
      const started = performance.now();
      process.stdout.write(`- ${s.title}: ${statements} statements ... `);
      if (s.kind === 'export') {
        const ours = await exportOnce(service, s.request.path, s.request.headers ?? {});
        const bare = await exportOnce(floor, `/${s.name}`, {});
        const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
        rows.push(
          exportRow(
            s.name,
            s.title,
            ours,
            bare,
            `rows/s; peak RSS ${mb(ours.peakRss)} MB (floor ${mb(bare.peakRss)} MB); ${ours.rows} rows`,
          ),
        );
      } else {
        rows.push(await measureLoad(s, statements, sides));
      }
      console.log(`done (${seconds(started)})`);
    }

    const timed = async (run: () => Promise<Row>) => {
      const started = performance.now();
      rows.push(await run());
      console.log(`done (${seconds(started)})`);
    };
    if (chosen('storm')) await timed(() => loginStorm(manifest, service, auth, settings));
    if (chosen('personal')) await timed(() => personalList(manifest, service, auth, settings));
    if (chosen('personal-csv')) await timed(() => personalExport(manifest, service, auth));
    if (chosen('quality'))
      await timed(() => qualitySave(manifest, service, auth, config, sql, { duration, many, warm }));
    if (chosen('bulk')) await timed(() => bulkValues(manifest, service, auth, config, sql));

    printTable(rows);
    const targets = judgeTargets(rows, idleRss);
    const caveat =
      manifest.size === 'large' && !args.smoke
        ? ''
        : ` (set for the large data set; this run is ${args.smoke ? 'a smoke test' : manifest.size}: not comparable)`;
    console.log(`Targets of issue 26${caveat}:\n\n${targetsTable(targets)}\n`);
    const results = {
      at: new Date().toISOString(),
      machine: await machine(sql),
      manifest: summary(manifest),
      duration,
      idleRss,
      rows,
      targets,
    };
    mkdirSync(path.join(root, 'bench/results'), { recursive: true });
    const file = path.join(root, 'bench/results', args.smoke ? 'smoke.json' : 'latest.json');
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`written to ${path.relative(process.cwd(), file)}; the bench took ${seconds(began)}`);
    if (rows.some((r) => r.failures)) process.exitCode = 1;
  } finally {
    // Before the service stops: the endpoint is removed through the API.
    await webhook?.close().catch((err: unknown) => console.error('removing the webhook endpoint:', err));
    await floor?.stop();
    await service.stop();
    await sql.end();
    // Beside the profiles the stopped servers wrote: `npm run bench:profile` reads both.
    if (process.env.BENCH_CPU_PROF) {
      mkdirSync(process.env.BENCH_CPU_PROF, { recursive: true });
      writeFileSync(path.join(process.env.BENCH_CPU_PROF, 'requests.json'), `${JSON.stringify(served)}\n`);
    }
    rmSync(env.DATA_DIR!, { recursive: true, force: true });
  }
}

/** The time since `started`, for the progress lines: where a run's minutes go. */
const seconds = (started: number) => `${((performance.now() - started) / 1000).toFixed(0)} s`;

function summary(manifest: Manifest) {
  return { size: manifest.size, seed: manifest.seed, seededAt: manifest.seededAt, counts: manifest.counts };
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
await main();

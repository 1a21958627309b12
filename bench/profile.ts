/**
 * `npm run bench:profile [folder]`: where the CPU time of a request goes, the service beside its floor.
 * Reads what `BENCH_CPU_PROF=<folder> npm run bench -- --only <one load scenario>` left: each server's
 * V8 profile of its main thread and the requests each answered under load. Every sample is put in the
 * first category that a frame of its stack matches, from the sampled function outwards (a socket write
 * counts as one wherever it came from); start-up (module loading, schema compilation) is shown apart and
 * left out of the time per request.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** First match wins, frame by frame from the sampled function outwards. */
const CATEGORIES: [string, RegExp][] = [
  ['socket writes (kernel)', /^(writev|writeBuffer|writeUtf8String|writeLatin1String) $/],
  [
    'start-up: modules, schema compilation',
    /compileSourceTextModule|wrapSafe|internalModuleStat|openFileHandle|readFileUtf8|compileFunction|modules\/esm|modules\/cjs|ajv\/dist\/compile|compileSchemas|fast-json-stringify\/index\.js/,
  ],
  ['session token (fast-jwt)', /fast-jwt/],
  ['security headers (helmet)', /helmet/],
  ['CORS', /@fastify\/cors/],
  ['rate limit', /rate-limit/],
  ['request log (pino)', /pino|http\/logging/],
  ['ETag, conditional requests', /entity-tags|http\/conditional|http\/caching/],
  ['idempotency keys', /idempotency/],
  ['metrics', /http\/metrics|prom-client/],
  ['serialization (fast-json-stringify)', /fast-json-stringify|http\/serializers|anonymous\d/],
  ['validation (Ajv)', /validation|ajv|validate\d/],
  ['query builder (Drizzle)', /drizzle-orm/],
  ['database driver (pg)', /node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+)\/|db\/client/],
  ['access check', /http\/access|memberships/],
  ['route handler', /\/modules\/|bench\/floor/],
  ['compression plugin', /@fastify\/compress/],
  ['Fastify (routing, hooks, reply)', /node_modules\/(fastify|find-my-way|avvio|fast-querystring)\//],
  ['Node HTTP', /^\S* node:(_http|net|internal\/stream_base|internal\/http)/],
];
const START_UP = CATEGORIES[1]![0];
const SPECIAL: Record<string, string> = {
  '(idle)': 'idle',
  '(garbage collector)': 'garbage collection',
  '(program)': 'V8 and libuv (program)',
};

/** Busy microseconds by category (idle left out). */
function categorize(file: string): Map<string, number> {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const label = (id: number) => {
    const { functionName, url } = nodes.get(id)!.callFrame;
    return `${functionName} ${url}`;
  };
  const byCategory = new Map<string, number>();
  const cache = new Map<number, string>();
  const categoryOf = (leaf: number): string => {
    const cached = cache.get(leaf);
    if (cached) return cached;
    const special = SPECIAL[nodes.get(leaf)!.callFrame.functionName];
    let found = special;
    for (let id: number | undefined = leaf; !found && id !== undefined; id = parent.get(id)) {
      found = CATEGORIES.find(([, pattern]) => pattern.test(label(id)))?.[0];
    }
    found ??= `other: ${nodes.get(leaf)!.callFrame.functionName || '(anonymous)'}`;
    cache.set(leaf, found);
    return found;
  };
  profile.samples.forEach((leaf, i) => {
    const category = categoryOf(leaf);
    if (category !== 'idle')
      byCategory.set(category, (byCategory.get(category) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return byCategory;
}

/** The newest main-thread profile of a server (tsx's loader thread writes one too; a reused folder, older ones). */
function mainThreadProfile(folder: string): string {
  const files = readdirSync(folder)
    .filter((name) => /^CPU\..*\.0\.\d+\.cpuprofile$/.test(name))
    .map((name) => path.join(folder, name))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (files.length === 0) throw new Error(`no main-thread profile in ${folder}`);
  return files[0]!;
}

const folder = path.resolve(process.argv[2] ?? process.env.BENCH_CPU_PROF ?? 'bench/profiles');
const requests = JSON.parse(readFileSync(path.join(folder, 'requests.json'), 'utf8')) as {
  service: number;
  floor: number;
};
const service = categorize(mainThreadProfile(path.join(folder, 'service')));
const floor = categorize(mainThreadProfile(path.join(folder, 'floor')));
const perRequest = (byCategory: Map<string, number>, count: number, category: string) =>
  count > 0 ? (byCategory.get(category) ?? 0) / count : 0;
const total = (byCategory: Map<string, number>, count: number) =>
  [...byCategory].reduce((sum, [category, us]) => (category === START_UP ? sum : sum + us), 0) / count;

const categories = [...new Set([...service.keys(), ...floor.keys()])]
  .filter((category) => category !== START_UP)
  .map((category) => ({
    category,
    ours: perRequest(service, requests.service, category),
    bare: perRequest(floor, requests.floor, category),
  }))
  .sort((a, b) => b.ours - a.ours);
const shown = categories.filter((row) => Math.max(row.ours, row.bare) >= 2);
const rest = categories.filter((row) => !shown.includes(row));
const us = (value: number) => value.toFixed(0);
console.log(
  `CPU time a request (µs): ${requests.service} requests to the service, ${requests.floor} to the floor\n`,
);
console.log('| where | service | floor | service − floor |\n|---|--:|--:|--:|');
for (const row of shown)
  console.log(`| ${row.category} | ${us(row.ours)} | ${us(row.bare)} | ${us(row.ours - row.bare)} |`);
const restOf = (key: 'ours' | 'bare') => rest.reduce((sum, row) => sum + row[key], 0);
console.log(`| ${rest.length} others under 2 µs | ${us(restOf('ours'))} | ${us(restOf('bare'))} | |`);
const [ours, bare] = [total(service, requests.service), total(floor, requests.floor)];
console.log(`| **busy, start-up left out** | **${us(ours)}** | **${us(bare)}** | **${us(ours - bare)}** |`);
console.log(
  `\nStart-up: ${((service.get(START_UP) ?? 0) / 1e6).toFixed(2)} s (service), ` +
    `${((floor.get(START_UP) ?? 0) / 1e6).toFixed(2)} s (floor). ` +
    `Floor's CPU time over the service's: ${(bare / ours).toFixed(2)}.`,
);

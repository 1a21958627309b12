/**
 * `node scripts/check-engines.mjs` (CI, after `npm ci`): fails when
 * - the running Node is outside package.json `engines.node`, or
 * - an installed package (every entry of package-lock.json, production and dev) declares an
 *   `engines.node` that leaves out a version our range admits: our range must be a subset of each of
 *   theirs, so `engines` never promises a Node that a dependency refuses.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readJson = (file) => JSON.parse(readFileSync(path.join(root, file), 'utf8'));

const ours = readJson('package.json').engines?.node;
if (!ours || !semver.validRange(ours)) {
  console.error(`check-engines: package.json engines.node is missing or not a semver range (${ours})`);
  process.exit(1);
}

let failed = false;
if (!semver.satisfies(process.version, ours)) {
  console.error(`check-engines: this is Node ${process.version}, outside engines.node "${ours}"`);
  failed = true;
}

/** Versions our range admits that a dependency might refuse: each set's lowest, and each major's first. */
const floors = semver
  .toComparators(ours)
  .map((set) => semver.minVersion(set.join(' '))?.version)
  .filter(Boolean);
const firstMajor = semver.major(semver.minVersion(ours));
const candidates = [...floors, ...Array.from({ length: 12 }, (_, i) => `${firstMajor + i}.0.0`)]
  .filter((version) => semver.satisfies(version, ours))
  .sort(semver.compare);

const packages = Object.entries(readJson('package-lock.json').packages ?? {});
let checked = 0;
const refusing = [];
for (const [where, entry] of packages) {
  if (where === '') continue;
  const theirs = entry.engines?.node;
  if (typeof theirs !== 'string') continue; // none, or the old array form (no node range in it)
  checked += 1;
  const name = entry.name ?? where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length);
  const label = `${name}@${entry.version} (${entry.dev ? 'dev' : 'production'}, ${where})`;
  if (!semver.validRange(theirs)) {
    refusing.push(`${label}: engines.node "${theirs}" is not a range semver understands`);
  } else if (!semver.subset(ours, theirs)) {
    const examples = [...new Set(candidates.filter((version) => !semver.satisfies(version, theirs)))]
      .slice(0, 3)
      .join(', ');
    refusing.push(
      `${label}: engines.node "${theirs}" excludes versions ours admits${examples ? ` (e.g. ${examples})` : ''}`,
    );
  }
}

if (refusing.length) {
  console.error(`check-engines: ${refusing.length} installed package(s) do not support all of "${ours}":`);
  for (const line of refusing) console.error(`  ${line}`);
  failed = true;
}
if (failed) process.exit(1);
console.log(
  `check-engines: Node ${process.version} is within "${ours}", and so is every version it admits for all ${checked} installed packages that declare engines.node`,
);

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SeedManifest } from './seed/manifest.js';

/**
 * Where `npm run seed:bench` writes its manifest and the bench reads it: BENCH_MANIFEST, else
 * `bench/.seed.json`. Seeds of other databases run at the same time each name their own.
 */
export const MANIFEST_PATH = process.env.BENCH_MANIFEST
  ? path.resolve(process.env.BENCH_MANIFEST)
  : path.join(path.dirname(fileURLToPath(import.meta.url)), '.seed.json');

/** What `npm run seed:bench` wrote about the data it made: the bench finds its ids here. */
export type Manifest = SeedManifest;

export function readManifest(): Manifest {
  if (!existsSync(MANIFEST_PATH)) {
    throw new Error(
      `No ${MANIFEST_PATH}: run \`npm run seed:bench -- --size small|medium|large\` first` +
        ' (with the same BENCH_MANIFEST, if one is set)',
    );
  }
  return JSON.parse(readFileSync(MANIFEST_PATH, 'utf8')) as Manifest;
}

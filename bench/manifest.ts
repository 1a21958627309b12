import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const MANIFEST_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), '.seed.json');

/** What `npm run seed:bench` wrote about the data it made: the bench finds its ids here. */
export interface Manifest {
  size: string;
  seed: number;
  seededAt: string;
  seconds: number;
  counts: Record<string, number>;
  orgId: string;
  admin: { email: string; password: string };
  users: { email: string; password: string; role: string }[];
  bigProject: { id: string; periodIds: string[]; indicatorCount: number; activityCount: number };
  typicalProjectId: string;
  intake: {
    formId: string;
    publicToken: string;
    projectId: string;
    indicatorId: string;
    periodId: string;
    fieldName: string;
    answers: Record<string, unknown>;
  };
  csvForm: { id: string; submissions: number };
}

export function readManifest(): Manifest {
  if (!existsSync(MANIFEST_PATH)) {
    throw new Error(`No ${MANIFEST_PATH}: run \`npm run seed:bench -- --size small|medium|large\` first`);
  }
  return JSON.parse(readFileSync(MANIFEST_PATH, 'utf8')) as Manifest;
}

import { seedActivities } from './activities.js';
import { Writer, type OnProgress, type Query } from './bulk.js';
import { planForms, seedForms } from './forms.js';
import { seedIndicatorReports } from './indicator-reports.js';
import { seedIndicators } from './indicators.js';
import { seedProjectIndicators } from './project-indicators.js';
import { manifestOf, type SeedManifest } from './manifest.js';
import { newSeeding } from './model.js';
import { seedOrganization, seedPrograms } from './organization.js';
import { planFor, type Size } from './plan.js';
import { planQuality, seedQuality } from './quality.js';
import { seedProjects } from './projects.js';

export type { OnProgress, ProgressEvent, Query } from './bulk.js';
export type { SeedManifest } from './manifest.js';
export { SIZES, type Size } from './plan.js';

export interface SeedOptions {
  /** Runs one statement; the tables must exist (migrated) and be empty. */
  query: Query;
  size: Size;
  /** Multiplies every count of the size further (tests seed a sliver). Default 1. */
  scale?: number;
  /** The random seed: the same seed and size give the same rows, ids included. Default 1. */
  seed?: number;
  onProgress?: OnProgress;
  /** Batches of one table sent at once; worth 2 or 3 on a pg Pool. Default 1. */
  concurrency?: number;
}

/** Tables kept by the database's triggers (migration 0036): counted in the manifest, never written here. */
const READ_MODELS = ['period_report_counts'];

/**
 * Writes the benchmark data set (one organization, `bench`) into empty tables, analyzes them and
 * returns what the bench runner needs to find its way in it.
 */
export async function seed(options: SeedOptions): Promise<SeedManifest> {
  const started = performance.now();
  const plan = planFor(options.size, options.scale ?? 1);
  const writer = new Writer({
    query: options.query,
    onProgress: options.onProgress,
    concurrency: options.concurrency,
  });
  const s = newSeeding(plan, options.seed ?? 1, writer);

  await seedOrganization(s);
  await seedPrograms(s);
  await seedProjects(s);
  await seedIndicators(s);
  await seedProjectIndicators(s);
  // Forms come before the reports: the drafts they counted into hold their submissions' sums.
  const forms = planForms(s);
  if (!forms.intake.indicator) throw new Error('The intake project links no indicator to count into');
  // The quality benchmark's indicators are chosen before their reports are written (as drafts).
  const qualityPlan = planQuality(s);
  const busyReport = await seedIndicatorReports(s, qualityPlan);
  await seedActivities(s);
  await seedForms(s, forms);
  const quality = await seedQuality(s, qualityPlan);

  // Tables the database fills itself as the others are written (read models kept by triggers).
  for (const table of READ_MODELS) {
    const { rows } = await options.query(`SELECT count(*)::int AS n FROM "${table}"`);
    writer.counts[table] = (rows[0] as { n: number }).n;
  }

  const analyzing = performance.now();
  // Fresh statistics, so the planner knows how big the tables are before the first benchmark query.
  options.onProgress?.({ table: 'ANALYZE', done: 0, total: 0 });
  await options.query('ANALYZE');
  const seconds = (performance.now() - analyzing) / 1000;
  options.onProgress?.({ table: 'ANALYZE', done: 0, total: 0, seconds });
  return manifestOf(s, forms, busyReport, quality, (performance.now() - started) / 1000);
}

import { randomBytes } from 'node:crypto';
import { load } from './load.js';
import type { Manifest } from './manifest.js';
import { exportOnce, exportRow, loadRow, post } from './measure.js';
import type { Server } from './processes.js';
import type { Row } from './report.js';

/** Scenarios measured against the service itself rather than a floor. */

export interface Settings {
  /** Seconds per measured run. */
  duration: number;
  /** Connections of short reads. */
  many: number;
  /** The login storm: readers, and clients signing in over and over. */
  storm: { readers: number; logins: number };
}

/** Reads of a project alone, then the same reads while others sign in with bcrypt at the default cost. */
export async function loginStorm(
  manifest: Manifest,
  service: Server,
  auth: Record<string, string>,
  { duration, storm: size }: Settings,
): Promise<Row> {
  process.stdout.write('- login storm ... ');
  const reads = {
    url: `${service.url}/orgs/${manifest.orgId}/projects/${manifest.bigProject.id}`,
    headers: auth,
    connections: size.readers,
    duration,
  };
  const alone = await load(reads);
  const storm = load({
    url: `${service.url}/auth/login`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(manifest.admin),
    connections: size.logins,
    duration,
  });
  const during = await load(reads);
  const logins = await storm;
  const failures = during.failures + logins.failures;
  return {
    name: 'storm',
    scenario: 'reads during a login storm',
    connections: size.readers,
    rps: during.rps,
    p50: during.p50,
    p99: during.p99,
    floorRps: null,
    ratio: null,
    note: `p99 ${during.p99} ms vs ${alone.p99} ms alone (x${(during.p99 / Math.max(alone.p99, 1)).toFixed(1)}); ${logins.rps.toFixed(1)} logins/s${
      failures ? `; failures ${during.failures}/${logins.failures}` : ''
    }`,
    failures,
  };
}

/** A viewer of the seed, signed in: sees no personal field, so nothing is opened and nothing recorded. */
async function viewerAuth(manifest: Manifest, service: Server) {
  const viewer = manifest.users.find((user) => user.role === 'viewer');
  if (!viewer) throw new Error('the seed has no viewer');
  const { accessToken } = await post(`${service.url}/auth/token`, {
    email: viewer.email,
    password: viewer.password,
  });
  return { authorization: `Bearer ${String(accessToken)}` };
}

/**
 * What protecting personal data costs in a list (issues 22 and 26): the participants of an activity of
 * 100 people, each with a phone and a national id, read by an officer (opened, an audit entry written)
 * and by a viewer (neither). Goal: the officer's throughput at least 0.90 of the viewer's. The activity
 * is registered through the API here, in the typical project (the big one's reports stay as seeded).
 */
export async function personalList(
  manifest: Manifest,
  service: Server,
  auth: Record<string, string>,
  { duration, many }: Settings,
): Promise<Row> {
  process.stdout.write('- participants list: decryption and audit ... ');
  const org = `${service.url}/orgs/${manifest.orgId}`;
  const asViewer = await viewerAuth(manifest, service);
  const { id: activityId } = await post(
    `${org}/projects/${manifest.typicalProjectId}/activities`,
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
  return loadRow(
    'personal',
    'participants of an activity (100), opened + audited',
    many,
    officer,
    bare,
    '"floor": the same list as a viewer (nothing opened, nothing audited); goal >= 0.90',
  );
}

/** The CSV export of a form with personal answers, by an officer (audited) against a viewer (issue 22). */
export async function personalExport(
  manifest: Manifest,
  service: Server,
  auth: Record<string, string>,
): Promise<Row> {
  process.stdout.write('- CSV export with personal answers ... ');
  const asViewer = await viewerAuth(manifest, service);
  const csvPath = `/orgs/${manifest.orgId}/forms/${manifest.csvForm.id}/submissions.csv`;
  const officer = await exportOnce(service, csvPath, auth);
  const viewer = await exportOnce(service, csvPath, asViewer);
  return exportRow(
    'personal-csv',
    'CSV export with personal answers, audited',
    officer,
    viewer,
    'rows/s; "floor": the same export as a viewer (personal answers empty, no audit entry); goal >= 0.90',
  );
}

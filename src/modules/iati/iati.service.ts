import type { Readable } from 'node:stream';
import type { Db } from '../../db/client.js';
import { withStatementTimeout } from '../../db/long-statements.js';
import type { ReadRouting } from '../../db/replica.js';
import type { Member } from '../../http/pipeline/access.js';
import { readAhead } from '../../lib/read-ahead.js';
import { conflict, notFound } from '../../errors/catalogue.js';
import { requireProject, projectExists } from '../projects/index.js';
import { activitiesDocument } from './activities-document.js';
import { activityIdentifier } from './iati-activity.js';
import { projectCodes, publisherOf } from './iati.repo.js';

export const NO_IATI_REF =
  'The organization has no iatiRef: set its IATI organisation identifier (PATCH /orgs/:orgId) before publishing to IATI';
export const NO_PROJECTS = 'The organization has no projects to publish to IATI';
export const SAME_IDENTIFIER =
  'Projects whose codes give the same IATI identifier (IATI needs each activity once): change their codes';

/** The codes that give one identifier, grouped (`A B, A/B`); IATI identifiers must be unique. */
function sameIdentifiers(ref: string, codes: string[]): string[] {
  const byIdentifier = new Map<string, string[]>();
  for (const code of codes) {
    const identifier = activityIdentifier(ref, code);
    byIdentifier.set(identifier, [...(byIdentifier.get(identifier) ?? []), code]);
  }
  return [...byIdentifier.values()].filter((group) => group.length > 1).map((group) => group.join(', '));
}

/** A project the replica has not replayed yet (made a moment ago): the export is read on the primary. */
class NotReplayed extends Error {}

/**
 * The organization's projects (or one of them) as an IATI activities document, streamed from the read
 * replica (`reads`, read-your-writes aside). Who may export what is asked of the primary (`db`): a
 * project removed a moment ago is gone at once. Refusals come before the first byte: an unknown project
 * (404), then no IATI identifier, nothing to publish (the schema requires at least one activity) or two
 * projects that would be one activity (409).
 */
export async function iatiActivities(
  db: Db,
  reads: ReadRouting,
  member: Member,
  projectId: string | undefined,
  options: { exportStatementMs: number; now?: Date },
): Promise<Readable> {
  if (projectId !== undefined) await requireProject(db, member, projectId);
  const now = options.now ?? new Date();
  return reads.read(
    async (source, onReplica) => {
      if (projectId !== undefined && onReplica && !(await projectExists(source, member.orgId, projectId)))
        throw new NotReplayed();
      // Once the 200 is sent a statement cut by its limit cuts the document: the exports' limit.
      return activitiesOf(
        withStatementTimeout(source, options.exportStatementMs),
        member.orgId,
        projectId,
        now,
      );
    },
    { caller: member.userId, staleIf: (error) => error instanceof NotReplayed, streamed: true },
  );
}

/** The document, read from `db` (the stream goes on reading there after this resolves). */
async function activitiesOf(db: Db, orgId: string, projectId: string | undefined, now: Date) {
  const publisher = await publisherOf(db, orgId);
  if (!publisher) throw notFound('Organization');
  if (publisher.ref === null) throw conflict(NO_IATI_REF);
  // One project is one activity; all of them must be there, each once.
  if (projectId === undefined) {
    const codes = await projectCodes(db, orgId);
    if (codes.length === 0) throw conflict(NO_PROJECTS);
    const clashes = sameIdentifiers(publisher.ref, codes);
    if (clashes.length > 0) throw conflict(`${SAME_IDENTIFIER}: ${clashes.join('; ')}`);
  }
  const document = activitiesDocument(
    db,
    orgId,
    { ref: publisher.ref, type: publisher.type, name: publisher.name },
    { projectId, now },
  );
  // Its first piece read here: a replica that fails it falls back before the first byte is sent.
  return readAhead(document);
}

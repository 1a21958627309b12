import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import { seesPersonalData } from '../../lib/personal-data.js';
import { insertAuditEntries, type NewAuditEntry } from './audit-log.repo.js';
import type { AuditAction, SubjectKind } from './privacy.tables.js';

/**
 * Who asked, from where, through which route: what every audit entry of a request repeats. Entries are
 * written by the request itself, before its response is sent (in the transaction of a change, or just
 * after the read): a response that carried personal data always has its entry, and a failed write of the
 * entry fails the request instead (chosen over a buffer, which would need its own journal to survive a
 * crash; one indexed insert per response costs far less than the read it records).
 */
export interface AuditSource {
  orgId: string;
  actorId: string | null;
  actorRole: string | null;
  /** The personal access token the actor used, if any: its id and name. */
  tokenId: string | null;
  tokenName: string | null;
  ip: string | null;
  requestId: string | null;
  route: string;
}

export function auditSourceOf(request: FastifyRequest, member: Member): AuditSource {
  return {
    orgId: member.orgId,
    actorId: member.userId,
    actorRole: member.role,
    tokenId: request.session?.token?.id ?? null,
    tokenName: request.session?.token?.name ?? null,
    ip: request.ip,
    requestId: request.id,
    route: `${request.method} ${request.routeOptions.url}`,
  };
}

/** The service itself acting for an organization: the retention job, a key rotation. */
export const serviceSource = (orgId: string, job: string): AuditSource => ({
  orgId,
  actorId: null,
  actorRole: null,
  tokenId: null,
  tokenName: null,
  ip: null,
  requestId: null,
  route: job,
});

/**
 * The message of the 409 (`personal_data_erased`) that answers an erasure asked again, by what was
 * erased: one list for every module that erases personal data.
 */
export const ALREADY_ERASED = {
  participant: 'The personal data of this participant is already erased',
  form_submission: 'Personal answers of this submission are already erased',
} as const satisfies Partial<Record<SubjectKind, string>>;

export interface AuditEvent {
  action: AuditAction;
  subjectKind: SubjectKind;
  subjectIds: string[];
  /** How many records; the number of subject ids unless given (a whole export names none). */
  count?: number;
  /** The filter of a list or export, the reason of an erasure. */
  details?: Record<string, unknown>;
}

export async function recordAudit(db: Db, source: AuditSource, ...events: AuditEvent[]): Promise<void> {
  await insertAuditEntries(
    db,
    events.map((event): NewAuditEntry => ({
      ...source,
      action: event.action,
      subjectKind: event.subjectKind,
      subjectIds: event.subjectIds,
      count: event.count ?? event.subjectIds.length,
      details: event.details ?? {},
    })),
  );
}

/**
 * Records a response that carries personal data in clear. Viewers get none (DECISIONS.md section 5), and
 * an empty list carries none: neither is recorded.
 */
export async function recordPersonalRead(
  db: Db,
  source: AuditSource,
  read: Omit<AuditEvent, 'action'> & { action?: 'read' | 'export' },
): Promise<void> {
  const count = read.count ?? read.subjectIds.length;
  if (!seesPersonalData(source.actorRole ?? '') || count === 0) return;
  await recordAudit(db, source, { action: 'read', ...read });
}

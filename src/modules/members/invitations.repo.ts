import { and, count, desc, eq, gt, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import { newId } from '../../lib/ids.js';
import type { OrgRole } from '../../http/pipeline/access.js';
import { organizations } from '../orgs/orgs.tables.js';
import { invitations } from './members.tables.js';

export type InvitationRow = typeof invitations.$inferSelect;

export const publicInvitation = (row: InvitationRow, now = new Date()) => ({
  id: row.id,
  email: row.email,
  role: row.role,
  status: row.expiresAt > now ? ('pending' as const) : ('expired' as const),
  expiresAt: row.expiresAt,
  createdAt: row.createdAt,
});

const open = (orgId: string) => and(eq(invitations.orgId, orgId), isNull(invitations.acceptedAt));

export async function countOpenInvitations(db: Db, orgId: string): Promise<number> {
  const [row] = await db.select({ total: count() }).from(invitations).where(open(orgId));
  return row?.total ?? 0;
}

export function listOpenInvitations(db: Db, orgId: string, window: Window) {
  return inWindow(
    db
      .select()
      .from(invitations)
      .where(open(orgId))
      .orderBy(desc(invitations.createdAt), desc(invitations.id))
      .$dynamic(),
    window,
  );
}

/**
 * Inviting an address again replaces its open invitation (new id, token and expiry; the old link stops
 * working). One statement, so two concurrent invitations of one address cannot both insert.
 */
export async function replaceInvitation(
  db: Db,
  orgId: string,
  invitation: {
    email: string;
    role: OrgRole;
    tokenHash: string;
    invitedBy: string;
    expiresAt: Date;
  },
): Promise<InvitationRow> {
  const [row] = await db
    .insert(invitations)
    .values({ ...invitation, orgId })
    .onConflictDoUpdate({
      target: [invitations.orgId, invitations.email],
      targetWhere: isNull(invitations.acceptedAt),
      set: {
        id: newId(),
        role: invitation.role,
        tokenHash: invitation.tokenHash,
        invitedBy: invitation.invitedBy,
        expiresAt: invitation.expiresAt,
        createdAt: new Date(),
      },
    })
    .returning();
  if (!row) throw new Error('invitation upsert returned nothing');
  return row;
}

export async function deleteOpenInvitation(db: Db, orgId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(invitations)
    .where(and(open(orgId), eq(invitations.id, id)))
    .returning({ id: invitations.id });
  return rows.length > 0;
}

/** An invitation whose link still works, with its organization; `lock` holds it until the transaction ends. */
export async function findUsableInvitation(db: Db, tokenHash: string, options: { lock?: boolean } = {}) {
  const query = db
    .select({ invitation: invitations, organization: organizations })
    .from(invitations)
    .innerJoin(organizations, eq(organizations.id, invitations.orgId))
    .where(
      and(
        eq(invitations.tokenHash, tokenHash),
        isNull(invitations.acceptedAt),
        gt(invitations.expiresAt, new Date()),
      ),
    )
    .limit(1);
  const [row] = options.lock ? await query.for('update', { of: invitations }) : await query;
  return row;
}

/**
 * Whether the (normalized) address holds an invitation still open, to any organization: what lets an
 * account be created for it under REGISTRATION=invite.
 */
export async function hasOpenInvitation(db: Db, email: string): Promise<boolean> {
  const [row] = await db
    .select({ id: invitations.id })
    .from(invitations)
    .where(
      and(
        eq(invitations.email, email),
        isNull(invitations.acceptedAt),
        gt(invitations.expiresAt, new Date()),
      ),
    )
    .limit(1);
  return row !== undefined;
}

export async function markInvitationAccepted(db: Db, orgId: string, id: string): Promise<void> {
  await db
    .update(invitations)
    .set({ acceptedAt: new Date() })
    .where(and(eq(invitations.orgId, orgId), eq(invitations.id, id)));
}

import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { prepared } from '../../db/prepared.js';
import type { Memberships } from '../../http/pipeline/access.js';
import { revokedTokens, users } from '../auth/auth.tables.js';
import { organizations, orgMembers } from './orgs.tables.js';

/**
 * The memberships port of `src/http/pipeline/access.ts`, answered by the module that owns `org_members`.
 * Sign-in (auth, below orgs in the module order) and the access hook receive it from `buildApp`.
 */
export const memberships: Memberships = {
  list: (db, userId, limit) => {
    const query = listMemberships(db, userId);
    return limit === undefined ? query : query.limit(limit);
  },
  find: findMembership,
  sessionState: findSessionState,
};

function listMemberships(db: Db, userId: string) {
  return db
    .select({
      organization: {
        id: organizations.id,
        name: organizations.name,
        code: organizations.code,
        logoUrl: organizations.logoUrl,
      },
      role: orgMembers.role,
    })
    .from(orgMembers)
    .innerJoin(organizations, eq(organizations.id, orgMembers.orgId))
    .where(eq(orgMembers.userId, userId))
    .orderBy(asc(orgMembers.joinedAt), asc(orgMembers.orgId));
}

async function findMembership(db: Db, userId: string, orgId: string) {
  const [row] = await db
    .select({ orgId: orgMembers.orgId, role: orgMembers.role })
    .from(orgMembers)
    .where(and(eq(orgMembers.userId, userId), eq(orgMembers.orgId, orgId)))
    .limit(1);
  return row;
}

/**
 * What every authenticated request needs, in one indexed query: the user's email and last reset,
 * whether this token was revoked, and the role in the path's organization (when there is one).
 */
async function findSessionState(db: Db, userId: string, jti: string, orgId: string | undefined) {
  const [row] = await sessionStateQuery(db).execute({ userId, jti, orgId: orgId ?? null });
  return row;
}

/** Every authenticated request runs this one. Without an organization (`orgId` null) the role is null. */
const sessionStateQuery = prepared((db) =>
  db
    .select({
      email: users.email,
      sessionsValidAfter: users.sessionsValidAfter,
      revoked: sql<boolean>`exists (select 1 from ${revokedTokens} where ${revokedTokens.jti} = ${sql.placeholder('jti')})`,
      role: orgMembers.role,
    })
    .from(users)
    .leftJoin(
      orgMembers,
      and(eq(orgMembers.userId, users.id), eq(orgMembers.orgId, sql.placeholder('orgId'))),
    )
    .where(eq(users.id, sql.placeholder('userId')))
    .limit(1)
    .prepare('session_state'),
);

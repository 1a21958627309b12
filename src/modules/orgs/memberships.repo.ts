import { and, asc, eq, sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../../db/client.js';
import { prepared } from '../../db/prepared.js';
import type { Memberships, TokenCaller } from '../../http/pipeline/access.js';
import { revokedTokens, users } from '../auth/auth.tables.js';
import { accessTokens } from './access-tokens.tables.js';
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
  accessToken: useAccessToken,
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

/**
 * The token of this secret hash, if it is live: not expired, made after its user's last password reset
 * (a reset ends every credential), with the user's role in its organization now (null: not a member;
 * ending a membership deletes its tokens, so a member invited again starts without them).
 * In the same statement its `lastUsedAt` is set to now, unless another request of the same token is
 * setting it at that moment (SKIP LOCKED): a burst of one token's requests (a Power BI refresh) never
 * queues on the token's row.
 */
async function useAccessToken(db: Db, secretHash: string): Promise<TokenCaller | undefined> {
  const result = await db.execute(sql`
    WITH found AS (
      SELECT t.id, t.name, t.org_id, t.scope, t.user_id, u.email,
        (SELECT m.role FROM ${orgMembers} m
          WHERE m.org_id = t.org_id AND m.user_id = t.user_id) AS role
      FROM ${accessTokens} t
      JOIN ${users} u ON u.id = t.user_id
      WHERE t.secret_hash = ${secretHash}
        AND (t.expires_at IS NULL OR t.expires_at > now())
        AND (u.sessions_valid_after IS NULL OR t.created_at >= u.sessions_valid_after)
    ),
    used AS (
      UPDATE ${accessTokens} SET last_used_at = now()
      WHERE id = (SELECT id FROM ${accessTokens} WHERE id = (SELECT id FROM found) FOR UPDATE SKIP LOCKED)
    )
    SELECT id AS "tokenId", name AS "tokenName", org_id AS "orgId", scope, user_id AS "userId", email, role
    FROM found`);
  return rowsOf<TokenCaller>(result)[0];
}

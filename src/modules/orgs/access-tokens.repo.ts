import { and, count, desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import { accessTokens } from './access-tokens.tables.js';

export type NewAccessToken = Omit<typeof accessTokens.$inferInsert, 'id' | 'lastUsedAt'>;

/** What a list and the creation answer show: everything but the secret's hash. */
const shown = {
  id: accessTokens.id,
  name: accessTokens.name,
  orgId: accessTokens.orgId,
  scope: accessTokens.scope,
  prefix: accessTokens.prefix,
  expiresAt: accessTokens.expiresAt,
  lastUsedAt: accessTokens.lastUsedAt,
  createdAt: accessTokens.createdAt,
};

export async function insertAccessToken(db: Db, token: NewAccessToken) {
  const [row] = await db.insert(accessTokens).values(token).returning(shown);
  return row!;
}

export async function countAccessTokens(db: Db, userId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(accessTokens).where(eq(accessTokens.userId, userId));
  return row?.n ?? 0;
}

/** The user's tokens, newest first. */
export function listAccessTokens(db: Db, userId: string, window: Window) {
  return inWindow(
    db
      .select(shown)
      .from(accessTokens)
      .where(eq(accessTokens.userId, userId))
      .orderBy(desc(accessTokens.createdAt), desc(accessTokens.id))
      .$dynamic(),
    window,
  );
}

/** Deletes one of the user's tokens; false when the user has no such token. */
export async function deleteAccessToken(db: Db, userId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(accessTokens)
    .where(and(eq(accessTokens.id, id), eq(accessTokens.userId, userId)))
    .returning({ id: accessTokens.id });
  return rows.length > 0;
}

/** One of the user's tokens; undefined for another user's or none. */
export async function findAccessToken(db: Db, userId: string, id: string) {
  const [row] = await db
    .select(shown)
    .from(accessTokens)
    .where(and(eq(accessTokens.id, id), eq(accessTokens.userId, userId)));
  return row;
}

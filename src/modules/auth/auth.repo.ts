import { and, eq, gt, isNotNull, isNull, lt, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import {
  emailVerifications,
  externalIdentities,
  loginFailures,
  passwordResets,
  revokedTokens,
  users,
} from './auth.tables.js';

export type UserRow = typeof users.$inferSelect;

export const publicUser = (user: UserRow) => ({
  id: user.id,
  email: user.email,
  firstName: user.firstName,
  lastName: user.lastName,
  createdAt: user.createdAt,
});

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  const [user] = await db.select().from(users).where(eq(users.email, email)).limit(1);
  return user;
}

export async function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  const [user] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return user;
}

/** Returns the new user, or undefined when the email is taken (also under a concurrent insert). */
export async function insertUser(
  db: Db,
  user: {
    email: string;
    passwordHash: string | null;
    firstName: string;
    lastName: string;
    emailVerifiedAt?: Date;
  },
): Promise<UserRow | undefined> {
  const [row] = await db.insert(users).values(user).onConflictDoNothing({ target: users.email }).returning();
  return row;
}

/** The user's own choice of deadline reminders. */
export async function setRemindersEnabled(db: Db, userId: string, enabled: boolean): Promise<void> {
  await db.update(users).set({ remindersEnabled: enabled }).where(eq(users.id, userId));
}

/** The user's language (null: not chosen). */
export async function setLocale(db: Db, userId: string, locale: string | null): Promise<void> {
  await db.update(users).set({ locale }).where(eq(users.id, userId));
}

/** Every session issued before `now` stops working. */
export async function setPassword(db: Db, userId: string, passwordHash: string, now: Date): Promise<void> {
  await db.update(users).set({ passwordHash, sessionsValidAfter: now }).where(eq(users.id, userId));
}

/**
 * Removes the password, and ends its sessions, only while the address is unproven; checked in the
 * statement itself, so a verification committed meanwhile is respected. True when one was removed.
 */
export async function removeUnprovenPassword(db: Db, userId: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(users)
    .set({ passwordHash: null, sessionsValidAfter: now })
    .where(and(eq(users.id, userId), isNotNull(users.passwordHash), isNull(users.emailVerifiedAt)))
    .returning({ id: users.id });
  return rows.length > 0;
}

/** Records that the owner proved the address; the first proof's time is kept. */
export async function markEmailProven(db: Db, userId: string, now: Date): Promise<void> {
  await db
    .update(users)
    .set({ emailVerifiedAt: now })
    .where(and(eq(users.id, userId), isNull(users.emailVerifiedAt)));
}

export async function insertEmailVerification(
  db: Db,
  verification: { userId: string; tokenHash: string; expiresAt: Date },
): Promise<void> {
  await db.insert(emailVerifications).values(verification);
}

/**
 * Marks a valid verification token used and returns its user; undefined when unknown, used or expired.
 * The user's other links are spent too: the address is proven, they have nothing left to do.
 */
export const consumeEmailVerification = (db: Db, tokenHash: string, now: Date) =>
  consumeLink(db, emailVerifications, tokenHash, now);

/** Failures older than this are forgotten (and their rows pruned). */
const FAILURE_MEMORY = '1 hour';
const recentFailure = sql`${loginFailures.lastFailedAt} > now() - ${FAILURE_MEMORY}::interval`;

/** The sign-in back-off's numbers (login-throttle.ts says why these). */
export interface LoginBackOff {
  freeFailures: number;
  firstDelayMs: number;
  maxDelayMs: number;
}

/** A number written into the statement: the service's own constants, never input. */
const literal = (n: number) => sql.raw(String(Math.trunc(n)));

/** How long after the row's last counted attempt the next may be checked: free ones, then doubling, capped. */
function backOffAfter({ freeFailures, firstDelayMs, maxDelayMs }: LoginBackOff): SQL {
  const failures = loginFailures.failures;
  const free = literal(freeFailures);
  const doubled = sql`least(${literal(firstDelayMs)} * power(2, least(${failures} - ${free}, 30)), ${literal(maxDelayMs)})`;
  return sql`(case when ${failures} < ${free} then 0 else ${doubled} end) * interval '1 millisecond'`;
}

/**
 * Takes the account's next turn to have a password checked, in one statement (issue 36, finding 5): the
 * attempt is counted as a failure now (a success clears the count) and its turn is
 * `greatest(now(), previous turn + back-off)`, kept in `last_failed_at`, so concurrent attempts on any
 * instance queue one behind the other. Returns how long to wait for the turn; undefined, taking nothing,
 * when the turn is further off than `maxWaitMs`. Times are the database's (the clock every instance shares).
 */
export async function reserveLoginAttempt(
  db: Db,
  email: string,
  backOff: LoginBackOff,
  maxWaitMs: number,
): Promise<number | undefined> {
  const turn = sql`greatest(now(), ${loginFailures.lastFailedAt} + ${backOffAfter(backOff)})`;
  const [reserved] = await db
    .insert(loginFailures)
    .values({ email, failures: 1, lastFailedAt: sql`now()` })
    .onConflictDoUpdate({
      target: loginFailures.email,
      set: {
        // Capped: the delay stops growing long before, and the column must never overflow.
        failures: sql`case when ${recentFailure} then least(${loginFailures.failures} + 1, 1000) else 1 end`,
        lastFailedAt: sql`case when ${recentFailure} then ${turn} else now() end`,
      },
      setWhere: sql`not ${recentFailure} or ${turn} <= now() + ${literal(maxWaitMs)} * interval '1 millisecond'`,
    })
    .returning({
      waitMs: sql<number>`(extract(epoch from ${loginFailures.lastFailedAt} - now()) * 1000)::float8`,
    });
  if (!reserved) return undefined;
  // Emails that were only ever tried must not pile up.
  await db
    .delete(loginFailures)
    .where(sql`${loginFailures.lastFailedAt} < now() - ${FAILURE_MEMORY}::interval`);
  return Math.max(0, Number(reserved.waitMs));
}

/** How long until the account's next turn is free (0 when it is, or nothing is counted). */
export async function nextLoginTurnMs(db: Db, email: string, backOff: LoginBackOff): Promise<number> {
  const [row] = await db
    .select({
      inMs: sql<number>`(extract(epoch from ${loginFailures.lastFailedAt}
        + ${backOffAfter(backOff)} - now()) * 1000)::float8`,
    })
    .from(loginFailures)
    .where(and(eq(loginFailures.email, email), recentFailure))
    .limit(1);
  return row ? Math.max(0, Number(row.inMs)) : 0;
}

export async function clearLoginFailures(db: Db, email: string): Promise<void> {
  await db.delete(loginFailures).where(eq(loginFailures.email, email));
}

export async function revokeToken(db: Db, jti: string, expiresAt: Date): Promise<void> {
  await db.insert(revokedTokens).values({ jti, expiresAt }).onConflictDoNothing();
  // Keep the list short: a revoked token past its expiry is refused anyway.
  await db.delete(revokedTokens).where(lt(revokedTokens.expiresAt, new Date()));
}

export async function insertPasswordReset(
  db: Db,
  reset: { userId: string; tokenHash: string; expiresAt: Date },
): Promise<void> {
  await db.insert(passwordResets).values(reset);
}

type EmailedLinks = typeof passwordResets | typeof emailVerifications;

/** Unused and unexpired. */
const usable = (links: EmailedLinks, tokenHash: string, now: Date) =>
  and(eq(links.tokenHash, tokenHash), isNull(links.usedAt), gt(links.expiresAt, now));

export async function findUsablePasswordReset(
  db: Db,
  tokenHash: string,
  now: Date,
): Promise<string | undefined> {
  const [row] = await db
    .select({ userId: passwordResets.userId })
    .from(passwordResets)
    .where(usable(passwordResets, tokenHash, now))
    .limit(1);
  return row?.userId;
}

/** Marks a valid reset token used and returns its user; undefined when unknown, used or expired. */
export const consumePasswordReset = (db: Db, tokenHash: string, now: Date) =>
  consumeLink(db, passwordResets, tokenHash, now);

/** Spends a usable link and every other open link of the same user; the link's user, if it was usable. */
async function consumeLink(
  db: Db,
  links: EmailedLinks,
  tokenHash: string,
  now: Date,
): Promise<string | undefined> {
  const [row] = await db
    .update(links)
    .set({ usedAt: now })
    .where(usable(links, tokenHash, now))
    .returning({ userId: links.userId });
  if (row) {
    await db
      .update(links)
      .set({ usedAt: now })
      .where(and(eq(links.userId, row.userId), isNull(links.usedAt)));
  }
  return row?.userId;
}

/** The user an external identity belongs to. */
export async function findUserByIdentity(
  db: Db,
  issuer: string,
  subject: string,
): Promise<UserRow | undefined> {
  const [row] = await db
    .select({ user: users })
    .from(externalIdentities)
    .innerJoin(users, eq(users.id, externalIdentities.userId))
    .where(and(eq(externalIdentities.issuer, issuer), eq(externalIdentities.subject, subject)));
  return row?.user;
}

/** Links an identity to a user; a concurrent link of the same identity is left as it is. */
export async function linkIdentity(
  db: Db,
  identity: { issuer: string; subject: string; userId: string; email: string },
): Promise<void> {
  await db.insert(externalIdentities).values(identity).onConflictDoNothing();
}

/** A user's address and names, for emails. Users are not tenant data: no org id to filter by. */
export async function findUserName(db: Db, id: string) {
  const [row] = await db
    .select({ email: users.email, firstName: users.firstName, lastName: users.lastName })
    .from(users)
    .where(eq(users.id, id));
  return row;
}

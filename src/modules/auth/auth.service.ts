import type { Config } from '../../config.js';
import { transaction, type Db } from '../../db/client.js';
import type { Memberships, Session } from '../../http/pipeline/access.js';
import {
  badRequest,
  duplicate,
  forbidden,
  invalidCredentials,
  invalidToken,
  tokenRefused,
  unauthorized,
} from '../../errors/catalogue.js';
import type { IssuedToken, Sessions } from '../../http/pipeline/session.js';
import { normalizeEmail } from '../../lib/email.js';
import { hashToken, newSecretToken } from '../../lib/ids.js';
import { isLocale, pickLocale } from '../../lib/i18n/i18n.js';
import { queueEmail } from '../mail/index.js';
import {
  clearLoginFailures,
  consumeEmailVerification,
  consumePasswordReset,
  findUsablePasswordReset,
  findUserByEmail,
  findUserById,
  insertEmailVerification,
  insertPasswordReset,
  insertUser,
  markEmailProven,
  publicUser,
  revokeToken,
  setPassword,
  setLocale,
  setRemindersEnabled,
  type UserRow,
} from './auth.repo.js';
import { passwordResetEmail, verificationEmail } from './auth.emails.js';
import { LoginThrottle } from './login-throttle.js';
import type { PasswordHasher } from './passwords.js';
import type { RegistrationPolicy } from './registration-policy.js';

const INVALID_RESET = 'Invalid or expired reset token';
const INVALID_VERIFICATION = 'Invalid or expired verification token';
/** How long an emailed verification link works (DECISIONS.md section 3). */
const VERIFICATION_TTL_DAYS = 7;

export class AuthService {
  /** Compared against when the email is unknown, so a failed login costs the same either way. */
  private decoy?: Promise<string>;
  private readonly throttle: LoginThrottle;

  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly sessions: Sessions,
    private readonly memberships: Memberships,
    /** Wakes the outbox worker; called once a transaction that queued email has committed. */
    private readonly mailQueued: () => void,
    private readonly passwords: PasswordHasher,
    /** REGISTRATION: for whom an account may be created. */
    private readonly registration: RegistrationPolicy,
  ) {
    this.throttle = new LoginThrottle(db);
    // Made now, so that the first unknown email costs no more than a wrong password.
    this.decoyHash().catch(() => undefined);
  }

  /** Made again by the next login if it could not be (the hashing queue was full). */
  private decoyHash(): Promise<string> {
    this.decoy ??= this.passwords.hash('decoy-password-for-timing').catch((err: unknown) => {
      this.decoy = undefined;
      throw err;
    });
    return this.decoy;
  }

  async register(input: { email: string; password: string; firstName: string; lastName: string }) {
    const email = normalizeEmail(input.email);
    checkPassword(input.password, email);
    // Before the duplicate check: under `invite` or `domains`, an address refused learns nothing of
    // whether it has an account. Before hashing: a refusal costs no bcrypt.
    await this.registration.check(this.db, email);
    const passwordHash = await this.passwords.hash(input.password);
    // The verification email commits with the user, or neither does.
    const user = await transaction(this.db, async (tx) => {
      const created = await insertUser(tx, {
        email,
        passwordHash,
        firstName: input.firstName.trim(),
        lastName: input.lastName.trim(),
      });
      if (!created) throw duplicate('A user with this email already exists');
      await this.queueVerification(tx, created);
      return created;
    });
    this.mailQueued();
    return { user: publicUser(user), token: await this.tokenFor(user) };
  }

  /** `POST /auth/verify-email`: proves the address the link was sent to. */
  async verifyEmail(token: string): Promise<void> {
    const now = new Date();
    await transaction(this.db, async (tx) => {
      const userId = await consumeEmailVerification(tx, hashToken(token), now);
      if (!userId) throw invalidToken(INVALID_VERIFICATION);
      await markEmailProven(tx, userId, now);
    });
  }

  /** A new verification link for the session's user; nothing is sent when the address is already proven. */
  async resendVerification(userId: string): Promise<void> {
    const user = await findUserById(this.db, userId);
    if (!user) throw tokenRefused();
    if (user.emailVerifiedAt) return;
    await transaction(this.db, (tx) => this.queueVerification(tx, user));
    this.mailQueued();
  }

  private async queueVerification(tx: Db, user: UserRow): Promise<void> {
    const { token, hash } = newSecretToken();
    await insertEmailVerification(tx, {
      userId: user.id,
      tokenHash: hash,
      expiresAt: new Date(Date.now() + VERIFICATION_TTL_DAYS * 86_400_000),
    });
    await queueEmail(
      tx,
      verificationEmail(
        user,
        { appUrl: this.config.appUrl, token, days: VERIFICATION_TTL_DAYS },
        pickLocale(user.locale),
      ),
    );
  }

  async login(input: { email: string; password: string }) {
    const email = normalizeEmail(input.email);
    // The same statements and waits for an unknown email as for a wrong password. The attempt counts as a
    // failure from here until it succeeds, so concurrent guesses each wait their own turn.
    await this.throttle.reserve(email);
    const user = await findUserByEmail(this.db, email);
    const hash = user?.passwordHash ?? (await this.decoyHash());
    const matches = await this.passwords.matches(input.password, hash);
    if (!user?.passwordHash || !matches) throw invalidCredentials();
    await this.throttle.succeeded(email);
    return { user: publicUser(user), token: await this.tokenFor(user) };
  }

  /** `POST /auth/token`: a bearer token from a password, or for another organization of the session's user. */
  async token(
    input: { email?: string; password?: string; organizationId?: string },
    session: Session | null,
  ): Promise<IssuedToken> {
    const byPassword = input.email !== undefined || input.password !== undefined;
    if (byPassword && input.organizationId !== undefined) {
      throw badRequest('send either email and password, or organizationId');
    }
    if (input.organizationId !== undefined) {
      if (!session) throw unauthorized();
      const membership = await this.memberships.find(this.db, session.userId, input.organizationId);
      if (!membership) throw forbidden({ reason: 'not_a_member' });
      return this.sessions.issue({
        userId: session.userId,
        email: session.email,
        organizationId: membership.orgId,
        role: membership.role,
      });
    }
    const missing = (['email', 'password'] as const)
      .filter((field) => input[field] === undefined)
      .map((field) => ({ path: `/${field}`, rule: 'required', message: `${field} is required` }));
    if (missing.length > 0) throw badRequest(...missing);
    const { token } = await this.login({ email: input.email ?? '', password: input.password ?? '' });
    return token;
  }

  async logout(session: Session): Promise<void> {
    // A personal access token never reaches sign-out (the access hook keeps it to its organization).
    if (session.claims) await revokeToken(this.db, session.claims.jti, new Date(session.claims.exp * 1000));
  }

  async me(userId: string) {
    const user = await findUserById(this.db, userId);
    if (!user) throw tokenRefused();
    return {
      ...publicUser(user),
      emailVerified: user.emailVerifiedAt !== null,
      memberships: await this.memberships.list(this.db, userId),
      notifications: { reminders: user.remindersEnabled },
      locale: isLocale(user.locale) ? user.locale : null,
    };
  }

  /** `PATCH /auth/me`: the user's own settings; answers as `me` does. */
  async updateMe(
    userId: string,
    changes: { notifications?: { reminders: boolean }; locale?: string | null },
  ) {
    if (changes.notifications !== undefined) {
      await setRemindersEnabled(this.db, userId, changes.notifications.reminders);
    }
    if (changes.locale !== undefined) {
      // The schema allows only LOCALES or null; the CHECK constraint holds it too.
      await setLocale(this.db, userId, isLocale(changes.locale) ? changes.locale : null);
    }
    return this.me(userId);
  }

  /** Always succeeds from the caller's view, so it does not tell which emails are registered. */
  async forgotPassword(rawEmail: string): Promise<void> {
    const user = await findUserByEmail(this.db, normalizeEmail(rawEmail));
    if (!user) return;
    const { token, hash } = newSecretToken();
    const minutes = Math.round(this.config.resetTokenTtlSeconds / 60);
    await transaction(this.db, async (tx) => {
      await insertPasswordReset(tx, {
        userId: user.id,
        tokenHash: hash,
        expiresAt: new Date(Date.now() + this.config.resetTokenTtlSeconds * 1000),
      });
      await queueEmail(
        tx,
        passwordResetEmail(user, { appUrl: this.config.appUrl, token, minutes }, pickLocale(user.locale)),
      );
    });
    this.mailQueued();
  }

  async resetPassword(input: { token: string; password: string }): Promise<void> {
    const tokenHash = hashToken(input.token);
    // The cheap look-up first: an unknown token never costs a bcrypt hash.
    const userId = await findUsablePasswordReset(this.db, tokenHash, new Date());
    const user = userId ? await findUserById(this.db, userId) : undefined;
    if (!user) throw invalidToken(INVALID_RESET);
    checkPassword(input.password, user.email);
    const passwordHash = await this.passwords.hash(input.password);
    // Taken after hashing, so a session minted while the hash was computed is cut off too.
    const now = new Date();
    await transaction(this.db, async (tx) => {
      if ((await consumePasswordReset(tx, tokenHash, now)) !== user.id) throw invalidToken(INVALID_RESET);
      await setPassword(tx, user.id, passwordHash, now);
      // The link reached the owner of the address: it is proven, and earlier failed sign-ins no longer count.
      await markEmailProven(tx, user.id, now);
      await clearLoginFailures(tx, user.email);
    });
  }

  /** The session lands in the user's first organization (by join date), or none before they have one. */
  private tokenFor(user: UserRow): Promise<IssuedToken> {
    return sessionFor(this.db, this.sessions, this.memberships, user);
  }
}

/**
 * Whether a password reset link's token would still be taken (known, unused, unexpired): the reset page
 * says so before asking for a password. It reads only; the token is spent by `resetPassword`.
 */
export async function passwordResetUsable(db: Db, token: string): Promise<boolean> {
  return (await findUsablePasswordReset(db, hashToken(token), new Date())) !== undefined;
}

/** A session for the user, in their first organization by join date (DECISIONS.md section 3). */
export async function sessionFor(
  db: Db,
  sessions: Sessions,
  memberships: Memberships,
  user: UserRow,
): Promise<IssuedToken> {
  const [first] = await memberships.list(db, user.id, 1);
  return sessions.issue({
    userId: user.id,
    email: user.email,
    organizationId: first?.organization.id ?? null,
    role: first?.role ?? null,
  });
}

/**
 * Records, inside the caller's transaction, that the user followed a link sent to their address (an
 * accepted invitation): the address is proven (DECISIONS.md section 3).
 */
export function recordProvenAddress(tx: Db, userId: string, now = new Date()): Promise<void> {
  return markEmailProven(tx, userId, now);
}

function checkPassword(password: string, email: string): void {
  if (password.trim().toLowerCase() === email) throw badRequest('password must not be the same as the email');
}

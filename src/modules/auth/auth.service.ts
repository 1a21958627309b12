import type { Config } from '../../config.js';
import { transaction, type Db } from '../../db/client.js';
import type { Session } from '../../http/access.js';
import { AppError, badRequest, conflict, forbidden, unauthorized } from '../../http/errors.js';
import type { IssuedToken, Sessions } from '../../http/session.js';
import { normalizeEmail } from '../../lib/email.js';
import { hashToken, newSecretToken } from '../../lib/ids.js';
import { queueEmail } from '../mail/mail.service.js';
import {
  consumePasswordReset,
  findMembership,
  findUsablePasswordReset,
  findUserByEmail,
  findUserById,
  insertPasswordReset,
  insertUser,
  listMemberships,
  publicUser,
  revokeToken,
  setPassword,
  type UserRow,
} from './auth.repo.js';
import { hashPassword, passwordMatches } from './passwords.js';

const INVALID_LOGIN = 'Invalid email or password';
const INVALID_RESET = 'Invalid or expired reset token';

export class AuthService {
  /** Compared against when the email is unknown, so a failed login costs the same either way. */
  private decoyHash: Promise<string>;

  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly sessions: Sessions,
  ) {
    this.decoyHash = hashPassword('decoy-password-for-timing', config.bcryptCost);
  }

  async register(input: { email: string; password: string; firstName: string; lastName: string }) {
    const email = normalizeEmail(input.email);
    checkPassword(input.password, email);
    const passwordHash = await hashPassword(input.password, this.config.bcryptCost);
    const user = await insertUser(this.db, {
      email,
      passwordHash,
      firstName: input.firstName.trim(),
      lastName: input.lastName.trim(),
    });
    if (!user) throw conflict('A user with this email already exists');
    return { user: publicUser(user), token: await this.tokenFor(user) };
  }

  async login(input: { email: string; password: string }) {
    const user = await findUserByEmail(this.db, normalizeEmail(input.email));
    const hash = user?.passwordHash ?? (await this.decoyHash);
    const matches = await passwordMatches(input.password, hash);
    if (!user?.passwordHash || !matches) throw new AppError(401, INVALID_LOGIN);
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
      const membership = await findMembership(this.db, session.userId, input.organizationId);
      if (!membership) throw forbidden();
      return this.sessions.issue({
        userId: session.userId,
        email: session.email,
        organizationId: membership.orgId,
        role: membership.role,
      });
    }
    const missing = [
      input.email === undefined && 'email is required',
      input.password === undefined && 'password is required',
    ];
    if (missing.some(Boolean)) throw badRequest(...missing.filter((m): m is string => Boolean(m)));
    const { token } = await this.login({ email: input.email ?? '', password: input.password ?? '' });
    return token;
  }

  async logout(session: Session): Promise<void> {
    await revokeToken(this.db, session.claims.jti, new Date(session.claims.exp * 1000));
  }

  async me(userId: string) {
    const user = await findUserById(this.db, userId);
    if (!user) throw unauthorized();
    return { ...publicUser(user), memberships: await listMemberships(this.db, userId) };
  }

  /** Always succeeds from the caller's view, so it does not tell which emails are registered. */
  async forgotPassword(rawEmail: string): Promise<boolean> {
    const user = await findUserByEmail(this.db, normalizeEmail(rawEmail));
    if (!user) return false;
    const { token, hash } = newSecretToken();
    const link = `${this.config.appUrl}/reset-password?token=${token}`;
    const minutes = Math.round(this.config.resetTokenTtlSeconds / 60);
    await transaction(this.db, async (tx) => {
      await insertPasswordReset(tx, {
        userId: user.id,
        tokenHash: hash,
        expiresAt: new Date(Date.now() + this.config.resetTokenTtlSeconds * 1000),
      });
      await queueEmail(tx, {
        recipient: user.email,
        subject: 'Reset your password',
        body:
          `Hello ${user.firstName},\n\nSomeone asked to reset the password of your account. ` +
          `To choose a new password, open this link within ${minutes} minutes:\n\n${link}\n\n` +
          `The link works once. If you did not ask for it, ignore this email.\n`,
      });
    });
    return true;
  }

  async resetPassword(input: { token: string; password: string }): Promise<void> {
    const tokenHash = hashToken(input.token);
    // The cheap look-up first: an unknown token never costs a bcrypt hash.
    const userId = await findUsablePasswordReset(this.db, tokenHash, new Date());
    const user = userId ? await findUserById(this.db, userId) : undefined;
    if (!user) throw badRequest(INVALID_RESET);
    checkPassword(input.password, user.email);
    const passwordHash = await hashPassword(input.password, this.config.bcryptCost);
    // Taken after hashing, so a session minted while the hash was computed is cut off too.
    const now = new Date();
    await transaction(this.db, async (tx) => {
      if ((await consumePasswordReset(tx, tokenHash, now)) !== user.id) throw badRequest(INVALID_RESET);
      await setPassword(tx, user.id, passwordHash, now);
    });
  }

  /** The session lands in the user's first organization (by join date), or none before they have one. */
  private tokenFor(user: UserRow): Promise<IssuedToken> {
    return sessionFor(this.db, this.sessions, user);
  }
}

/** A session for the user, in their first organization by join date (DECISIONS.md section 3). */
export async function sessionFor(db: Db, sessions: Sessions, user: UserRow): Promise<IssuedToken> {
  const [first] = await listMemberships(db, user.id).limit(1);
  return sessions.issue({
    userId: user.id,
    email: user.email,
    organizationId: first?.organization.id ?? null,
    role: first?.role ?? null,
  });
}

function checkPassword(password: string, email: string): void {
  if (password.trim().toLowerCase() === email) throw badRequest('password must not be the same as the email');
}

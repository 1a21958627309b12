import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { badRequest, forbidden, notFound } from '../../errors/catalogue.js';
import { ACCESS_TOKEN_PREFIX, accessTokenHash, type Session } from '../../http/pipeline/access.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import {
  countAccessTokens,
  deleteAccessToken,
  findAccessToken,
  insertAccessToken,
  listAccessTokens,
} from './access-tokens.repo.js';
import type { TokenScope } from './access-tokens.tables.js';
import { memberships } from './memberships.repo.js';

/** A token made without `expiresAt` lasts this long. */
const DEFAULT_LIFETIME_DAYS = 90;

export interface AccessTokenRequest {
  name: string;
  orgId: string;
  scope: TokenScope;
  expiresAt?: string | null;
}

/** Personal access tokens of the signed-in user (docs/analysts.md). */
export class AccessTokenService {
  constructor(private readonly db: Db) {}

  /**
   * A new token for one of the caller's organizations; its secret is in this answer only. 403
   * `not_a_member` for an organization the caller is not a member of (or none).
   */
  async create(session: Session, body: AccessTokenRequest) {
    const expiresAt =
      body.expiresAt === undefined
        ? new Date(Date.now() + DEFAULT_LIFETIME_DAYS * 86_400_000)
        : body.expiresAt === null
          ? null
          : new Date(body.expiresAt);
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      throw badRequest({ path: '/expiresAt', rule: 'future', message: 'expiresAt must be in the future' });
    }
    if (!(await memberships.find(this.db, session.userId, body.orgId))) {
      throw forbidden({ reason: 'not_a_member' });
    }
    const secret = `${ACCESS_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const token = await insertAccessToken(this.db, {
      userId: session.userId,
      orgId: body.orgId,
      name: body.name.trim(),
      scope: body.scope,
      secretHash: accessTokenHash(secret),
      prefix: secret.slice(0, ACCESS_TOKEN_PREFIX.length + 4),
      expiresAt,
      // The service's clock, as a password reset's `sessionsValidAfter` is: compared with it.
      createdAt: new Date(),
    });
    return { ...token, token: secret };
  }

  list(session: Session, query: PageRequest) {
    return paginate(query, {
      count: () => countAccessTokens(this.db, session.userId),
      list: (window) => listAccessTokens(this.db, session.userId, window),
    });
  }

  async get(session: Session, id: string) {
    const token = await findAccessToken(this.db, session.userId, id);
    if (!token) throw notFound('Access token');
    return token;
  }

  /** Revokes it at once: the next request with it is refused. Another user's token is not found. */
  async delete(session: Session, id: string): Promise<void> {
    if (!(await deleteAccessToken(this.db, session.userId, id))) throw notFound('Access token');
  }
}

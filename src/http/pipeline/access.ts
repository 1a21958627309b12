import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../../db/client.js';
import { UUID_PATTERN, uuidV7Time } from '../../lib/ids.js';
import { createHash } from 'node:crypto';
import { badRequest, basicRefused, forbidden, tokenRefused, unauthorized } from '../../errors/catalogue.js';
import type { RateLimitBucket } from './rate-limit.js';
import { ORG_ROLES, type OrgRole, type SessionClaims, type Sessions } from './session.js';

/**
 * What a route allows, declared in its config. `public`: anyone (a session is read when present, but a
 * cookie on a POST, PUT, PATCH or DELETE from another origin is ignored);
 * `signed-in`: any valid session; `{ roles }`: members of the path's organization with one of these
 * roles, or (with `orSelf`) the member named by that path parameter.
 */
export type Access = 'public' | 'signed-in' | { roles: readonly OrgRole[]; orSelf?: string };

// The roles are the access model's words; they are written where the session that carries one is.
export { ORG_ROLES, type OrgRole } from './session.js';

export const ALL_ROLES: readonly OrgRole[] = ORG_ROLES;
export const ADMINS: readonly OrgRole[] = ['org_admin'];
export const MANAGERS: readonly OrgRole[] = ['org_admin', 'me_officer'];
export const CONTRIBUTORS: readonly OrgRole[] = ['org_admin', 'me_officer', 'reporter'];

/** What starts every personal access token: secret scanners look for it. */
export const ACCESS_TOKEN_PREFIX = 'mel_pat_';

/** What is stored of a personal access token's secret, and looked up by: its SHA-256, hex. */
export const accessTokenHash = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** A personal access token's caller, as the request that presents it is checked. */
export interface TokenCaller {
  tokenId: string;
  tokenName: string;
  orgId: string;
  scope: 'read' | 'write';
  userId: string;
  email: string;
  /** The user's role in the token's organization now; null when no longer a member. */
  role: OrgRole | null;
}

/** One organization of a user, with their role in it. */
export interface Membership {
  organization: { id: string; name: string; code: string; logoUrl: string | null };
  role: OrgRole;
}

/** What every authenticated request needs: the user's email and last reset, the token's revocation, the role. */
export interface SessionState {
  email: string;
  sessionsValidAfter: Date | null;
  revoked: boolean;
  role: OrgRole | null;
}

/**
 * Who belongs to which organization. The orgs module owns memberships and answers (its
 * memberships.repo.ts); `src/http` imports no module, so `buildApp` hands the answer to the access
 * hook and to sign-in.
 */
export interface Memberships {
  /** By join date; `limit` 1 gives the organization a new session lands in. */
  list(db: Db, userId: string, limit?: number): Promise<Membership[]>;
  find(db: Db, userId: string, orgId: string): Promise<{ orgId: string; role: OrgRole } | undefined>;
  /** One indexed query; without an organization (`orgId` undefined) the role is null. */
  sessionState(
    db: Db,
    userId: string,
    jti: string,
    orgId: string | undefined,
  ): Promise<SessionState | undefined>;
  /**
   * The live, unexpired token of this secret's SHA-256 (hex) with its user and role, its `lastUsedAt`
   * set to now in the same statement; undefined for no such token.
   */
  accessToken(db: Db, secretHash: string): Promise<TokenCaller | undefined>;
}

export interface Session {
  userId: string;
  email: string;
  /** The session token's claims; null for a personal access token. */
  claims: SessionClaims | null;
  fromCookie: boolean;
  /** The personal access token the request came with, if it came with one. */
  token?: { id: string; name: string; orgId: string; scope: 'read' | 'write' };
}

/** The caller's membership in the organization of the path, read from the database on this request. */
export interface Member {
  orgId: string;
  userId: string;
  role: OrgRole;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    rateLimitBucket?: RateLimitBucket;
  }
  interface FastifyRequest {
    session: Session | null;
    member: Member | null;
  }
}

/** The org id of the path, checked here because the membership query needs a UUID. */
const BAD_ORG_ID = { in: 'path', path: '/orgId', rule: 'format', message: 'orgId must be a UUID' } as const;

/** The one place that decides who may call a route. A route that declares nothing is refused. */
export function registerAccess(
  app: FastifyInstance,
  db: Db,
  sessions: Sessions,
  memberships: Memberships,
): void {
  app.decorateRequest('session', null);
  app.decorateRequest('member', null);

  app.addHook('onRequest', async (request) => {
    if (request.is404) return;
    const access = request.routeOptions.config.access;
    if (access === undefined) throw new Error(`Route ${request.routeOptions.url} declares no access rule`);

    const orgId = typeof access === 'object' ? (request.params as { orgId?: string }).orgId : undefined;
    // Checked before the membership query, which would otherwise compare a uuid column with garbage.
    const scopedOrgId = orgId !== undefined && UUID_PATTERN.test(orgId) ? orgId : undefined;
    // Public routes never look a token up: they run as if it had not come (nothing to gain from it, and
    // no database work for anyone who sends one to /health).
    const credential = access === 'public' ? null : accessTokenOf(request);
    if (credential)
      return checkAccessToken(request, access as Exclude<Access, 'public'>, scopedOrgId, credential);
    let presented = await sessions.read(request);
    if (presented?.fromCookie && !sessions.cookieAllowed(request)) {
      // Cross-origin forgery: refused where a session is needed; a public route runs as if no cookie came.
      if (access !== 'public') throw forbidden({ reason: 'origin_not_allowed' });
      presented = null;
    }
    const caller = presented ? await loadCaller(db, memberships, presented.claims, scopedOrgId) : null;
    if (presented && caller) {
      request.session = { userId: presented.claims.sub, email: caller.email, ...presented };
    }
    if (access === 'public') return;
    if (!request.session || !caller) throw sessions.presented(request) ? tokenRefused() : unauthorized();
    if (access === 'signed-in') return;
    if (!scopedOrgId) throw badRequest(BAD_ORG_ID);
    // Not a member, or no such organization: one answer. The route's roles are the same for every
    // organization, so naming them tells nothing about this one.
    if (!caller.role) throw forbidden({ reason: 'not_a_member', allowedRoles: access.roles });

    request.member = { orgId: scopedOrgId, userId: request.session.userId, role: caller.role };
    const self = access.orSelf ? (request.params as Record<string, string>)[access.orSelf] : undefined;
    if (!access.roles.includes(caller.role) && self !== request.session.userId) {
      throw forbidden({ allowedRoles: access.roles });
    }
  });

  /**
   * A personal access token (docs/analysts.md): its user, with the role they have now in the token's
   * organization, on that organization's routes only; GET and HEAD only with the read scope. A token
   * that is unknown, expired, from before its user's last password reset, or whose user has left the
   * organization is refused (401) wherever it is presented (public routes never read it).
   */
  async function checkAccessToken(
    request: FastifyRequest,
    access: Exclude<Access, 'public'>,
    scopedOrgId: string | undefined,
    credential: AccessTokenCredential,
  ): Promise<void> {
    const caller = await memberships.accessToken(db, accessTokenHash(credential.secret));
    if (!caller?.role) throw credential.basic ? basicRefused() : tokenRefused();
    request.session = {
      userId: caller.userId,
      email: caller.email,
      claims: null,
      fromCookie: false,
      token: { id: caller.tokenId, name: caller.tokenName, orgId: caller.orgId, scope: caller.scope },
    };
    if (access === 'signed-in') throw forbidden({ reason: 'token_outside_organization' });
    // Basic credentials a browser has kept are sent with another site's forms, as a cookie is: a change
    // that says where it comes from must come from here (tools send no Origin).
    if (credential.basic && request.headers.origin !== undefined && !sessions.cookieAllowed(request)) {
      throw forbidden({ reason: 'origin_not_allowed' });
    }
    if (!scopedOrgId) throw badRequest(BAD_ORG_ID);
    if (scopedOrgId !== caller.orgId) throw forbidden({ reason: 'not_a_member', allowedRoles: access.roles });
    if (caller.scope === 'read' && request.method !== 'GET' && request.method !== 'HEAD') {
      throw forbidden({ reason: 'read_only_token' });
    }
    request.member = { orgId: scopedOrgId, userId: caller.userId, role: caller.role };
    const self = access.orSelf ? (request.params as Record<string, string>)[access.orSelf] : undefined;
    if (!access.roles.includes(caller.role) && self !== caller.userId) {
      throw forbidden({ allowedRoles: access.roles });
    }
  }
}

interface AccessTokenCredential {
  secret: string;
  /** Presented as HTTP Basic (the password), not as a bearer token. */
  basic: boolean;
}

/**
 * A personal access token presented as `Authorization: Bearer mel_pat_...`, or as the password of HTTP
 * Basic (the user name is not read: Power BI and Excel ask for one); null when the request presents none
 * (a session token, or Basic credentials whose password is no token, go the sessions' way).
 */
function accessTokenOf(request: FastifyRequest): AccessTokenCredential | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const bearer = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
  if (bearer !== undefined) {
    return bearer.startsWith(ACCESS_TOKEN_PREFIX) ? { secret: bearer, basic: false } : null;
  }
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header)?.[1];
  if (basic === undefined) return null;
  const decoded = Buffer.from(basic, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const password = colon === -1 ? '' : decoded.slice(colon + 1);
  // Any other Basic credentials are not ours (a proxy's in front, say): the session goes its own way.
  return password.startsWith(ACCESS_TOKEN_PREFIX) ? { secret: password, basic: true } : null;
}

/**
 * One indexed query: the user still exists, the token is neither revoked nor older than the last
 * password reset, and the membership in the path's organization if there is one.
 */
async function loadCaller(
  db: Db,
  memberships: Memberships,
  claims: SessionClaims,
  orgId: string | undefined,
): Promise<{ email: string; role: OrgRole | null } | null> {
  const row = await memberships.sessionState(db, claims.sub, claims.jti, orgId);
  if (!row || row.revoked) return null;
  if (row.sessionsValidAfter) {
    const issuedAt = uuidV7Time(claims.jti) ?? claims.iat * 1000;
    if (issuedAt < row.sessionsValidAfter.getTime()) return null;
  }
  return { email: row.email, role: row.role };
}

/** The membership the access hook loaded; only routes declared with roles have one. */
export function memberOf(request: FastifyRequest): Member {
  if (!request.member) throw new Error(`Route ${request.routeOptions.url} has no organization scope`);
  return request.member;
}

export function sessionOf(request: FastifyRequest): Session {
  if (!request.session) throw unauthorized();
  return request.session;
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import { createSigner, createVerifier } from 'fast-jwt';
import type { Config } from '../../config.js';
import { newId } from '../../lib/ids.js';

/** The roles of a member in an organization (SPEC.md): the access model (access.ts) is written in these words. */
export const ORG_ROLES = ['org_admin', 'me_officer', 'reporter', 'viewer'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

export interface SessionClaims {
  sub: string;
  email: string;
  organizationId: string | null;
  role: OrgRole | null;
  iat: number;
  exp: number;
  jti: string;
}

export interface IssuedToken {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
}

export const COOKIE_NAME = 'jwt';

/** Verified session tokens kept in memory (least recently used go first): a few hundred bytes each. */
const VERIFIED_TOKENS = 2_000;

/** Methods that change nothing; every other one (POST, PUT, PATCH, DELETE) needs a trusted origin. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `scheme://host[:port]` of a URL; null when it does not parse or has no origin (`null`, `file:`, `data:`). */
function originOf(value: string): string | null {
  try {
    const { origin } = new URL(value);
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/**
 * An HS256 key for jose (the identity provider's flow tokens), imported once: given raw bytes, jose
 * imports them again for every token (a sixth of the CPU time of a short authenticated read, measured).
 */
export function hmacKey(secret: Uint8Array): Promise<CryptoKey> {
  const raw = new Uint8Array(secret); // its own ArrayBuffer, as WebCrypto's types ask
  return crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
}

/**
 * Signs, reads and sets session tokens: HS256 only, the algorithm pinned on both sides. fast-jwt's
 * HMAC runs synchronously on a key object made once, where jose's goes through an asynchronous
 * WebCrypto job on the thread pool (GET project 3,100 -> 3,700 requests/s: autocannon, 50 connections,
 * medians of four alternated runs on the shared 2-core machine).
 */
export class Sessions {
  private readonly sign: (claims: SessionClaims) => string;
  private readonly check: (token: string) => unknown;
  /** Cookies carry Secure when the service is served over https. */
  readonly secureCookie: boolean;
  /** Where a cookie-authenticated change may come from: BASE_URL, APP_URL and CORS_ORIGINS. */
  private readonly ownOrigins: ReadonlySet<string>;

  constructor(private readonly config: Config) {
    const key = Buffer.from(config.jwtSecret, 'utf8');
    // iat and exp come in the claims: fast-jwt keeps a given iat and, without expiresIn, a given exp.
    this.sign = createSigner<SessionClaims>({ key, algorithm: 'HS256' });
    // A verified token is remembered until its exp (fast-jwt bounds each entry by it), keyed by its
    // SHA-256: a second request with it skips decoding and the HMAC (GET project: 69 of about 1,000 µs
    // of CPU a request, bench --cpu-prof). Revocation and password resets are still checked on every
    // request, in the database (the access hook's session query). A refused token is stored too, but
    // already expired, so never served: forged tokens can only push valid ones out (2,000 at most).
    this.check = createVerifier({ key, algorithms: ['HS256'], cache: VERIFIED_TOKENS });
    this.secureCookie = config.baseUrl.startsWith('https:');
    this.ownOrigins = new Set(
      [config.baseUrl, config.appUrl, ...config.corsOrigins].flatMap((url) => originOf(url) ?? []),
    );
  }

  issue(subject: {
    userId: string;
    email: string;
    organizationId: string | null;
    role: OrgRole | null;
  }): Promise<IssuedToken> {
    const now = Math.floor(Date.now() / 1000);
    const accessToken = this.sign({
      sub: subject.userId,
      email: subject.email,
      organizationId: subject.organizationId,
      role: subject.role,
      iat: now,
      exp: now + this.config.jwtExpirySeconds,
      // A UUIDv7 jti also records the millisecond of issue, which a password reset compares against.
      jti: newId(),
    });
    return Promise.resolve({ accessToken, tokenType: 'Bearer', expiresIn: this.config.jwtExpirySeconds });
  }

  /** The claims of the first presented token that verifies: bearer header, then cookie. */
  read(request: FastifyRequest): Promise<{ claims: SessionClaims; fromCookie: boolean } | null> {
    const header = request.headers.authorization;
    const bearer = header?.match(/^Bearer\s+(\S+)$/i)?.[1];
    const cookie = request.cookies[COOKIE_NAME];
    for (const [token, fromCookie] of [
      [bearer, false],
      [cookie, true],
    ] as const) {
      if (!token) continue;
      const claims = this.verify(token);
      if (claims) return Promise.resolve({ claims, fromCookie });
    }
    return Promise.resolve(null);
  }

  /** Whether the request carries a session token at all (valid or not), for the 401's challenge. */
  presented(request: FastifyRequest): boolean {
    return (
      /^Bearer\s+\S+$/i.test(request.headers.authorization ?? '') || Boolean(request.cookies[COOKIE_NAME])
    );
  }

  /**
   * Whether the cookie may authenticate this request: any safe method; an unsafe one only when its
   * Origin (or, without one, its Referer) is one of ours. SameSite=Lax still sends the cookie from a
   * sibling subdomain (the same site), and a POST without Content-Type needs no preflight.
   */
  cookieAllowed(request: FastifyRequest): boolean {
    if (SAFE_METHODS.has(request.method)) return true;
    const { origin, referer } = request.headers;
    const claimed =
      origin !== undefined ? originOf(origin) : referer !== undefined ? originOf(referer) : null;
    return claimed !== null && this.ownOrigins.has(claimed);
  }

  /** The token's claims when its HS256 signature holds and it has not expired; null otherwise. */
  private verify(token: string): SessionClaims | null {
    let payload: Record<string, unknown>;
    try {
      // Refuses a bad signature, any algorithm but HS256 (alg none included), garbling and expiry.
      payload = this.check(token) as Record<string, unknown>;
    } catch {
      return null;
    }
    const { sub, email, iat, exp, jti } = payload;
    if (typeof sub !== 'string' || typeof email !== 'string' || typeof jti !== 'string') return null;
    if (typeof iat !== 'number' || typeof exp !== 'number') return null;
    return {
      sub,
      email,
      iat,
      exp,
      jti,
      organizationId: typeof payload.organizationId === 'string' ? payload.organizationId : null,
      role: typeof payload.role === 'string' ? (payload.role as OrgRole) : null,
    };
  }

  setCookie(reply: FastifyReply, token: IssuedToken): void {
    void reply.setCookie(COOKIE_NAME, token.accessToken, {
      httpOnly: true,
      path: '/',
      sameSite: 'lax',
      secure: this.secureCookie,
      maxAge: token.expiresIn,
    });
  }

  clearCookie(reply: FastifyReply): void {
    void reply.clearCookie(COOKIE_NAME, {
      httpOnly: true,
      path: '/',
      sameSite: 'lax',
      secure: this.secureCookie,
    });
  }
}

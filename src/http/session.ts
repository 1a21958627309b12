import type { FastifyReply, FastifyRequest } from 'fastify';
import { createSigner, createVerifier } from 'fast-jwt';
import type { Config } from '../config.js';
import { newId } from '../lib/ids.js';
import type { OrgRole } from '../modules/orgs/orgs.tables.js';

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

/**
 * An HS256 key for jose, imported once: given raw bytes, jose imports them again for every token. Session
 * tokens use fast-jwt instead (below); the sign-in flow cookie (idp.service.ts) uses jose.
 */
export function hmacKey(secret: Uint8Array): Promise<CryptoKey> {
  const raw = new Uint8Array(secret); // its own ArrayBuffer, as WebCrypto's types ask
  return crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
}

/**
 * Signs, reads and sets session tokens: HS256 only, the algorithm pinned on both sides. fast-jwt verifies
 * in the request's own thread and keeps recently verified tokens (by their SHA-256) until they expire:
 * with jose's WebCrypto, verifying was a sixth of the CPU of a short authenticated read. Revocation is
 * checked against the database on every request all the same (access.ts).
 */
export class Sessions {
  private readonly signer: (payload: Record<string, unknown>) => string;
  private readonly verifier: (token: string) => Record<string, unknown>;
  /** Cookies carry Secure when the service is served over https. */
  readonly secureCookie: boolean;

  constructor(private readonly config: Config) {
    this.signer = createSigner({ key: config.jwtSecret, algorithm: 'HS256' });
    this.verifier = createVerifier({
      key: config.jwtSecret,
      algorithms: ['HS256'],
      requiredClaims: ['sub', 'email', 'iat', 'exp', 'jti'],
      cache: true,
    });
    this.secureCookie = config.baseUrl.startsWith('https:');
  }

  async issue(subject: {
    userId: string;
    email: string;
    organizationId: string | null;
    role: OrgRole | null;
  }): Promise<IssuedToken> {
    const now = Math.floor(Date.now() / 1000);
    const accessToken = this.signer({
      sub: subject.userId,
      email: subject.email,
      organizationId: subject.organizationId,
      role: subject.role,
      iat: now,
      exp: now + this.config.jwtExpirySeconds,
      // A UUIDv7 jti also records the millisecond of issue, which a password reset compares against.
      jti: newId(),
    });
    return { accessToken, tokenType: 'Bearer', expiresIn: this.config.jwtExpirySeconds };
  }

  /** The claims of the first presented token that verifies: bearer header, then cookie. */
  async read(request: FastifyRequest): Promise<{ claims: SessionClaims; fromCookie: boolean } | null> {
    const header = request.headers.authorization;
    const bearer = header?.match(/^Bearer\s+(\S+)$/i)?.[1];
    const cookie = request.cookies[COOKIE_NAME];
    for (const [token, fromCookie] of [
      [bearer, false],
      [cookie, true],
    ] as const) {
      if (!token) continue;
      const claims = this.verify(token);
      if (claims) return { claims, fromCookie };
    }
    return null;
  }

  private verify(token: string): SessionClaims | null {
    try {
      const payload = this.verifier(token);
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
    } catch {
      return null;
    }
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

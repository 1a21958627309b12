import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type * as Oidc from 'openid-client';
import type { Config } from '../../config.js';
import { transaction, type Db } from '../../db/client.js';
import type { Memberships } from '../../http/pipeline/access.js';
import { hmacKey, type Sessions } from '../../http/pipeline/session.js';
import { normalizeEmail } from '../../lib/email.js';
import {
  findUserByEmail,
  findUserByIdentity,
  insertUser,
  linkIdentity,
  markEmailProven,
  publicUser,
  removeUnprovenPassword,
  type UserRow,
} from './auth.repo.js';
import { sessionFor } from './auth.service.js';
import type { RegistrationPolicy } from './registration-policy.js';

type OidcConfig = NonNullable<Config['oidc']>;

/** How long a started sign-in may take at the provider. */
export const FLOW_TTL_SECONDS = 600;
const SCOPE = 'openid email profile';
const FLOW_AUDIENCE = 'mel-idp-flow';

/**
 * openid-client and jose load at the first sign-in, not at start-up: a service without an identity
 * provider never needs them (about 1 MB of heap, measured).
 */
const openIdClient = () => import('openid-client');
const jose = () => import('jose');

/** A failed sign-in, named by the code the front end receives (`?error=<code>`). */
export class SignInFailure extends Error {
  constructor(
    readonly code: string,
    cause?: unknown,
  ) {
    super(`External sign-in failed: ${code}`, { cause });
  }
}

interface Flow {
  state: string;
  nonce: string;
  verifier: string;
}

/** The provider's own error code when it is a plain OAuth code, else ours. */
function codeOf(err: unknown, fallback: string): string {
  const code = (err as { error?: unknown }).error;
  return typeof code === 'string' && /^[a-z_]{1,64}$/.test(code) ? code : fallback;
}

function namesOf(claims: Oidc.IDToken, email: string): { firstName: string; lastName: string } {
  const given = typeof claims.given_name === 'string' ? claims.given_name.trim() : '';
  const family = typeof claims.family_name === 'string' ? claims.family_name.trim() : '';
  if (given || family) return { firstName: given || family, lastName: given ? family : '' };
  const [first = '', ...rest] = (typeof claims.name === 'string' ? claims.name : '').trim().split(/\s+/);
  return first
    ? { firstName: first, lastName: rest.join(' ') }
    : { firstName: email.split('@')[0]!, lastName: '' };
}

/**
 * Sign-in through an external OpenID Connect provider with `openid-client` (DECISIONS.md section 3):
 * authorization code flow with PKCE (S256), state and nonce, kept in a short-lived signed cookie
 * between the two legs; the ID token is checked by the library (issuer, audience, nonce, expiry).
 */
export class ExternalSignIn {
  private discovered?: Promise<Oidc.Configuration>;
  private readonly flowKey: Promise<CryptoKey>;

  constructor(
    private readonly db: Db,
    private readonly sessions: Sessions,
    private readonly memberships: Memberships,
    private readonly settings: OidcConfig,
    jwtSecret: string,
    private readonly log: FastifyBaseLogger,
    /** REGISTRATION: whether a first sign-in may create an account for its address. */
    private readonly registration: RegistrationPolicy,
  ) {
    // A key of its own, so a flow cookie can never pass for a session token.
    this.flowKey = hmacKey(createHash('sha256').update(`${jwtSecret}:idp-flow`).digest());
  }

  /** The provider's metadata, discovered once; a failed discovery is tried again next time. */
  private configuration(): Promise<Oidc.Configuration> {
    this.discovered ??= openIdClient()
      .then((oidc) =>
        oidc.discovery(
          new URL(this.settings.issuer),
          this.settings.clientId,
          this.settings.clientSecret,
          undefined,
          // Plain http: only a provider on this machine (config.ts refuses any other), for development and tests.
          new URL(this.settings.issuer).protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : {},
        ),
      )
      .catch((err: unknown) => {
        this.discovered = undefined;
        throw new SignInFailure('provider_unavailable', err);
      });
    return this.discovered;
  }

  /** The provider's authorization URL and the signed flow to keep in a cookie until the callback. */
  async start(): Promise<{ url: string; flow: string }> {
    const configuration = await this.configuration();
    const [oidc, { SignJWT }] = await Promise.all([openIdClient(), jose()]);
    const flow: Flow = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      verifier: oidc.randomPKCECodeVerifier(),
    };
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: this.settings.redirectUri,
      scope: SCOPE,
      code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: 'S256',
      state: flow.state,
      nonce: flow.nonce,
    });
    const signed = await new SignJWT({ ...flow })
      .setProtectedHeader({ alg: 'HS256' })
      .setAudience(FLOW_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${FLOW_TTL_SECONDS}s`)
      .sign(await this.flowKey);
    return { url: url.href, flow: signed };
  }

  private async readFlow(cookie: string | undefined): Promise<Flow> {
    if (!cookie) throw new SignInFailure('invalid_state');
    const { jwtVerify } = await jose();
    try {
      const { payload } = await jwtVerify(cookie, await this.flowKey, {
        algorithms: ['HS256'],
        audience: FLOW_AUDIENCE,
      });
      const { state, nonce, verifier } = payload;
      if (typeof state !== 'string' || typeof nonce !== 'string' || typeof verifier !== 'string')
        throw new Error('flow');
      return { state, nonce, verifier };
    } catch (err) {
      throw new SignInFailure('invalid_state', err);
    }
  }

  /**
   * The callback: checks the state against the flow cookie, exchanges the code, and requires a verified
   * email. The user is found by provider subject, else by email (and linked), else created without a
   * password. Every failure is a SignInFailure; no session exists until this returns.
   */
  async finish(query: string, flowCookie: string | undefined) {
    const flow = await this.readFlow(flowCookie);
    const params = new URLSearchParams(query);
    // State first: a forged callback must not choose the error the user is shown.
    if (params.get('state') !== flow.state) throw new SignInFailure('invalid_state');
    const providerError = params.get('error');
    if (providerError) throw new SignInFailure(codeOf({ error: providerError }, 'login_failed'));
    const configuration = await this.configuration();
    const current = new URL(this.settings.redirectUri);
    current.search = params.toString();
    const oidc = await openIdClient();
    let claims: Oidc.IDToken | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, current, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
    } catch (err) {
      throw new SignInFailure(codeOf(err, 'invalid_token'), err);
    }
    if (!claims) throw new SignInFailure('invalid_token');
    const email = typeof claims.email === 'string' ? normalizeEmail(claims.email) : '';
    if (!email || (claims.email_verified !== true && claims.email_verified !== 'true')) {
      throw new SignInFailure('email_not_verified');
    }
    const user = await this.userFor(
      configuration.serverMetadata().issuer,
      claims.sub,
      email,
      namesOf(claims, email),
    );
    this.log.info({ userId: user.id }, 'signed in through the identity provider');
    return {
      user: publicUser(user),
      token: await sessionFor(this.db, this.sessions, this.memberships, user),
    };
  }

  private userFor(
    issuer: string,
    subject: string,
    email: string,
    names: { firstName: string; lastName: string },
  ) {
    return transaction(this.db, async (tx): Promise<UserRow> => {
      const known = await findUserByIdentity(tx, issuer, subject);
      if (known) return known;
      const now = new Date();
      const existing = await findUserByEmail(tx, email);
      // A new account is REGISTRATION's to allow, as at registration; existing accounts always sign in.
      if (!existing && (await this.registration.refusal(tx, email)) !== null) {
        throw new SignInFailure('registration_closed');
      }
      // The provider verified the address (the callback requires it): a user it creates has proven it.
      const user =
        existing ??
        (await insertUser(tx, { email, passwordHash: null, emailVerifiedAt: now, ...names })) ??
        // Created by a concurrent sign-in or registration since the look-up.
        (await findUserByEmail(tx, email));
      if (!user) throw new SignInFailure('login_failed');
      await linkIdentity(tx, { issuer, subject, userId: user.id, email });
      // A password set before anyone proved the address may be someone else's (registered in advance to
      // take the account over): it is removed, with every session it opened. A password whose owner had
      // proven the address (verification, reset or invitation link) stays. Without one, the owner can set
      // a new one through forgot-password, which proves the address.
      const removed = await removeUnprovenPassword(tx, user.id, now);
      // From now on the address counts as proven: the provider vouched for it.
      await markEmailProven(tx, user.id, now);
      const proven = { ...user, emailVerifiedAt: user.emailVerifiedAt ?? now };
      return removed ? { ...proven, passwordHash: null } : proven;
    });
  }
}

/**
 * A real OpenID Connect provider (oidc-provider) for tests, on 127.0.0.1 with a free port, and a scripted
 * "browser" that walks an authorization URL to the redirect back to the relying party.
 *
 * Sign-in is test-only: `/interaction/:uid` (served before the provider's own routes) signs in the account
 * chosen with `signInAs`, or denies with `access_denied`; consent is never asked (`loadExistingGrant` grants
 * the requested scopes). ID tokens carry the scope claims (`conformIdTokenClaims: false`).
 */
import { generateKeyPair, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';

export interface ProviderAccount {
  sub: string;
  email: string;
  email_verified: boolean;
  given_name?: string;
  family_name?: string;
}

export interface TestProvider {
  issuer: string; // http://127.0.0.1:<port>
  clientId: string;
  clientSecret: string;
  redirectUri: string; // as passed to startProvider
  /** The account the next interaction signs in; null: the user denies (interaction finishes with error access_denied). */
  signInAs(account: ProviderAccount | null): void;
  close(): Promise<void>;
}

/** The few parts of oidc-provider (which ships no types) used here. */
interface OidcProvider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<{ prompt: { name: string } }>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
}
type ProviderClass = new (issuer: string, configuration: Record<string, unknown>) => OidcProvider;

/** oidc-provider prints notices through console.warn/info (Node 22 preferred, dev-only defaults); keep tests quiet. */
async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const { warn, info } = console;
  console.warn = (...args: unknown[]) => {
    if (!String(args[0]).includes('oidc-provider')) warn(...args);
  };
  console.info = (...args: unknown[]) => {
    if (!String(args[0]).includes('oidc-provider')) info(...args);
  };
  try {
    return await fn();
  } finally {
    console.warn = warn;
    console.info = info;
  }
}

let providerClass: Promise<ProviderClass> | undefined;
function loadProvider(): Promise<ProviderClass> {
  providerClass ??= quietly(async () => {
    // @ts-expect-error -- oidc-provider ships no type declarations (see OidcProvider above).
    const mod = await import('oidc-provider');
    return mod.default as ProviderClass;
  });
  return providerClass;
}

let signingKey: Promise<Record<string, unknown>> | undefined;
function loadSigningKey(): Promise<Record<string, unknown>> {
  signingKey ??= promisify(generateKeyPair)('rsa', { modulusLength: 2048 }).then(({ privateKey }) => ({
    ...privateKey.export({ format: 'jwk' }),
    kid: 'test-rs256',
    alg: 'RS256',
    use: 'sig',
  }));
  return signingKey;
}

/** In-memory storage (the built-in one warns and is shared by every provider in the process). */
function memoryAdapter() {
  const store = new Map<string, { payload: Record<string, any>; expiresAt: number }>();
  return (model: string) => {
    const key = (id: string) => `${model}:${id}`;
    const get = (k: string | undefined) => {
      const entry = k === undefined ? undefined : store.get(k);
      if (!entry) return undefined;
      if (entry.expiresAt <= Date.now()) {
        store.delete(k!);
        return undefined;
      }
      return entry.payload;
    };
    const findBy = (field: string, value: string) => {
      for (const [k, entry] of store) {
        if (k.startsWith(`${model}:`) && entry.payload[field] === value) return get(k);
      }
      return undefined;
    };
    return {
      async upsert(id: string, payload: Record<string, any>, expiresIn?: number) {
        const expiresAt = typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : Infinity;
        store.set(key(id), { payload, expiresAt });
      },
      async find(id: string) {
        return get(key(id));
      },
      async findByUid(uid: string) {
        return findBy('uid', uid);
      },
      async findByUserCode(userCode: string) {
        return findBy('userCode', userCode);
      },
      async consume(id: string) {
        const payload = get(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id: string) {
        store.delete(key(id));
      },
      async revokeByGrantId(grantId: string) {
        for (const [k, entry] of store) {
          if (entry.payload.grantId === grantId) store.delete(k);
        }
      },
    };
  };
}

export async function startProvider(redirectUri: string): Promise<TestProvider> {
  const [Provider, jwk] = await Promise.all([loadProvider(), loadSigningKey()]);
  const clientId = 'test-client';
  const clientSecret = randomBytes(24).toString('base64url');
  const accounts = new Map<string, ProviderAccount>();
  let next: ProviderAccount | null | undefined;

  const interaction = async (req: IncomingMessage, res: ServerResponse) => {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name !== 'login') throw new Error(`unexpected prompt ${details.prompt.name}`);
    if (next === undefined) throw new Error('call signInAs() before authorize()');
    const result =
      next === null
        ? { error: 'access_denied', error_description: 'the user denied the request' }
        : { login: { accountId: next.sub } };
    await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
  };

  const server = createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && /^\/interaction\/[^/]+$/.test(pathname)) {
      interaction(req, res).catch((err: unknown) => {
        res.statusCode = 500;
        res.setHeader('content-type', 'text/plain');
        res.end(`test interaction failed: ${err instanceof Error ? err.message : String(err)}`);
      });
      return;
    }
    providerCallback(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = await quietly(async () => {
    return new Provider(issuer, {
      adapter: memoryAdapter(),
      jwks: { keys: [jwk] },
      cookies: { keys: [randomBytes(32).toString('base64url')] },
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_post',
        },
      ],
      pkce: { required: () => true },
      scopes: ['openid', 'email', 'profile'],
      claims: {
        openid: ['sub'],
        email: ['email', 'email_verified'],
        profile: ['given_name', 'family_name', 'name'],
      },
      conformIdTokenClaims: false,
      features: { devInteractions: { enabled: false } },
      async findAccount(_ctx: unknown, sub: string) {
        const account = accounts.get(sub);
        if (!account) return undefined;
        const name = [account.given_name, account.family_name].filter(Boolean).join(' ') || undefined;
        return { accountId: sub, claims: async () => ({ ...account, name }) };
      },
      async loadExistingGrant(ctx: any) {
        const { oidc } = ctx;
        const grantId = oidc.result?.consent?.grantId ?? oidc.session.grantIdFor(oidc.client.clientId);
        const grant =
          (grantId ? await oidc.provider.Grant.find(grantId) : undefined) ??
          new oidc.provider.Grant({ clientId: oidc.client.clientId, accountId: oidc.account.accountId });
        grant.addOIDCScope([...oidc.requestParamOIDCScopes].join(' '));
        grant.addOIDCClaims([...oidc.requestParamClaims]);
        await grant.save();
        return grant;
      },
      // Fixed values instead of the defaults, which print a notice the first time they are used.
      ttl: {
        AccessToken: 600,
        AuthorizationCode: 60,
        IdToken: 600,
        Interaction: 600,
        Session: 3600,
        Grant: 3600,
      },
      clientBasedCORS: () => false,
      async renderError(ctx: any, out: Record<string, unknown>) {
        ctx.type = 'json';
        ctx.body = out;
      },
    });
  });
  const providerCallback = provider.callback();

  return {
    issuer,
    clientId,
    clientSecret,
    redirectUri,
    signInAs(account) {
      if (account) accounts.set(account.sub, { ...account });
      next = account ? { ...account } : null;
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

/** A minimal cookie jar for one origin: name and path, Max-Age/Expires deletions. */
class CookieJar {
  private cookies = new Map<string, { name: string; value: string; path: string }>();

  store(setCookies: string[]) {
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      let path = '/';
      let expired = false;
      for (const attribute of attributes) {
        const [k = '', v = ''] = attribute.split('=', 2);
        const lower = k.toLowerCase();
        if (lower === 'path' && v.startsWith('/')) path = v;
        if (lower === 'max-age' && Number(v) <= 0) expired = true;
        if (lower === 'expires' && Date.parse(v) <= Date.now()) expired = true;
      }
      const id = `${name};${path}`;
      if (expired) this.cookies.delete(id);
      else this.cookies.set(id, { name, value, path });
    }
  }

  header(url: URL): string {
    return [...this.cookies.values()]
      .filter(
        ({ path }) =>
          url.pathname === path || url.pathname.startsWith(path.endsWith('/') ? path : `${path}/`),
      )
      .sort((a, b) => b.path.length - a.path.length)
      .map(({ name, value }) => `${name}=${value}`)
      .join('; ');
  }
}

/**
 * Plays the browser between the relying party's authorization URL and the redirect back: follows the provider's
 * redirects with a cookie jar (fetch, redirect: 'manual'), finishing the provider's interaction with the chosen
 * account, and returns the final Location that points at redirectUri (with code and state, or error=access_denied).
 */
export async function authorize(authorizationUrl: string): Promise<URL> {
  let url = new URL(authorizationUrl);
  const providerOrigin = url.origin;
  const redirectUri = url.searchParams.get('redirect_uri');
  const isRedirectBack = (target: URL) =>
    target.origin !== providerOrigin ||
    (redirectUri !== null && `${target.origin}${target.pathname}` === redirectUri);
  const jar = new CookieJar();

  for (let hop = 0; hop < 10; hop++) {
    const cookie = jar.header(url);
    const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    jar.store(res.headers.getSetCookie());
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) {
      const body = await res.text();
      throw new Error(
        `authorize: ${res.status} from ${url.href} instead of a redirect: ${body.slice(0, 500)}`,
      );
    }
    await res.body?.cancel();
    const target = new URL(location, url);
    if (isRedirectBack(target)) return target;
    url = target;
  }
  throw new Error('authorize: too many redirects');
}

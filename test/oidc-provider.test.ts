import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize, startProvider, type TestProvider } from './helpers/oidc-provider.js';

const redirectUri = 'http://127.0.0.1:9/auth/oidc/callback';
const alice = {
  sub: 'alice-123',
  email: 'alice@example.org',
  email_verified: true,
  given_name: 'Alice',
  family_name: 'Liddell',
};

let op: TestProvider;
let config: client.Configuration;

beforeAll(async () => {
  op = await startProvider(redirectUri);
  config = await client.discovery(new URL(op.issuer), op.clientId, op.clientSecret, undefined, {
    execute: [client.allowInsecureRequests],
  });
});

afterAll(async () => {
  await op?.close();
});

async function startFlow() {
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid email profile',
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { url, codeVerifier, state, nonce };
}

describe('test OIDC provider', () => {
  it('signs the chosen account in; the ID token carries its claims; a code works once', async () => {
    op.signInAs(alice);
    const flow = await startFlow();
    const callback = await authorize(flow.url.href);
    expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri);
    expect(callback.searchParams.get('state')).toBe(flow.state);
    expect(callback.searchParams.get('code')).toBeTruthy();

    const checks = {
      pkceCodeVerifier: flow.codeVerifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
    };
    const tokens = await client.authorizationCodeGrant(config, callback, checks);
    expect(tokens.claims()).toMatchObject({
      iss: op.issuer,
      aud: op.clientId,
      sub: alice.sub,
      email: alice.email,
      email_verified: true,
      given_name: 'Alice',
      family_name: 'Liddell',
      name: 'Alice Liddell',
    });

    await expect(client.authorizationCodeGrant(config, callback, checks)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('signInAs(null) makes the user deny: error=access_denied', async () => {
    op.signInAs(null);
    const flow = await startFlow();
    const callback = await authorize(flow.url.href);
    expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri);
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe(flow.state);
    expect(callback.searchParams.has('code')).toBe(false);
  });

  it('openid-client refuses a state mismatch', async () => {
    op.signInAs({ sub: 'bob-456', email: 'bob@example.org', email_verified: false });
    const flow = await startFlow();
    const callback = await authorize(flow.url.href);
    await expect(
      client.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: flow.codeVerifier,
        expectedState: client.randomState(),
        expectedNonce: flow.nonce,
      }),
    ).rejects.toMatchObject({
      code: 'OAUTH_INVALID_RESPONSE',
      cause: { message: expect.stringContaining('"state"') },
    });
  });

  it('requires PKCE', async () => {
    op.signInAs(alice);
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid',
      state: 'x',
    });
    const callback = await authorize(url.href);
    expect(callback.searchParams.get('error')).toBe('invalid_request');
  });
});

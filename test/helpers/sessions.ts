import { TEST_APP_URL, type Call } from './http.js';

/** The decoded header (0) or claims (1) of a JWT. */
export const part = (token: string, index: number) =>
  JSON.parse(Buffer.from(token.split('.')[index]!, 'base64url').toString()) as Record<string, unknown>;
export const claimsOf = (token: string) => part(token, 1);
export const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
/**
 * A browser's cookie session, sent as from the client application (APP_URL of buildTestApp), as a browser
 * sends it; tests of the origin check itself build their headers by hand.
 */
export const withCookie = (token: string) => ({ headers: { cookie: `jwt=${token}`, origin: TEST_APP_URL } });

/** The raw `Set-Cookie` line for `jwt`, split into its value and its sorted attributes. */
export function jwtCookie(res: Call): { value: string; attributes: string[] } {
  const raw = res.headers['set-cookie'];
  const line = (Array.isArray(raw) ? raw : raw ? [raw] : []).find((c) => c.startsWith('jwt='));
  if (!line) throw new Error('no jwt cookie set');
  const [pair, ...attributes] = line.split(';').map((s) => s.trim());
  return { value: pair!.slice('jwt='.length), attributes: attributes.sort() };
}

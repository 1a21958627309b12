/** Where signing in leads when the link named nowhere (or somewhere refused): the member's settings. */
export const AFTER_SIGN_IN = '/settings';

const SIGN_IN = '/sign-in';
const ORIGIN = 'http://service.invalid';

/**
 * A page of this service to open after signing in, or null. Only a path is taken: `/` then anything but
 * a second `/` or a `\` (`//host` and `/\host` are other sites to a browser), printable ASCII only (no
 * backslash, space or control character: browsers drop tabs and line breaks from URLs, so `/\t/host`
 * would become `//host`; and a `Location` header cannot carry other characters, while the links the
 * service makes are percent-encoded), at most 2,048 characters, and not the sign-in page itself.
 */
export function sameOriginPath(value: string | undefined): string | null {
  if (value === undefined || value.length > 2048) return null;
  if (!value.startsWith('/') || value.startsWith('//')) return null;
  if (/[^\x21-\x5b\x5d-\x7e]/.test(value)) return null;
  const url = new URL(value, ORIGIN);
  if (url.origin !== ORIGIN || url.pathname === SIGN_IN) return null;
  return value;
}

/** The sign-in page that leads back to `path` (a request's URL, query included). */
export const signInFor = (path: string) => `${SIGN_IN}?next=${encodeURIComponent(path)}`;

/** Where signing in leads when the link named nowhere (or somewhere refused): the member's settings. */
export const AFTER_SIGN_IN = '/settings';

const SIGN_IN = '/sign-in';
const ORIGIN = 'http://service.invalid';

/**
 * A page of this service to open after signing in, or null. Only a path is taken: `/` then anything but
 * a second `/` or a `\` (`//host` and `/\host` are other sites to a browser), no backslash, space or
 * control character anywhere (browsers drop tabs and line breaks from URLs, so `/\t/host` would become
 * `//host`), at most 2,048 characters, and not the sign-in page itself.
 */
export function sameOriginPath(value: string | undefined): string | null {
  if (value === undefined || value.length > 2048) return null;
  if (!value.startsWith('/') || value.startsWith('//')) return null;
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\\\s\u0000-\u001f\u007f]/.test(value)) return null;
  const url = new URL(value, ORIGIN);
  if (url.origin !== ORIGIN || url.pathname === SIGN_IN) return null;
  return value;
}

/** The sign-in page that leads back to `path` (a request's URL, query included). */
export const signInFor = (path: string) => `${SIGN_IN}?next=${encodeURIComponent(path)}`;

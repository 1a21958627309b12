/** The Postgres error code behind an error; Drizzle wraps driver errors and keeps them as `cause`. */
export function pgErrorCode(err: unknown): { code?: string; constraint?: string } {
  for (let e = err as { code?: unknown; constraint?: unknown; cause?: unknown } | undefined; e;) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) {
      return { code: e.code, constraint: typeof e.constraint === 'string' ? e.constraint : undefined };
    }
    e = e.cause as typeof e;
  }
  return {};
}

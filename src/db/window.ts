import type { PgSelect } from 'drizzle-orm/pg-core';

/** The slice of a list one page asks for; `limit: null` is the whole list. */
export interface Window {
  limit: number | null;
  offset: number;
}

/** Applies a page window to a list query (built with `.$dynamic()`). */
export function inWindow<T extends PgSelect>(query: T, window: Window): T {
  const offset = query.offset(window.offset);
  return window.limit === null ? offset : offset.limit(window.limit);
}

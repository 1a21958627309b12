import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';

/** Without `page` or `limit` a collection returns at most this many items (DECISIONS.md section 1). */
export const UNPAGED_LIMIT = 1000;
const MAX_LIMIT = 100;

export const PageQuery = {
  page: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      description: 'Page number (from 1); asking for a page returns the envelope.',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_LIMIT, description: 'Page size, 20 by default, 100 at most.' }),
  ),
};

export interface PageRequest {
  page?: number;
  limit?: number;
}

export interface Page<T> {
  data: T[];
  meta: { total: number; page: number; limit: number; totalPages: number };
}

/** Where an unpaged array that was cut short continues; the hook below turns it into a Link header. */
const NEXT_PAGE = Symbol('nextPage');
type CutShort<T> = T[] & { [NEXT_PAGE]?: { page: number; limit: number } };

const COLLECTION =
  'A plain array unless `page` or `limit` is given, then the envelope `{ data, meta }`. Without them at ' +
  'most the first 1,000 items (the activity feed: its 50 newest); when more exist, the response carries ' +
  '`Link: <…?page=11&limit=100>; rel="next"` (feed: `page=2&limit=50`), the same URL and filters with ' +
  'paging added (RFC 8288). Pages carry no Link: `meta` says what remains.';

const PageMeta = Type.Object(
  {
    total: Type.Integer({ description: 'Items in the whole collection' }),
    page: Type.Integer(),
    limit: Type.Integer(),
    totalPages: Type.Integer(),
  },
  { title: 'PageMeta' },
);

const COLLECTION_OPTIONS = {
  description: COLLECTION,
  headers: {
    Link: Type.String({ description: 'Only on an unpaged array cut short: `<next page URL>; rel="next"`' }),
  },
};

/**
 * A collection is a plain array unless the client pages it (DECISIONS.md section 1). The document names
 * both shapes after the item's title: `ProjectList` (the array) and `ProjectPage` (the envelope).
 */
export const Collection = <T extends TSchema>(item: T) => {
  if (!item.title)
    throw new Error('A collection item needs a title: the document names its list and page by it');
  return Type.Union(
    [
      Type.Array(item, { title: `${item.title}List` }),
      Type.Object({ data: Type.Array(item), meta: PageMeta }, { title: `${item.title}Page` }),
    ],
    COLLECTION_OPTIONS,
  );
};

/** A collection of one of two kinds of item, as a filter chooses (indicators, with or without progress). */
export const CollectionOfEither = <A extends TSchema, B extends TSchema>(a: A, b: B) => {
  const [listA, pageA] = Collection(a).anyOf;
  const [listB, pageB] = Collection(b).anyOf;
  return Type.Union([listA, pageA, listB, pageB], COLLECTION_OPTIONS);
};

/**
 * Runs `list` for the requested page and wraps it in the envelope. Without `page` or `limit` it returns
 * the array, cut at `unpagedLimit` (1,000 unless the collection has its own, the activity feed's 50):
 * one row more is read to know whether the next page exists, never the whole collection.
 */
export async function paginate<T>(
  query: PageRequest,
  source: {
    count: () => Promise<number>;
    list: (window: { limit: number; offset: number }) => Promise<T[]>;
    unpagedLimit?: number;
  },
): Promise<T[] | Page<T>> {
  if (query.page === undefined && query.limit === undefined) {
    const cap = source.unpagedLimit ?? UNPAGED_LIMIT;
    const rows = await source.list({ limit: cap + 1, offset: 0 });
    if (rows.length <= cap) return rows;
    const first: CutShort<T> = rows.slice(0, cap);
    // Pages of the largest allowed size that divides the cap: 1,000 continues at page 11 of 100.
    let limit = Math.min(cap, MAX_LIMIT);
    while (cap % limit !== 0) limit -= 1;
    first[NEXT_PAGE] = { page: cap / limit + 1, limit };
    return first;
  }
  const page = query.page ?? 1;
  const limit = query.limit ?? 20;
  const [total, data] = await Promise.all([
    source.count(),
    source.list({ limit, offset: (page - 1) * limit }),
  ]);
  return { data, meta: { total, page, limit, totalPages: Math.ceil(total / limit) } };
}

/**
 * The request's own URL on `baseUrl` (the API's public URL, so a path prefix a proxy strips is kept),
 * its query rebuilt with URLSearchParams: filters kept in order, `page` and `limit` replaced.
 */
function nextPageUrl(baseUrl: string, requestUrl: string, next: { page: number; limit: number }): string {
  // Split where Fastify splits the query off; the WHATWG parser percent-encodes anything unsafe in the path.
  const mark = requestUrl.indexOf('?');
  const path = new URL(mark === -1 ? requestUrl : requestUrl.slice(0, mark), 'http://request.invalid');
  const query = new URLSearchParams(mark === -1 ? '' : requestUrl.slice(mark + 1));
  query.delete('page');
  query.delete('limit');
  query.append('page', String(next.page));
  query.append('limit', String(next.limit));
  return `${baseUrl}${path.pathname}?${query.toString()}`;
}

/** Adds `Link: <next>; rel="next"` to an unpaged collection that `paginate` cut short. */
export function registerPagination(app: FastifyInstance, baseUrl: string): void {
  // Callback style: it runs on every JSON reply, and an async hook would cost a promise each time.
  app.addHook('preSerialization', (request, reply, payload: unknown, done) => {
    const next = Array.isArray(payload) ? (payload as CutShort<unknown>)[NEXT_PAGE] : undefined;
    if (next) void reply.header('link', `<${nextPageUrl(baseUrl, request.url, next)}>; rel="next"`);
    done(null, payload);
  });
}

/** The items of a collection, array or page. */
export const itemsOf = <T>(collection: T[] | Page<T>): T[] =>
  Array.isArray(collection) ? collection : collection.data;

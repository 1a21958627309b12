import { Type, type TSchema } from '@sinclair/typebox';

export const PageQuery = {
  page: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      description: 'Page number (from 1); asking for a page returns the envelope.',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, description: 'Page size, 20 by default, 100 at most.' }),
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

/** A collection is a plain array unless the client pages it (DECISIONS.md section 1). */
export const Collection = <T extends TSchema>(item: T) =>
  Type.Union([
    Type.Array(item),
    Type.Object({
      data: Type.Array(item),
      meta: Type.Object({
        total: Type.Integer(),
        page: Type.Integer(),
        limit: Type.Integer(),
        totalPages: Type.Integer(),
      }),
    }),
  ]);

/**
 * Runs `list` for the requested page and wraps it in the envelope; without `page` or `limit` it returns
 * the array, cut at `unpagedLimit` when the collection has one (the activity feed's 50 newest).
 */
export async function paginate<T>(
  query: PageRequest,
  source: {
    count: () => Promise<number>;
    list: (window: { limit: number | null; offset: number }) => Promise<T[]>;
    unpagedLimit?: number;
  },
): Promise<T[] | Page<T>> {
  if (query.page === undefined && query.limit === undefined) {
    return source.list({ limit: source.unpagedLimit ?? null, offset: 0 });
  }
  const page = query.page ?? 1;
  const limit = query.limit ?? 20;
  const [total, data] = await Promise.all([
    source.count(),
    source.list({ limit, offset: (page - 1) * limit }),
  ]);
  return { data, meta: { total, page, limit, totalPages: Math.ceil(total / limit) } };
}

import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { Dimension } from '../../lib/crosses.js';
import { disaggregations, indicators } from '../indicators/indicators.tables.js';

/**
 * What the set-up import reads of the organization's indicators named by a sheet, all codes in one
 * statement (read-only: writes go through the indicators module's services).
 */

const ofCodes = (orgId: string, codes: readonly string[]) =>
  and(
    eq(indicators.orgId, orgId),
    inArray(
      sql`lower(${indicators.code})`,
      codes.map((code) => code.toLowerCase()),
    ),
  );

/** The code and aggregation method of the organization's indicators of these codes (whatever their case). */
export function indicatorAggregations(db: Db, orgId: string, codes: readonly string[]) {
  if (codes.length === 0) return Promise.resolve([]);
  return db
    .select({ code: indicators.code, aggregationMethod: indicators.aggregationMethod })
    .from(indicators)
    .where(ofCodes(orgId, codes));
}

/**
 * The disaggregations of each indicator of these codes as dimensions, oldest first, by code (lower
 * case): an indicator without any has an empty list; codes the organization lacks are absent.
 */
export async function dimensionsByCode(
  db: Db,
  orgId: string,
  codes: readonly string[],
): Promise<Map<string, Dimension[]>> {
  const byCode = new Map<string, Dimension[]>();
  if (codes.length === 0) return byCode;
  const rows = await db
    .select({
      code: indicators.code,
      name: disaggregations.name,
      categories: disaggregations.categories,
      crosses: disaggregations.crosses,
    })
    .from(indicators)
    .leftJoin(
      disaggregations,
      and(eq(disaggregations.orgId, indicators.orgId), eq(disaggregations.indicatorId, indicators.id)),
    )
    .where(ofCodes(orgId, codes))
    .orderBy(asc(indicators.id), asc(disaggregations.createdAt), asc(disaggregations.id));
  for (const { code, ...dimension } of rows) {
    const list = byCode.get(code.toLowerCase()) ?? [];
    byCode.set(code.toLowerCase(), list);
    if (dimension.name !== null && dimension.categories !== null) {
      list.push({ name: dimension.name, categories: dimension.categories, crosses: dimension.crosses });
    }
  }
  return byCode;
}

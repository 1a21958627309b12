import { transaction, type Db } from '../../db/client.js';
import type { IndicatorDependents } from './indicator-dependents.js';
import type { Member } from '../../http/pipeline/access.js';
import { badRequest, duplicate, hasDependents, notFound } from '../../errors/catalogue.js';
import { refusedDuplicate } from '../../errors/refusals.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import { CELL_SEPARATOR, MAX_CELLS, cellKey, cellsOf } from '../../lib/crosses.js';
import { findIndicator } from './indicators.repo.js';
import {
  countDisaggregations,
  deleteDisaggregation,
  insertDisaggregation,
  listDisaggregations,
  lockIndicator,
  type DisaggregationRow,
} from './disaggregations.repo.js';

const NAME_TAKEN = 'A disaggregation with this name already exists for the indicator';

/** What the API shows: `crosses` only on a cross, so a plain disaggregation reads as it always has. */
export type DisaggregationView = Omit<DisaggregationRow, 'crosses'> & { crosses?: string[] };
function viewOf({ crosses, ...row }: DisaggregationRow): DisaggregationView {
  return crosses ? { ...row, crosses } : row;
}

/** Category names (cells too) are the keys of disaggregatedValues: one indicator never has one twice. */
function checkClashes(existing: DisaggregationRow[], lowered: string[]) {
  for (const other of existing) {
    const clash = other.categories.find((category) => lowered.includes(category.toLowerCase()));
    if (clash !== undefined) {
      throw duplicate(`Category ${clash} is already used by disaggregation ${other.name}`);
    }
  }
}

/**
 * Dimensions of an indicator. Category names are the keys of a report's disaggregatedValues, so they
 * are unique across all of one indicator's disaggregations (compared without regard to case).
 */
export class DisaggregationService {
  constructor(
    private readonly db: Db,
    private readonly dependents: IndicatorDependents,
  ) {}

  async list(member: Member, indicatorId: string, query: PageRequest) {
    if (!(await findIndicator(this.db, member.orgId, indicatorId))) throw notFound('Indicator');
    return paginate(query, {
      count: () => countDisaggregations(this.db, member.orgId, indicatorId),
      list: async (window) =>
        (await listDisaggregations(this.db, member.orgId, indicatorId, window)).map(viewOf),
    });
  }

  create(
    member: Member,
    indicatorId: string,
    input: { name: string; categories?: string[]; crosses?: string[] },
  ): Promise<DisaggregationView> {
    const name = input.name.trim();
    if (input.crosses !== undefined) return this.createCross(member, indicatorId, name, input);
    const categories = (input.categories ?? []).map((category) => category.trim());
    const lowered = categories.map((category) => category.toLowerCase());
    if (new Set(lowered).size !== lowered.length) {
      throw badRequest('categories must not contain duplicates (whatever their case)');
    }
    return transaction(this.db, async (tx) => {
      if (!(await lockIndicator(tx, member.orgId, indicatorId))) throw notFound('Indicator');
      const existing = await listDisaggregations(tx, member.orgId, indicatorId);
      if (existing.some((d) => d.name.toLowerCase() === name.toLowerCase())) throw duplicate(NAME_TAKEN);
      checkClashes(existing, lowered);
      return viewOf(await insertDisaggregation(tx, member.orgId, indicatorId, { name, categories }));
    }).catch(refusedDuplicate(NAME_TAKEN));
  }

  /**
   * A cross of two or more plain disaggregations: its categories are the cells, every combination of
   * theirs joined by `|` in the order sent. Crossing a cross is refused (cross the plain ones instead),
   * and so is crossing the same disaggregations twice.
   */
  private createCross(
    member: Member,
    indicatorId: string,
    name: string,
    input: { categories?: string[]; crosses?: string[] },
  ): Promise<DisaggregationView> {
    if (input.categories !== undefined) {
      throw badRequest('categories must not be sent with crosses: the cells of a cross are its categories');
    }
    const names = input.crosses!.map((crossed) => crossed.trim());
    if (new Set(names.map((n) => n.toLowerCase())).size !== names.length) {
      throw badRequest('crosses must not contain duplicates (whatever their case)');
    }
    return transaction(this.db, async (tx) => {
      if (!(await lockIndicator(tx, member.orgId, indicatorId))) throw notFound('Indicator');
      const existing = await listDisaggregations(tx, member.orgId, indicatorId);
      const crossed = names.map((n) => existing.find((d) => d.name.toLowerCase() === n.toLowerCase()));
      const problems = names.flatMap((n, i) => {
        const found = crossed[i];
        if (!found) return [`crosses: ${n} is not a disaggregation of the indicator`];
        if (found.crosses)
          return [`crosses: ${found.name} is itself a cross; cross plain disaggregations only`];
        if (found.categories.some((c) => c.includes(CELL_SEPARATOR))) {
          return [
            `crosses: ${found.name} has a category with "${CELL_SEPARATOR}", which cell keys use to join categories`,
          ];
        }
        return [];
      });
      if (problems.length > 0) throw badRequest(...problems);
      const plain = crossed as DisaggregationRow[];
      // Counted before any is made: four disaggregations of 50 would be 6.25 million cells.
      const cellCount = plain.reduce((product, d) => product * d.categories.length, 1);
      if (cellCount > MAX_CELLS) {
        throw badRequest(`crosses: ${cellCount} cells, more than ${MAX_CELLS}`);
      }
      const cells = cellsOf(plain);
      if (existing.some((d) => d.name.toLowerCase() === name.toLowerCase())) throw duplicate(NAME_TAKEN);
      const set = (list: string[]) => [...list].sort().join('\n');
      const twin = existing.find((d) => d.crosses && set(d.crosses) === set(plain.map((p) => p.name)));
      if (twin)
        throw duplicate(`${plain.map((p) => p.name).join(' and ')} are already crossed by ${twin.name}`);
      const categories = cells.map(cellKey);
      checkClashes(
        existing,
        categories.map((c) => c.toLowerCase()),
      );
      const crosses = plain.map((p) => p.name);
      return viewOf(await insertDisaggregation(tx, member.orgId, indicatorId, { name, categories, crosses }));
    }).catch(refusedDuplicate(NAME_TAKEN));
  }

  async remove(member: Member, indicatorId: string, id: string): Promise<void> {
    await transaction(this.db, async (tx) => {
      if (!(await lockIndicator(tx, member.orgId, indicatorId))) throw notFound('Indicator');
      const all = await listDisaggregations(tx, member.orgId, indicatorId);
      const found = all.find((d) => d.id === id);
      if (!found) throw notFound('Disaggregation');
      const crossing = all.filter((d) => d.crosses?.includes(found.name));
      if (crossing.length > 0) {
        throw hasDependents(
          `Disaggregation is crossed by ${crossing.map((d) => d.name).join(', ')}; remove the cross first`,
        );
      }
      if (await this.dependents.holdCategories(tx, member.orgId, indicatorId, found.categories)) {
        throw hasDependents('Disaggregation is used by indicator reports');
      }
      await deleteDisaggregation(tx, member.orgId, indicatorId, id);
    });
  }
}

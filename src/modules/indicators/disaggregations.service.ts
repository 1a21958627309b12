import { transaction, type Db } from '../../db/client.js';
import type { IndicatorDependents } from './indicator-dependents.js';
import type { Member } from '../../http/pipeline/access.js';
import { badRequest, duplicate, hasDependents, notFound } from '../../errors/catalogue.js';
import { refusedDuplicate } from '../../errors/refusals.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
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
      list: (window) => listDisaggregations(this.db, member.orgId, indicatorId, window),
    });
  }

  create(
    member: Member,
    indicatorId: string,
    input: { name: string; categories: string[] },
  ): Promise<DisaggregationRow> {
    const name = input.name.trim();
    const categories = input.categories.map((category) => category.trim());
    const lowered = categories.map((category) => category.toLowerCase());
    if (new Set(lowered).size !== lowered.length) {
      throw badRequest('categories must not contain duplicates (whatever their case)');
    }
    return transaction(this.db, async (tx) => {
      if (!(await lockIndicator(tx, member.orgId, indicatorId))) throw notFound('Indicator');
      const existing = await listDisaggregations(tx, member.orgId, indicatorId);
      if (existing.some((d) => d.name.toLowerCase() === name.toLowerCase())) throw duplicate(NAME_TAKEN);
      for (const other of existing) {
        const clash = other.categories.find((category) => lowered.includes(category.toLowerCase()));
        if (clash !== undefined) {
          throw duplicate(`Category ${clash} is already used by disaggregation ${other.name}`);
        }
      }
      return insertDisaggregation(tx, member.orgId, indicatorId, { name, categories });
    }).catch(refusedDuplicate(NAME_TAKEN));
  }

  async remove(member: Member, indicatorId: string, id: string): Promise<void> {
    await transaction(this.db, async (tx) => {
      if (!(await lockIndicator(tx, member.orgId, indicatorId))) throw notFound('Indicator');
      const found = (await listDisaggregations(tx, member.orgId, indicatorId)).find((d) => d.id === id);
      if (!found) throw notFound('Disaggregation');
      if (await this.dependents.holdCategories(tx, member.orgId, indicatorId, found.categories)) {
        throw hasDependents('Disaggregation is used by indicator reports');
      }
      await deleteDisaggregation(tx, member.orgId, indicatorId, id);
    });
  }
}

import type { Static } from '@sinclair/typebox';
import { transaction, type Db } from '../../db/client.js';
import { duplicate, notFound } from '../../errors/catalogue.js';
import { refusedDuplicate } from '../../errors/refusals.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import {
  countDonors,
  deleteDonor,
  donorCodeTaken,
  findDonor,
  insertDonor,
  listDonors,
  updateDonor,
  type DonorValues,
} from './donors.repo.js';
import type { CreateDonorBody, UpdateDonorBody } from './donors.schemas.js';

const CODE_TAKEN = 'A donor with this code already exists';

type CreateInput = Static<typeof CreateDonorBody>;
type UpdateInput = Static<typeof UpdateDonorBody>;

const trimmed = <T extends string | null | undefined>(value: T): T =>
  (typeof value === 'string' ? value.trim() : value) as T;

/** Only the fields the client sent; names and codes without surrounding spaces. */
function values(input: UpdateInput): Partial<DonorValues> {
  const out: Partial<DonorValues> = {};
  if (input.name !== undefined) out.name = input.name.trim();
  if (input.code !== undefined) out.code = input.code.trim();
  if (input.type !== undefined) out.type = input.type;
  if (input.country !== undefined) out.country = trimmed(input.country);
  if (input.website !== undefined) out.website = input.website;
  if (input.contactName !== undefined) out.contactName = trimmed(input.contactName);
  if (input.contactEmail !== undefined) out.contactEmail = input.contactEmail;
  if (input.notes !== undefined) out.notes = input.notes;
  return out;
}

/** The organization's donor registry; programs attach donors by id. */
export class DonorService {
  constructor(private readonly db: Db) {}

  list(orgId: string, query: PageRequest) {
    return paginate(query, {
      count: () => countDonors(this.db, orgId),
      list: (window) => listDonors(this.db, orgId, window),
    });
  }

  async get(orgId: string, id: string) {
    const donor = await findDonor(this.db, orgId, id);
    if (!donor) throw notFound('Donor');
    return donor;
  }

  create(orgId: string, input: CreateInput) {
    const donor = values(input) as DonorValues;
    return transaction(this.db, async (tx) => {
      if (await donorCodeTaken(tx, orgId, donor.code)) throw duplicate(CODE_TAKEN);
      return insertDonor(tx, orgId, donor);
    }).catch(refusedDuplicate(CODE_TAKEN)); // the unique index on (org, lower(code)) settles a lost race
  }

  update(orgId: string, id: string, input: UpdateInput) {
    const changes = values(input);
    return transaction(this.db, async (tx) => {
      const current = await findDonor(tx, orgId, id);
      if (!current) throw notFound('Donor');
      if (Object.keys(changes).length === 0) return current;
      if (changes.code !== undefined) {
        if (await donorCodeTaken(tx, orgId, changes.code, id)) throw duplicate(CODE_TAKEN);
      }
      const updated = await updateDonor(tx, orgId, id, changes);
      if (!updated) throw notFound('Donor');
      return updated;
    }).catch(refusedDuplicate(CODE_TAKEN)); // the unique index on (org, lower(code)) settles a lost race
  }

  async remove(orgId: string, id: string): Promise<void> {
    if (!(await deleteDonor(this.db, orgId, id))) throw notFound('Donor');
  }
}

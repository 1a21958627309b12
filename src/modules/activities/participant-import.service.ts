import { transaction, type Db } from '../../db/client.js';
import { notFound } from '../../errors/catalogue.js';
import type { Member } from '../../http/pipeline/access.js';
import type { Keyring } from '../../lib/sealed-values.js';
import type { ImportRowResult } from '../../lib/spreadsheets/import-report.js';
import { cell, type Table } from '../../lib/spreadsheets/tables.js';
import { recordAudit, type AuditSource } from '../privacy/index.js';
import { ensureProjectAccess } from '../projects/index.js';
import { findActivity, lockActivity } from './activities.repo.js';
import { importRows, readParticipantSheet, type ImportRow } from './participant-import-rows.js';
import {
  applyRegistrations,
  NATIONAL_ID_ELSEWHERE,
  planRegistrations,
  type Applied,
  type Planned,
} from './registration-plan.js';
import { registeredAlready } from './registrations.repo.js';

export interface ImportOptions {
  /** Check and report, change nothing. */
  dryRun: boolean;
  /** All rows or none: one refused row leaves the whole file unapplied. */
  atomic: boolean;
}

/** What an import did: each row's result, whether they were applied, and the sheet as it was read. */
export interface ImportOutcome {
  rows: ImportRowResult[];
  applied: boolean;
  table: Table;
  format: 'xlsx' | 'csv';
}

/**
 * Participants registered in an activity from a spreadsheet, one a row, with the rules of the batch
 * registration (registration-plan.ts) and a report per row: `new`, `matched existing` or `refused`.
 */
export class ParticipantImportService {
  constructor(
    private readonly db: Db,
    private readonly keyring: Keyring,
    private readonly webhooksQueued: () => void,
  ) {}

  async import(
    member: Member,
    source: AuditSource,
    activityId: string,
    bytes: Buffer,
    options: ImportOptions,
  ): Promise<ImportOutcome> {
    const found = await findActivity(this.db, member.orgId, activityId);
    if (!found) throw notFound('Activity');
    await ensureProjectAccess(this.db, member, found.projectId);
    const { table, format } = await readParticipantSheet(bytes);
    const rows = importRows(table);

    const outcome = await transaction(this.db, async (tx) => {
      const activity = await lockActivity(tx, member.orgId, activityId, 'share');
      if (!activity) throw notFound('Activity');
      await ensureProjectAccess(tx, member, activity.projectId);
      const valid = rows.filter((row) => row.item !== null);
      const items = valid.map((row) => row.item!);
      const plans = await planRegistrations(tx, this.keyring, member, items);
      const already = await registeredAlready(
        tx,
        member.orgId,
        activityId,
        plans.flatMap((plan) => (plan.kind === 'existing' ? [plan.id] : [])),
      );
      const refused =
        rows.length -
        valid.length +
        plans.filter((plan) => plan.kind === 'unknown' || plan.kind === 'elsewhere').length;
      const apply = !options.dryRun && (!options.atomic || refused === 0) && refused < rows.length;
      const applied = apply
        ? await applyRegistrations(tx, this.keyring, this.webhooksQueued, member, activity, items, plans)
        : null;
      const results = rowResults(table, rows, plans, already, applied);

      // One entry for the file: the people it registered (on a dry run, those it found), counts only.
      const people = new Set(
        applied
          ? applied.ids.filter((id): id is string => id !== null)
          : plans.flatMap((plan) => (plan.kind === 'existing' ? [plan.id] : [])),
      );
      const counted = (action: ImportRowResult['action']) =>
        results.filter((result) => result.action === action).length;
      await recordAudit(tx, source, {
        action: 'import',
        subjectKind: 'participant',
        subjectIds: [...people],
        details: {
          format,
          dryRun: options.dryRun,
          atomic: options.atomic,
          applied: apply,
          rows: rows.length,
          new: counted('new'),
          matchedExisting: counted('matched existing'),
          refused: counted('refused'),
        },
      });
      return { results, apply };
    });
    return { rows: outcome.results, applied: outcome.apply, table, format };
  }
}

/**
 * What each row does (or would do): refused with its problems, or `new` / `matched existing`, with
 * what to know (the same person as an earlier row, a participant found by nationalId, someone
 * registered already). Messages name cells and fields, never what the cells hold.
 */
function rowResults(
  table: Table,
  rows: readonly ImportRow[],
  plans: readonly Planned[],
  already: Set<string>,
  applied: Applied | null,
): ImportRowResult[] {
  /** The sheet row that first names each person (a participant id, or the index of a new one's item). */
  const firstRow = new Map<string, number>();
  let k = -1;
  return rows.map((row) => {
    const at = (where: string, message: string) => `${where}: ${message}`;
    const result = (action: ImportRowResult['action'], messages: { cell: string; message: string }[]) => ({
      sheet: table.name,
      row: row.row,
      cell: messages[0]?.cell ?? cell(table, row.row),
      action,
      messages: messages.map((m) => at(m.cell, m.message)),
    });
    if (!row.item) return result('refused', row.problems);
    k += 1;
    const plan = plans[k]!;
    const { cellOf } = row;
    if (plan.kind === 'unknown') {
      return result('refused', [
        { cell: cellOf('participantId'), message: 'participantId: Participant not found' },
      ]);
    }
    if (plan.kind === 'elsewhere') {
      return result('refused', [{ cell: cellOf('nationalId'), message: NATIONAL_ID_ELSEWHERE }]);
    }
    const person = plan.kind === 'existing' ? plan.id : `new:${plan.kind === 'same' ? plan.as : k}`;
    const earlier = firstRow.get(person);
    if (earlier !== undefined) {
      const where = plan.kind === 'existing' && plan.by === 'participantId' ? 'participantId' : 'nationalId';
      return result('matched existing', [
        {
          cell: cellOf(where),
          message: `the same ${where} as row ${earlier}: one person, registered once, as row ${earlier} says`,
        },
      ]);
    }
    firstRow.set(person, row.row);
    if (plan.kind === 'existing') {
      const messages =
        plan.by === 'nationalId'
          ? [
              {
                cell: cellOf('nationalId'),
                message:
                  'a participant of the organization has this nationalId: this row registers that person ' +
                  "(their stored fields are kept, not this row's)",
              },
            ]
          : [];
      if (already.has(plan.id)) {
        messages.push({
          cell: cell(table, row.row),
          message: 'already registered in this activity: role and attendance unchanged',
        });
      }
      return result('matched existing', messages);
    }
    // A nationalId another request registered between the plan and the insert: that person.
    const id = applied?.ids[k];
    if (applied && id && !applied.created.has(id)) {
      return result('matched existing', [
        {
          cell: cellOf('nationalId'),
          message:
            'a participant with this nationalId was registered meanwhile: this row registers that person',
        },
      ]);
    }
    return result('new', []);
  });
}

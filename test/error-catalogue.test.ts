import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf, type Database } from '../src/db/client.js';
import { constraintRefusal } from '../src/db/errors.js';
import { AppError, notFound } from '../src/errors/catalogue.js';
import {
  NAMED_CONSTRAINTS,
  refusalOf,
  refusedDelete,
  refusedDuplicate,
  refusedWrite,
} from '../src/errors/refusals.js';
import { openTestDatabase } from './helpers/app.js';

/**
 * One error catalogue (src/errors), one translation of database refusals (src/errors/refusals.ts): no
 * file outside src/db compares SQLSTATE codes, and the table of constraint names matches the schema.
 */

const SRC = path.resolve(import.meta.dirname, '..', 'src');
/**
 * A quoted five-character SQLSTATE: two digits of class, three of condition ('23503', '40P01'); not an
 * HTML attribute's value (`maxlength="20000"`).
 */
const SQLSTATE = /(?<!=)['"`]\d{2}[0-9A-Z]{3}['"`]/;

/** The lines of `source` that hold a SQLSTATE literal. */
const sqlstateLines = (source: string) => source.split('\n').filter((line) => SQLSTATE.test(line));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** What a driver error looks like once Drizzle has wrapped it: the code and constraint on its cause. */
const refused = (code: string, constraint?: string) =>
  Object.assign(new Error('Failed query'), {
    cause: Object.assign(new Error('refused'), { code, constraint }),
  });

const answer = (translate: (err: unknown) => never, err: unknown) => {
  try {
    translate(err);
  } catch (thrown) {
    return thrown instanceof AppError
      ? { status: thrown.statusCode, code: thrown.code, message: thrown.messages }
      : thrown;
  }
  throw new Error('the translation returned');
};

describe('SQLSTATE codes', () => {
  it('are compared in src/db only: no service, module, HTTP or catalogue file holds one', () => {
    const outside = sourceFiles(SRC)
      .filter((file) => !path.relative(SRC, file).startsWith(`db${path.sep}`))
      .flatMap((file) =>
        sqlstateLines(readFileSync(file, 'utf8')).map(
          (line) => `${path.relative(SRC, file)}: ${line.trim()}`,
        ),
      );
    expect(outside).toEqual([]);
  });

  it('are found by the scan in the shapes a service would write them', () => {
    expect(sqlstateLines("if (code === '23503') throw notFound('Project');")).toHaveLength(1);
    expect(sqlstateLines('<textarea id="narrative" maxlength="20000"></textarea>')).toHaveLength(0);
    expect(sqlstateLines('const LOCKED = "55P03";')).toHaveLength(1);
    expect(sqlstateLines("throw notFound('Project');\nconst year = '2025';")).toEqual([]);
  });
});

describe('the refusals table', () => {
  it("turns a unique refusal into the write's 409 duplicate, and leaves the rest alone", () => {
    const translate = refusedDuplicate('A donor with this code already exists');
    expect(answer(translate, refused('23505', 'donors_org_id_lower_code_key'))).toEqual({
      status: 409,
      code: 'duplicate',
      message: 'A donor with this code already exists',
    });
    const other = refused('23503', 'forms_reporting_period_fk');
    expect(answer(translate, other)).toBe(other);
    const plain = new Error('not the database');
    expect(answer(translate, plain)).toBe(plain);
  });

  it('turns a foreign key refusing a write into what went away', () => {
    const translate = refusedWrite({
      taken: 'A project with this code already exists',
      gone: () => notFound('Program'),
    });
    expect(answer(translate, refused('23503', 'projects_org_id_program_id_programs_org_id_id_fk'))).toEqual({
      status: 404,
      code: 'not_found',
      message: 'Program not found',
    });
    expect(answer(translate, refused('23505', 'projects_org_id_code_key'))).toMatchObject({
      status: 409,
      code: 'duplicate',
    });
    // A check refusal is not a race lost: it stays the failure it is.
    const check = refused('23514', 'household_members_age_check');
    expect(answer(translate, check)).toBe(check);
  });

  it("names an activity's output node, not its project, when the output's foreign key refuses", () => {
    const translate = refusedWrite({ gone: () => notFound('Project') });
    expect(answer(translate, refused('23503', 'activities_output_id_result_nodes_id_fk'))).toMatchObject({
      message: 'Result node not found',
    });
    expect(
      answer(translate, refused('23503', 'activities_org_id_project_id_projects_org_id_id_fk')),
    ).toMatchObject({ message: 'Project not found' });
  });

  it('turns a foreign key refusing a delete into its dependents, by constraint and what was deleted', () => {
    const indicator = refused('23503', 'indicator_reports_project_indicator_fk');
    expect(answer(refusedDelete('Indicator'), indicator)).toEqual({
      status: 409,
      code: 'has_dependents',
      message: 'Indicator has indicator reports',
    });
    expect(answer(refusedDelete('Project indicator'), indicator)).toMatchObject({
      message: 'Indicator has indicator reports in this project',
    });
    expect(
      answer(refusedDelete('Reporting period'), refused('23503', 'forms_reporting_period_fk')),
    ).toMatchObject({
      message: 'Reporting period is used by a form',
    });
    expect(answer(refusedDelete('Indicator'), refused('23503', 'some_other_fk'))).toMatchObject({
      message: 'The record is referenced by other data',
    });
    const duplicateKey = refused('23505');
    expect(answer(refusedDelete('Indicator'), duplicateKey)).toBe(duplicateKey);
  });

  it('answers a refusal no service translated with a 409, and nothing else', () => {
    expect(refusalOf(refused('23505'))).toMatchObject({
      statusCode: 409,
      code: 'duplicate',
      message: 'The record already exists',
    });
    expect(refusalOf(refused('23503'))).toMatchObject({
      statusCode: 409,
      code: 'has_dependents',
      message: 'The record is referenced by other data',
    });
    expect(refusalOf(refused('23514'))).toBeNull();
    expect(refusalOf(refused('57014'))).toBeNull();
    expect(refusalOf(new Error('not the database'))).toBeNull();
  });
});

describe('the refusals table against the schema', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(() => database.close());

  it('names only constraints the migrations create', async () => {
    const result = await database.db.execute(
      sql`SELECT conname FROM pg_constraint WHERE connamespace = 'public'::regnamespace`,
    );
    const existing = new Set(rowsOf<{ conname: string }>(result).map((row) => row.conname));
    expect(NAMED_CONSTRAINTS.filter((name) => !existing.has(name))).toEqual([]);
  });

  it("reads the kind and the constraint's name from the driver's own error", async () => {
    const err = await database.db
      .execute(
        sql`INSERT INTO activities (id, org_id, project_id, title, start_date, end_date) VALUES (gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'x', '2025-01-01', '2025-01-02')`,
      )
      .catch((error: unknown) => error);
    expect(constraintRefusal(err)).toEqual({
      kind: 'foreign-key',
      constraint: 'activities_org_id_project_id_projects_org_id_id_fk',
    });
  });
});

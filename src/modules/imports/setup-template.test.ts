import { describe, expect, it } from 'vitest';
import { createProject } from '../../../test/helpers/factories.js';
import {
  call,
  MANAGERS,
  MISSING_ID,
  notAMember,
  notFoundBody,
  roleRefused,
  ALL_ROLES,
} from '../../../test/helpers/http.js';
import { importSetup, loadWorkbook, XLSX, xlsx } from '../../../test/helpers/imports.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const templateUrl = (orgId = team.org.id) => `/orgs/${orgId}/import-template.xlsx`;
const project = async () => (await createProject(t.database.db, team.org.id)).id;
const bytesOf = (res: { response: { rawPayload: Buffer } }) => res.response.rawPayload;

describe('GET /orgs/:orgId/import-template.xlsx', () => {
  it('gives any member the template: instructions, the four sheets, lists, and example rows that import', async () => {
    const res = await call(t.app, 'GET', templateUrl(), { as: team.viewer });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(XLSX);
    expect(res.headers['content-disposition']).toContain('project-setup-template.xlsx');
    const workbook = await loadWorkbook(bytesOf(res));
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual([
      'instructions',
      'results',
      'indicators',
      'periods',
      'values',
    ]);
    const header = (name: string) => (workbook.getWorksheet(name)!.getRow(1).values as unknown[]).slice(1);
    expect(header('results')).toEqual(['code', 'title', 'level', 'parent_code', 'description']);
    expect(header('periods')).toEqual(['label', 'start_date', 'end_date', 'due_date']);
    expect(header('indicators')).toContain('target Q1 2026');
    const indicators = workbook.getWorksheet('indicators')!;
    expect(indicators.getCell('D2').dataValidation).toMatchObject({
      type: 'list',
      formulae: ['"sum,average,latest,min,max"'],
      showErrorMessage: true,
    });
    // Units: a list to pick from, any other text accepted (no error shown).
    expect(indicators.getCell('C40').dataValidation.type).toBe('list');
    expect(indicators.getCell('C40').dataValidation.showErrorMessage).toBeFalsy();
    expect(indicators.getCell('C40').dataValidation.formulae[0]).toContain('households');
    expect(workbook.getWorksheet('values')!.getCell('B2').dataValidation).toMatchObject({
      formulae: ['periods!$A$2:$A$501'],
    });
    expect(workbook.getWorksheet('results')!.getCell('C2').dataValidation.formulae).toEqual([
      '"impact,outcome,output"',
    ]);
    const instructions = workbook.getWorksheet('instructions')!;
    expect(instructions.getRow(1).values).toEqual([
      undefined,
      'sheet',
      'column',
      'required',
      'what it holds',
    ]);
    expect(instructions.rowCount).toBeGreaterThan(25);

    // Filled with nothing else, its example rows import: one per sheet.
    const projectId = await project();
    const dry = await importSetup(t.app, team.org.id, projectId, bytesOf(res), { as: team.officer });
    expect(dry.status).toBe(200);
    expect(dry.body.rows.map((r: any) => [r.cell, r.action, r.messages])).toEqual([
      ['results!2:2', 'create', []],
      ['indicators!2:2', 'create', []],
      ['periods!2:2', 'create', []],
      // The indicator's target for the period made its report: the value fills it.
      ['values!2:2', 'update', ['value empty → 280', 'disaggregatedValues change', 'narrative changes']],
    ]);
    // It applies, values too, and again changes nothing.
    const applied = await importSetup(t.app, team.org.id, projectId, bytesOf(res), {
      as: team.admin,
      query: '?apply=true',
    });
    expect(applied.body).toMatchObject({ applied: true, summary: { created: 3, updated: 1, refused: 0 } });
    const again = await importSetup(t.app, team.org.id, projectId, bytesOf(res), { as: team.admin });
    expect(again.body.summary).toEqual({ created: 0, updated: 0, unchanged: 4, refused: 0 });
  });

  it('answers 401 without a session and 403 to a stranger', async () => {
    expect((await call(t.app, 'GET', templateUrl())).status).toBe(401);
    const res = await call(t.app, 'GET', templateUrl(), { as: team.outsider });
    expect([res.status, res.body]).toEqual([403, notAMember(ALL_ROLES)]);
  });
});

describe('POST /orgs/:orgId/projects/:projectId/import?format=xlsx', () => {
  it('answers the uploaded workbook with a status column, refused rows and cells marked', async () => {
    const projectId = await project();
    const upload = await xlsx({
      guide: [['read me'], ['not read']],
      periods: [
        ['Label', 'Start date', 'End date'],
        ['Q1 2026', '2026-01-01', '2026-03-31'],
        ['Backwards', '2026-05-01', '2026-04-01'],
      ],
    });
    const res = await importSetup(t.app, team.org.id, projectId, upload, {
      as: team.officer,
      query: '?format=xlsx',
      fileName: 'Kisumu set-up.xlsx',
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(XLSX);
    expect(res.headers['content-disposition']).toContain('Kisumu set-up-checked.xlsx');
    expect(res.headers['import-applied']).toBe('false');
    const workbook = await loadWorkbook(bytesOf(res));
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(['guide', 'periods']);
    expect(workbook.getWorksheet('guide')!.getColumn(2).values).toEqual([]);
    const periods = workbook.getWorksheet('periods')!;
    expect((periods.getColumn(4).values as unknown[]).slice(1)).toEqual([
      'status',
      'create',
      'refused: end_date must not be before start_date',
    ]);
    expect(periods.getCell('A2').value).toBe('Q1 2026');
    expect(periods.getCell('D3').fill).toMatchObject({ type: 'pattern', fgColor: { argb: 'FFF8D7DA' } });
    expect(periods.getCell('C3').note).toBe('end_date must not be before start_date');
    expect(periods.getCell('D2').fill).not.toMatchObject({ pattern: 'solid' });

    // The annotated file, fixed and sent again, is read as before: its status column is ignored.
    periods.getCell('C3').value = '2026-06-30';
    const fixed = Buffer.from(await workbook.xlsx.writeBuffer());
    const again = await importSetup(t.app, team.org.id, projectId, fixed, { as: team.officer });
    expect(again.body.summary).toEqual({ created: 2, updated: 0, unchanged: 0, refused: 0 });
  });
});

describe('who may import', () => {
  it('answers 401, 403 to viewers, reporters and strangers, 404 for a project elsewhere', async () => {
    const projectId = await project();
    const bytes = await xlsx({ periods: [['label', 'start_date', 'end_date']] });
    const as = (caller: Parameters<typeof importSetup>[4]['as'], id = projectId) =>
      importSetup(t.app, team.org.id, id, bytes, { as: caller });
    expect((await as(null)).status).toBe(401);
    for (const caller of [team.viewer, team.reporter]) {
      const res = await as(caller);
      expect([res.status, res.body]).toEqual([403, roleRefused(MANAGERS)]);
    }
    const stranger = await as(team.outsider);
    expect([stranger.status, stranger.body]).toEqual([403, notAMember(MANAGERS)]);
    const theirs = await createProject(t.database.db, team.outsiderOrg.id);
    const elsewhere = await as(team.admin, theirs.id);
    expect([elsewhere.status, elsewhere.body]).toEqual([404, notFoundBody('Project')]);
    expect((await as(team.admin, MISSING_ID)).status).toBe(404);
    // An empty sheet is a workbook with nothing to do.
    const empty = await as(team.admin);
    expect([empty.status, empty.body.summary]).toEqual([
      200,
      { created: 0, updated: 0, unchanged: 0, refused: 0 },
    ]);
  });
});

import type ExcelJS from 'exceljs';
import { cellText } from '../../../lib/spreadsheets/tables.js';
import { fieldProblems, MAX_DEPTH, type Choice, type FormField } from '../form-fields.js';
import {
  isLanguageCode,
  translationProblems,
  type FormTranslation,
  type FormTranslations,
} from '../form-languages.js';
import type { NewForm } from '../forms.schemas.js';
import {
  BOOLEAN_LIST,
  EXTENSION_COLUMNS,
  IGNORED_SETTINGS,
  IGNORED_SURVEY_COLUMNS,
  placed,
  REFUSED_TYPES,
  SIMPLE_TYPES,
  splitColumn,
  TRANSLATABLE,
  XLSFORM_LIMITS,
  type Place,
  type TranslatableColumn,
} from './xlsform-types.js';
import { schemaProblems } from './xlsform-validate.js';

/**
 * Reads an XLSForm workbook (survey, choices and settings sheets) into the body of POST
 * /orgs/:orgId/forms, or the list of everything wrong with it, each problem placed by sheet, row and
 * column. The bytes must have passed checkZip (src/lib/spreadsheets/xlsx-zip.ts) first.
 */
export type ReadOutcome = { form: NewForm; problems: [] } | { form?: undefined; problems: string[] };

interface Row {
  number: number;
  cells: Map<string, string>;
}

interface Sheet {
  /** Header as written (base part lower-cased), by column number. */
  headers: string[];
  rows: Row[];
}

/** The header's base (before `::`) lower-cased, its language suffix as written. */
function normalHeader(text: string): string {
  const trimmed = text.trim();
  const at = trimmed.indexOf('::');
  const base = (at < 0 ? trimmed : trimmed.slice(0, at)).trim().toLowerCase().replace(/\s+/g, '_');
  return at < 0 ? base : `${base}::${trimmed.slice(at + 2).trim()}`;
}

/** A sheet as headers and rows of trimmed text, bounded; problems for what passes the bounds. */
function readSheet(
  worksheet: ExcelJS.Worksheet,
  name: Place['sheet'],
  maxRows: number,
  problems: string[],
): Sheet | null {
  if (worksheet.rowCount > maxRows + 1) {
    problems.push(placed({ sheet: name }, `the sheet has more than ${maxRows} rows`));
    return null;
  }
  if (worksheet.columnCount > XLSFORM_LIMITS.columns) {
    problems.push(placed({ sheet: name }, `the sheet has more than ${XLSFORM_LIMITS.columns} columns`));
    return null;
  }
  const headers: string[] = [];
  const seen = new Map<string, number>();
  worksheet.getRow(1).eachCell((cell, column) => {
    const header = normalHeader(cellText(cell.value));
    if (header === '') return;
    if (seen.has(header)) {
      problems.push(placed({ sheet: name, row: 1, column: header }, 'the column is given twice'));
      return;
    }
    seen.set(header, column);
    headers[column] = header;
  });
  const rows: Row[] = [];
  worksheet.eachRow((row, number) => {
    if (number === 1) return;
    const cells = new Map<string, string>();
    row.eachCell((cell, column) => {
      const text = cellText(cell.value).trim();
      if (text === '') return;
      const header = headers[column];
      if (!header) {
        problems.push(placed({ sheet: name, row: number }, `column ${column} has a value but no header`));
        return;
      }
      if (text.length > XLSFORM_LIMITS.cellChars) {
        problems.push(
          placed(
            { sheet: name, row: number, column: header },
            `must be at most ${XLSFORM_LIMITS.cellChars} characters`,
          ),
        );
        return;
      }
      cells.set(header, text);
    });
    if (cells.size > 0) rows.push({ number, cells });
  });
  return { headers: headers.filter(Boolean), rows };
}

/** A language as a column suffix or a setting gives it: `English (en)` or `en`; null when no code. */
function languageOf(text: string): string | null {
  const { language } = splitColumn(`x::${text}`);
  return language && isLanguageCode(language) ? language : null;
}

/** `select_one list` (or the older `select one list`): whether multiple, and the words after it. */
function selectKind(type: string): { multiple: boolean; rest: string[] } | null {
  const words = type.split(' ');
  const head = words[0]!.toLowerCase();
  if (head === 'select_one' || head === 'select_multiple') {
    return { multiple: head === 'select_multiple', rest: words.slice(1) };
  }
  const second = words[1]?.toLowerCase();
  if (head === 'select' && (second === 'one' || second === 'multiple')) {
    return { multiple: second === 'multiple', rest: words.slice(2) };
  }
  return null;
}

const TRUE = new Set(['yes', 'true', 'true()', '1']);
const FALSE = new Set(['no', 'false', 'false()', '0']);

interface ChoiceRow extends Choice {
  row: number;
  labels: Map<string, string>;
}

/** Where each part of the form came from, to place the problems the form rules find. */
interface Origins {
  /** `fields.0.fields.2` to its survey row. */
  fields: Map<string, number>;
  /** `fields.0.choices.3` to its choices row. */
  choices: Map<string, number>;
  keys: Map<string, { row: number; list?: string }>;
  choiceRowsByList: Map<string, Map<string, number>>;
  /** Language code to the header of each translatable column in it. */
  columns: Map<string, Map<string, string>>;
  settingsColumns: Map<string, string>;
}

const PROPERTY_COLUMNS: Record<string, string> = {
  key: 'name',
  label: 'label',
  hint: 'hint',
  relevant: 'relevant',
  constraint: 'constraint',
  constraintMessage: 'constraint_message',
  calculation: 'calculation',
  required: 'required',
  personal: 'personal',
  minCount: 'min_count',
  maxCount: 'max_count',
  showIf: 'relevant',
  name: 'name',
};

/** A form-rule or schema problem (`fields.3.label must ...`) placed at its sheet, row and column. */
function placeProblem(path: string[], message: string, origins: Origins): string {
  const dotted = path.join('.');
  const rest = message.startsWith(dotted) ? message.slice(dotted.length).trim() : message;
  const say = (place: Place, text = rest) => placed(place, text || message);
  const at: string[] = [];
  let i = 0;
  while (path[i] === 'fields' && /^\d+$/.test(path[i + 1] ?? '')) {
    at.push('fields', path[i + 1]!);
    i += 2;
  }
  if (at.length > 0) {
    const row = origins.fields.get(at.join('.'));
    const property = path[i];
    if (property === 'choices' && /^\d+$/.test(path[i + 1] ?? '')) {
      const choiceRow = origins.choices.get([...at, 'choices', path[i + 1]].join('.'));
      const column = path[i + 2] === 'name' ? 'name' : 'label';
      return say({ sheet: 'choices', row: choiceRow, column }, rest);
    }
    const column = property ? (PROPERTY_COLUMNS[property] ?? 'type') : undefined;
    return say({ sheet: 'survey', row, column }, rest);
  }
  if (path[0] === 'translations' && path[1]) {
    const code = path[1];
    if (path[2] === 'fields' && path[3]) {
      const origin = origins.keys.get(path[3]);
      if (path[5] === 'choices' || path[4] === 'choices') {
        const name = path[5];
        const row = origin?.list && name ? origins.choiceRowsByList.get(origin.list)?.get(name) : undefined;
        return say({ sheet: 'choices', row, column: origins.columns.get(code)?.get('label') }, rest);
      }
      const base = path[4] === 'constraintMessage' ? 'constraint_message' : (path[4] ?? 'label');
      return say({ sheet: 'survey', row: origin?.row, column: origins.columns.get(code)?.get(base) }, rest);
    }
    const column = origins.settingsColumns.get(`${path[2] ?? 'title'}::${code}`);
    return say({ sheet: 'settings', row: 2, column }, rest);
  }
  const settings: Record<string, string> = {
    title: 'form_title',
    description: 'description',
    defaultLanguage: 'default_language',
  };
  if (path[0] && settings[path[0]])
    return say({ sheet: 'settings', row: 2, column: settings[path[0]] }, rest);
  return placed({ sheet: 'survey' }, message);
}

/** `fields.3.fields.1.key must be unique` into its path (`fields 3 fields 1 key`) and the message. */
function pathOfMessage(message: string): string[] {
  const match = /^((?:fields\.\d+\.?)+)([A-Za-z]+)?/.exec(message);
  if (!match) return [];
  const path = match[1]!.replace(/\.$/, '').split('.');
  return match[2] ? [...path, match[2]] : path;
}

export async function readXlsForm(
  bytes: Buffer,
  { projectId, fileName }: { projectId: string; fileName?: string },
): Promise<ReadOutcome> {
  const problems: string[] = [];
  const { default: Excel } = await import('exceljs');
  const workbook = new Excel.Workbook();
  try {
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  } catch {
    return { problems: ['file: not an .xlsx workbook exceljs can read'] };
  }
  const sheetNamed = (name: string) =>
    workbook.worksheets.find((sheet) => sheet.name.trim().toLowerCase() === name);
  const surveySheet = sheetNamed('survey');
  const choicesSheet = sheetNamed('choices');
  const settingsSheet = sheetNamed('settings');
  if (!surveySheet) problems.push(placed({ sheet: 'survey' }, 'the sheet is missing'));
  const survey = surveySheet ? readSheet(surveySheet, 'survey', XLSFORM_LIMITS.surveyRows, problems) : null;
  const choices = choicesSheet
    ? readSheet(choicesSheet, 'choices', XLSFORM_LIMITS.choiceRows, problems)
    : null;
  const settings = settingsSheet
    ? readSheet(settingsSheet, 'settings', XLSFORM_LIMITS.settingsRows, problems)
    : null;
  if (!survey) return { problems };

  // Settings: the first row under the headers.
  const setting = settings?.rows[0]?.cells ?? new Map<string, string>();
  const settingsColumns = new Map<string, string>();
  for (const header of settings?.headers ?? []) {
    const { base, suffix } = splitColumn(header);
    const used = settings?.rows.some((row) => row.cells.has(header));
    if (['form_title', 'description'].includes(base) && suffix !== undefined) continue;
    if (['form_title', 'description', 'default_language', ...IGNORED_SETTINGS].includes(base)) continue;
    if (used)
      problems.push(
        placed({ sheet: 'settings', row: 2, column: header }, `column ${header} is not supported`),
      );
  }

  // Languages: the default from settings, else English when unsuffixed columns give it, else the first
  // suffixed label column's; every suffixed translatable column must name a code.
  const columnLanguages = new Map<string, string>();
  const languageColumns = new Map<string, Map<string, string>>();
  const translatableHeaders = [
    ...survey.headers.map((header) => ({ sheet: 'survey' as const, header })),
    ...(choices?.headers ?? []).map((header) => ({ sheet: 'choices' as const, header })),
    ...(settings?.headers ?? []).map((header) => ({ sheet: 'settings' as const, header })),
  ];
  for (const { sheet, header } of translatableHeaders) {
    const { base, suffix } = splitColumn(header);
    if (suffix === undefined) continue;
    const translatable =
      sheet === 'settings'
        ? ['form_title', 'description']
        : sheet === 'choices'
          ? ['label']
          : Object.keys(TRANSLATABLE);
    if (!translatable.includes(base)) continue;
    const code = languageOf(suffix);
    if (!code) {
      problems.push(
        placed(
          { sheet, row: 1, column: header },
          `give the language's BCP 47 code in parentheses, e.g. ${base}::English (en)`,
        ),
      );
      continue;
    }
    columnLanguages.set(`${sheet}:${header}`, code);
    if (sheet === 'survey') {
      const byBase = languageColumns.get(code) ?? new Map<string, string>();
      byBase.set(base, header);
      languageColumns.set(code, byBase);
    }
  }
  const declared = setting.get('default_language');
  let defaultLanguage = 'en';
  if (declared !== undefined) {
    const code = languageOf(declared);
    if (code) defaultLanguage = code;
    else {
      problems.push(
        placed(
          { sheet: 'settings', row: 2, column: 'default_language' },
          `"${declared}" names no BCP 47 language code`,
        ),
      );
    }
  } else if (!survey.headers.includes('label')) {
    const first = survey.headers.find(
      (h) => splitColumn(h).base === 'label' && columnLanguages.has(`survey:${h}`),
    );
    if (first) defaultLanguage = columnLanguages.get(`survey:${first}`)!;
  }
  const sameLanguage = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

  /** The strings of a row: the default language's (unsuffixed column first) and each other one's. */
  const stringsOf = (sheet: Place['sheet'], row: Row, base: string) => {
    let own = row.cells.get(base);
    const others = new Map<string, string>();
    for (const [header, value] of row.cells) {
      const code = columnLanguages.get(`${sheet}:${header}`);
      if (!code || splitColumn(header).base !== base) continue;
      if (sameLanguage(code, defaultLanguage)) own ??= value;
      else others.set(code, value);
    }
    return { own, others };
  };

  const translations: FormTranslations = {};
  const translationOf = (code: string): FormTranslation => (translations[code] ??= {});
  const fieldTranslation = (code: string, key: string) => {
    const translation = translationOf(code);
    translation.fields ??= {};
    return (translation.fields[key] ??= {});
  };

  // Choices, by list.
  const lists = new Map<string, ChoiceRow[]>();
  const choiceRowsByList = new Map<string, Map<string, number>>();
  for (const row of choices?.rows ?? []) {
    const list = row.cells.get('list_name');
    const name = row.cells.get('name');
    if (!list)
      problems.push(
        placed({ sheet: 'choices', row: row.number, column: 'list_name' }, 'list_name is missing'),
      );
    if (!name)
      problems.push(placed({ sheet: 'choices', row: row.number, column: 'name' }, 'name is missing'));
    if (!list || !name) continue;
    const names = choiceRowsByList.get(list) ?? new Map<string, number>();
    if (names.has(name)) {
      problems.push(
        placed(
          { sheet: 'choices', row: row.number, column: 'name' },
          `name "${name}" is used before in list ${list}, on row ${names.get(name)}`,
        ),
      );
      continue;
    }
    names.set(name, row.number);
    choiceRowsByList.set(list, names);
    const { own, others } = stringsOf('choices', row, 'label');
    if (own === undefined) {
      problems.push(placed({ sheet: 'choices', row: row.number, column: 'label' }, 'label is missing'));
    }
    const entry: ChoiceRow = { name, label: own ?? '', row: row.number, labels: others };
    lists.set(list, [...(lists.get(list) ?? []), entry]);
  }

  // Survey columns we do not take: refused when used (once per column, at its first use).
  const knownSurvey = new Set([
    'type',
    'name',
    'required',
    'relevant',
    'constraint',
    'calculation',
    'appearance',
    ...EXTENSION_COLUMNS,
    ...IGNORED_SURVEY_COLUMNS,
  ]);
  for (const header of survey.headers) {
    const { base, suffix } = splitColumn(header);
    if (base in TRANSLATABLE && (suffix === undefined || columnLanguages.has(`survey:${header}`))) continue;
    if (base in TRANSLATABLE) continue;
    if (base === 'media' || (suffix !== undefined && IGNORED_SURVEY_COLUMNS.includes(base))) continue;
    if (suffix === undefined && knownSurvey.has(base)) continue;
    const first = survey.rows.find((row) => row.cells.has(header));
    if (first) {
      problems.push(
        placed({ sheet: 'survey', row: first.number, column: header }, `column ${header} is not supported`),
      );
    }
  }

  // The survey, containers on a stack.
  const origins: Origins = {
    fields: new Map(),
    choices: new Map(),
    keys: new Map(),
    choiceRowsByList,
    columns: languageColumns,
    settingsColumns,
  };
  interface Open {
    field: FormField | null;
    kind: 'group' | 'repeat' | 'top';
    row: number;
    path: string;
    fields: FormField[];
  }
  const top: Open = { field: null, kind: 'top', row: 0, path: '', fields: [] };
  const stack: Open[] = [top];
  let structureBroken = false;
  for (const row of survey.rows) {
    const at = (column?: string): Place => ({ sheet: 'survey', row: row.number, column });
    const rawType = row.cells.get('type');
    if (!rawType) {
      problems.push(placed(at('type'), 'type is missing'));
      continue;
    }
    const type = rawType.replace(/\s+/g, ' ').trim();
    const words = type.split(' ');
    const head = words[0]!.toLowerCase();
    const current = stack.at(-1)!;
    if (['end_group', 'end_repeat', 'end group', 'end repeat'].includes(type.toLowerCase())) {
      const kind = type.toLowerCase().endsWith('group') ? 'group' : 'repeat';
      const name = row.cells.get('name');
      if (current.kind !== kind) {
        problems.push(
          placed(
            at('type'),
            current.kind === 'top'
              ? `${type} closes nothing: no begin_${kind} is open`
              : `${type} does not match begin_${current.kind} ${current.field?.key ?? ''} on row ${current.row}`,
          ),
        );
        structureBroken = true;
        continue;
      }
      if (name && name !== current.field?.key) {
        problems.push(
          placed(
            at('name'),
            `${type} names ${name}, but the open ${kind} is ${current.field?.key ?? ''} (row ${current.row})`,
          ),
        );
      }
      stack.pop();
      if (current.fields.length > 0) current.field!.fields = current.fields;
      continue;
    }
    const name = row.cells.get('name');
    const path = `${current.path}${current.path ? '.' : ''}fields.${current.fields.length}`;
    const field: Partial<FormField> & { key: string } = { key: name ?? '' };
    let container: 'group' | 'repeat' | null = null;
    let list: string | undefined;
    const beginGroup = ['begin_group', 'begin group'].includes(type.toLowerCase());
    const beginRepeat = ['begin_repeat', 'begin repeat'].includes(type.toLowerCase());
    if (beginGroup || beginRepeat) {
      container = beginGroup ? 'group' : 'repeat';
      field.type = container;
    } else if (selectKind(type)) {
      const { multiple, rest } = selectKind(type)!;
      list = rest[0];
      if (!list || rest.length > 1) {
        problems.push(
          placed(
            at('type'),
            rest.includes('or_other')
              ? 'or_other is not supported'
              : `type "${type}" needs one choice list name`,
          ),
        );
        continue;
      }
      const listed = lists.get(list);
      if (!listed) {
        problems.push(
          placed(
            at('type'),
            choicesSheet
              ? `choice list "${list}" does not exist in the choices sheet`
              : `choice list "${list}" does not exist: the choices sheet is missing`,
          ),
        );
      } else if (
        !multiple &&
        list === BOOLEAN_LIST &&
        listed.length === 2 &&
        listed
          .map((c) => c.name)
          .sort()
          .join() === 'false,true'
      ) {
        field.type = 'boolean';
      } else {
        field.type = multiple ? 'multi_select' : 'select';
        field.choices = listed.map(({ name: choiceName, label }) => ({ name: choiceName, label }));
        listed.forEach((choice, index) => origins.choices.set(`${path}.choices.${index}`, choice.row));
      }
    } else if (SIMPLE_TYPES[head] && words.length === 1) {
      const simple = SIMPLE_TYPES[head];
      field.type = simple.type as FormField['type'];
      if (simple.integer) field.integer = true;
      const appearance = (row.cells.get('appearance') ?? '').toLowerCase().split(/\s+/);
      if (head === 'text' && appearance.includes('multiline')) field.type = 'textarea';
    } else {
      const known = REFUSED_TYPES.some(
        (refused) => refused.toLowerCase() === type.toLowerCase() || refused === head,
      );
      problems.push(
        placed(at('type'), known ? `type "${type}" is not supported` : `type "${type}" is unknown`),
      );
      continue;
    }
    if (!name) {
      problems.push(placed(at('name'), 'name is missing'));
      continue;
    }
    const before = origins.keys.get(name);
    if (before) {
      problems.push(placed(at('name'), `name "${name}" is used before, on row ${before.row}`));
      continue;
    }
    origins.keys.set(name, { row: row.number, list });
    origins.fields.set(path, row.number);

    // Strings in the default language, and in the others as translations.
    for (const column of Object.keys(TRANSLATABLE) as TranslatableColumn[]) {
      const property = TRANSLATABLE[column];
      const { own, others } = stringsOf('survey', row, column);
      if (own !== undefined) field[property] = own;
      for (const [code, value] of others) fieldTranslation(code, name)[property] = value;
    }
    if (field.type === 'select' || field.type === 'multi_select') {
      for (const choice of lists.get(list!) ?? []) {
        for (const [code, label] of choice.labels) {
          const strings = fieldTranslation(code, name);
          // A choice named __proto__ is a key like any other, not the object's prototype.
          Object.defineProperty((strings.choices ??= {}), choice.name, {
            value: label,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
      }
    }
    for (const column of ['relevant', 'constraint', 'calculation'] as const) {
      const value = row.cells.get(column);
      if (value !== undefined) field[column] = value;
    }
    for (const column of ['required', 'personal'] as const) {
      const value = row.cells.get(column);
      if (value === undefined) continue;
      const lower = value.toLowerCase();
      if (TRUE.has(lower)) field[column] = true;
      else if (!FALSE.has(lower)) {
        problems.push(
          placed(
            at(column),
            `must be yes or no${column === 'required' ? ' (a required expression is not supported)' : ''}`,
          ),
        );
      }
    }
    for (const [column, property] of [
      ['min_count', 'minCount'],
      ['max_count', 'maxCount'],
    ] as const) {
      const value = row.cells.get(column);
      if (value === undefined) continue;
      if (container !== 'repeat') problems.push(placed(at(column), `is only taken on begin_repeat rows`));
      else if (!/^\d{1,6}$/.test(value)) problems.push(placed(at(column), 'must be a whole number'));
      else field[property] = Number(value);
    }
    const formField = field as FormField;
    current.fields.push(formField);
    if (container) {
      if (stack.length > MAX_DEPTH) {
        problems.push(placed(at('type'), `groups and repeats nest ${MAX_DEPTH} deep at most`));
        structureBroken = true;
      }
      stack.push({ field: formField, kind: container, row: row.number, path, fields: [] });
    }
  }
  for (const open of stack.slice(1).reverse()) {
    problems.push(
      placed(
        { sheet: 'survey', row: open.row, column: 'type' },
        `begin_${open.kind} ${open.field?.key ?? ''} is never closed (end_${open.kind})`,
      ),
    );
    structureBroken = true;
  }
  if (top.fields.length === 0 && !structureBroken)
    problems.push(placed({ sheet: 'survey' }, 'the sheet asks nothing'));

  // Title and description, with their translations (our extension: form_title::<language>, description).
  const title =
    setting.get('form_title') ??
    fileName
      ?.replace(/\.xlsx$/i, '')
      .trim()
      .slice(0, 300);
  if (!title) problems.push(placed({ sheet: 'settings', column: 'form_title' }, 'form_title is required'));
  for (const [header, value] of setting) {
    const code = columnLanguages.get(`settings:${header}`);
    if (!code) continue;
    const base = splitColumn(header).base;
    const property = base === 'form_title' ? 'title' : 'description';
    settingsColumns.set(`${property}::${code}`, header);
    if (!sameLanguage(code, defaultLanguage)) translationOf(code)[property] = value;
  }
  const description =
    setting.get('description') ??
    [...setting].find(
      ([header]) =>
        splitColumn(header).base === 'description' &&
        sameLanguage(columnLanguages.get(`settings:${header}`) ?? '', defaultLanguage),
    )?.[1];

  if (structureBroken || problems.length > 0) return { problems };

  const form: NewForm = {
    projectId,
    title: title!,
    ...(description !== undefined && { description }),
    fields: top.fields,
    defaultLanguage,
    ...(Object.keys(translations).length > 0 && { translations }),
  };
  // What POST /orgs/:orgId/forms checks, placed back at the rows it came from.
  for (const detail of schemaProblems(form)) {
    const path = detail.path
      .split('/')
      .slice(1)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    problems.push(placeProblem(path, detail.message, origins));
  }
  if (problems.length === 0) {
    // Uniqueness at every depth is checked above, with the rows.
    for (const message of fieldProblems(form.fields).filter((m) => !/must be unique/.test(m))) {
      problems.push(placeProblem(pathOfMessage(message), message, origins));
    }
    for (const message of translationProblems(defaultLanguage, form.translations, form.fields)) {
      problems.push(placeProblem(message.split(' ')[0]!.split('.'), message, origins));
    }
  }
  if (problems.length > 0) return { problems };
  return { form, problems: [] };
}

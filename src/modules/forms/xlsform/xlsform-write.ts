import { choicesOf, type FormField } from '../form-fields.js';
import { languageName, type FormTranslations } from '../form-languages.js';
import { BOOLEAN_LIST, TRANSLATABLE, type TranslatableColumn } from './xlsform-types.js';

/** What the export needs of a form. */
export interface ExportedForm {
  id: string;
  title: string;
  description: string | null;
  fields: FormField[];
  defaultLanguage: string;
  translations: FormTranslations | null;
}

/** `label::العربية (ar)`: the language's own name, its code in parentheses (what the import reads). */
const suffixed = (base: string, code: string) => `${base}::${languageName(code)} (${code})`;

/** A string literal of an XLSForm expression: quoted with whichever quote it does not hold. */
const literal = (value: string) => (value.includes("'") ? `"${value}"` : `'${value}'`);

/** `showIf` as the XLSForm expression that means the same. */
function showIfExpression(field: FormField, byKey: Map<string, FormField>): string | undefined {
  if (!field.showIf) return undefined;
  const { field: target, equals } = field.showIf;
  const reference = `\${${target}}`;
  if (byKey.get(target)?.type === 'multi_select') return `selected(${reference}, ${literal(String(equals))})`;
  if (typeof equals === 'number') return `${reference} = ${equals}`;
  return `${reference} = ${literal(String(equals))}`;
}

function typeOf(field: FormField): string {
  switch (field.type) {
    case 'text':
    case 'textarea':
      return 'text';
    case 'number':
      return field.integer ? 'integer' : 'decimal';
    case 'select':
      return `select_one ${field.key}`;
    case 'multi_select':
      return `select_multiple ${field.key}`;
    case 'boolean':
      return `select_one ${BOOLEAN_LIST}`;
    case 'location':
      return 'geopoint';
    case 'group':
      return 'begin_group';
    case 'repeat':
      return 'begin_repeat';
    case 'date':
    case 'file':
    case 'note':
    case 'calculate':
      return field.type;
  }
}

/**
 * The form as an XLSForm workbook: survey, choices and settings sheets, one label, hint and
 * constraint_message column per language (`label::English (en)`), the choices of each choice field
 * in a list named by its key. What XLSForm has no word for is written in its nearest equivalent:
 * showIf as a relevant expression (and-ed with the field's own relevant), boolean as a select_one of
 * the list mel_boolean (true: Yes, false: No), which the import reads back as boolean.
 */
export async function writeXlsForm(form: ExportedForm): Promise<Buffer> {
  const codes = [form.defaultLanguage, ...Object.keys(form.translations ?? {})];
  const translated = codes.length > 1;
  const columnOf = (base: string, code: string) => (translated ? suffixed(base, code) : base);
  const stringOf = (field: FormField, column: TranslatableColumn, code: string): string | undefined => {
    const property = TRANSLATABLE[column];
    if (code === form.defaultLanguage) return field[property];
    return form.translations?.[code]?.fields?.[field.key]?.[property];
  };

  const all: FormField[] = [];
  const walk = (fields: FormField[]) =>
    fields.forEach((field) => {
      all.push(field);
      if (field.fields) walk(field.fields);
    });
  walk(form.fields);
  const byKey = new Map(all.map((field) => [field.key, field]));
  const used = (test: (field: FormField) => boolean) => all.some(test);

  const columns: { header: string; value: (field: FormField) => string | number | undefined }[] = [
    { header: 'type', value: typeOf },
    { header: 'name', value: (field) => field.key },
  ];
  for (const column of Object.keys(TRANSLATABLE) as TranslatableColumn[]) {
    const anyString = codes.some((code) => used((field) => stringOf(field, column, code) !== undefined));
    if (column !== 'label' && !anyString) continue;
    for (const code of codes) {
      columns.push({ header: columnOf(column, code), value: (field) => stringOf(field, column, code) });
    }
  }
  const optional: [string, (field: FormField) => string | number | undefined][] = [
    ['required', (field) => (field.required ? 'yes' : undefined)],
    [
      'relevant',
      (field) => {
        const shown = showIfExpression(field, byKey);
        if (shown && field.relevant) return `(${field.relevant}) and (${shown})`;
        return shown ?? field.relevant;
      },
    ],
    ['constraint', (field) => field.constraint],
    ['calculation', (field) => field.calculation],
    ['appearance', (field) => (field.type === 'textarea' ? 'multiline' : undefined)],
    ['personal', (field) => (field.personal ? 'yes' : undefined)],
    ['min_count', (field) => field.minCount],
    ['max_count', (field) => field.maxCount],
  ];
  for (const [header, value] of optional) {
    if (used((field) => value(field) !== undefined)) columns.push({ header, value });
  }

  const { default: Excel } = await import('exceljs');
  const workbook = new Excel.Workbook();
  const survey = workbook.addWorksheet('survey');
  survey.addRow(columns.map((column) => column.header));
  const writeFields = (fields: FormField[]) => {
    for (const field of fields) {
      survey.addRow(columns.map((column) => column.value(field) ?? null));
      if (field.type === 'group' || field.type === 'repeat') {
        writeFields(field.fields ?? []);
        survey.addRow([field.type === 'group' ? 'end_group' : 'end_repeat', field.key]);
      }
    }
  };
  writeFields(form.fields);

  const choices = workbook.addWorksheet('choices');
  choices.addRow(['list_name', 'name', ...codes.map((code) => columnOf('label', code))]);
  if (used((field) => field.type === 'boolean')) {
    choices.addRow([BOOLEAN_LIST, 'true', 'Yes', ...codes.slice(1).map(() => null)]);
    choices.addRow([BOOLEAN_LIST, 'false', 'No', ...codes.slice(1).map(() => null)]);
  }
  for (const field of all) {
    if (field.type !== 'select' && field.type !== 'multi_select') continue;
    for (const choice of choicesOf(field)) {
      choices.addRow([
        field.key,
        choice.name,
        choice.label,
        ...codes
          .slice(1)
          .map((code) => form.translations?.[code]?.fields?.[field.key]?.choices?.[choice.name] ?? null),
      ]);
    }
  }

  const settings = workbook.addWorksheet('settings');
  const settingColumns: [string, string | null | undefined][] = [
    ['form_title', form.title],
    ['form_id', `form_${form.id.replace(/-/g, '_')}`],
    ['default_language', form.defaultLanguage],
  ];
  if (form.description !== null) settingColumns.push(['description', form.description]);
  for (const code of codes.slice(1)) {
    const translation = form.translations?.[code];
    if (translation?.title !== undefined)
      settingColumns.push([suffixed('form_title', code), translation.title]);
    if (translation?.description !== undefined) {
      settingColumns.push([suffixed('description', code), translation.description]);
    }
  }
  settings.addRow(settingColumns.map(([header]) => header));
  settings.addRow(settingColumns.map(([, value]) => value ?? null));

  return Buffer.from(await workbook.xlsx.writeBuffer());
}

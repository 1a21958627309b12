import { Type, type Static } from '@sinclair/typebox';
import { MULTILINE, Text } from '../../http/schemas/schemas.js';
import { LANGUAGE_CODE } from '../../lib/patterns.js';
import { allFields, choicesOf, ownValue, KEY_PATTERN, MAX_FIELDS, type FormField } from './form-fields.js';

/**
 * Forms in the respondents' own language (issue 41): a form's strings are written in its
 * `defaultLanguage`; `translations` gives them in other languages, string by string. The public form is
 * answered in the language asked for, each string missing there falling back to the default language's.
 */

/** Languages a form may be translated into, besides its default one. */
export const MAX_LANGUAGES = 20;
/** Choices of one field a translation may name (a field has at most 500). */
const MAX_CHOICES = 500;

export const LanguageCode = (description: string) =>
  Type.String({ pattern: LANGUAGE_CODE.pattern, maxLength: 35, description });

const FieldTranslation = Type.Object(
  {
    label: Type.Optional(Text(500)),
    hint: Type.Optional(Text(1000)),
    constraintMessage: Type.Optional(Text(500)),
    choices: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Text(500), {
        maxProperties: MAX_CHOICES,
        description: 'Choice name to its label in this language',
      }),
    ),
  },
  { additionalProperties: false, title: 'FormFieldTranslation' },
);

const Translation = Type.Object(
  {
    title: Type.Optional(Text(300)),
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 10_000, ...MULTILINE })),
    fields: Type.Optional(
      Type.Record(Type.String({ pattern: KEY_PATTERN }), FieldTranslation, {
        maxProperties: MAX_FIELDS,
        description: 'Field key (at any depth) to its strings in this language',
      }),
    ),
  },
  { additionalProperties: false, title: 'FormTranslation' },
);

export const TranslationsSchema = Type.Record(
  Type.String({ pattern: LANGUAGE_CODE.pattern, maxLength: 35 }),
  Translation,
  {
    maxProperties: MAX_LANGUAGES,
    title: 'FormTranslations',
    description:
      "The form's strings in other languages, by BCP 47 code (not the default language): title, " +
      'description, and by field key (any depth) label, hint, constraintMessage and choice labels by choice ' +
      'name. Every string is optional: a missing one falls back to the default language. Keys must be ' +
      "fields of the form and choice names that field's choices.",
  },
);

export type FormTranslation = Static<typeof Translation>;
export type FormTranslations = Record<string, FormTranslation>;

/** What a form needs to be answered in a language. */
export interface LocalizableForm {
  title: string;
  description: string | null;
  fields: FormField[];
  defaultLanguage: string;
  translations: FormTranslations | null;
}

export interface FormLanguage {
  code: string;
  name: string;
}

/** Whether `code` is a well-formed BCP 47 tag (the pattern, then Intl's own parser). */
export function isLanguageCode(code: string): boolean {
  if (!new RegExp(LANGUAGE_CODE.pattern).test(code)) return false;
  try {
    return Intl.getCanonicalLocales(code).length === 1;
  } catch {
    return false;
  }
}

/** A language's name in that language (`العربية` for ar), as Intl knows it; else its code. */
export function languageName(code: string): string {
  try {
    const name = new Intl.DisplayNames([code], { type: 'language', fallback: 'none' }).of(code);
    return name && name.toLowerCase() !== code.toLowerCase() ? name : code;
  } catch {
    return code;
  }
}

/** The default language first, then the translated ones in their order, each with its own name. */
export function languagesOf(form: Pick<LocalizableForm, 'defaultLanguage' | 'translations'>): FormLanguage[] {
  return [form.defaultLanguage, ...Object.keys(form.translations ?? {})].map((code) => ({
    code,
    name: languageName(code),
  }));
}

/**
 * The language a form answers `requested` in: a code of the form equal to it (case-insensitive), else
 * one equal to its primary subtag (`ar-EG` gives `ar`), else the default language.
 */
export function matchLanguage(
  form: Pick<LocalizableForm, 'defaultLanguage' | 'translations'>,
  requested: string | undefined,
): string {
  const codes = [form.defaultLanguage, ...Object.keys(form.translations ?? {})];
  if (!requested) return form.defaultLanguage;
  const wanted = requested.trim().toLowerCase();
  const primary = wanted.split(/[-_]/)[0];
  return (
    codes.find((code) => code.toLowerCase() === wanted) ??
    codes.find((code) => code.toLowerCase() === primary) ??
    form.defaultLanguage
  );
}

function localizeFields(fields: FormField[], translation: FormTranslation): FormField[] {
  return fields.map((field) => {
    const strings = translation.fields ? ownValue(translation.fields, field.key) : undefined;
    const localized: FormField = { ...field };
    if (strings?.label !== undefined && field.label !== undefined) localized.label = strings.label;
    if (strings?.hint !== undefined && field.hint !== undefined) localized.hint = strings.hint;
    if (strings?.constraintMessage !== undefined && field.constraintMessage !== undefined) {
      localized.constraintMessage = strings.constraintMessage;
    }
    const choiceLabels = strings?.choices;
    if (choiceLabels && (field.choices ?? field.options)) {
      // Options are their own labels: translated, they become choices keeping the option as the name.
      localized.choices = choicesOf(field).map((choice) => ({
        name: choice.name,
        label: ownValue(choiceLabels, choice.name) ?? choice.label,
      }));
      delete localized.options;
    }
    if (field.fields) localized.fields = localizeFields(field.fields, translation);
    return localized;
  });
}

/**
 * The form in the language `requested` matches (matchLanguage): its title, description, and every
 * label, hint, constraintMessage and choice label replaced by that language's, string by string, the
 * default language's kept where a string is not translated. Adds `language` (the one answered) and
 * `languages` (languagesOf); drops `defaultLanguage` and `translations`.
 */
export function localizeForm<T extends LocalizableForm>(
  form: T,
  requested?: string,
): Omit<T, 'defaultLanguage' | 'translations'> & { language: string; languages: FormLanguage[] } {
  const { defaultLanguage, translations, ...rest } = form;
  const language = matchLanguage(form, requested);
  const languages = languagesOf({ defaultLanguage, translations });
  const translation =
    language === defaultLanguage ? undefined : translations ? ownValue(translations, language) : undefined;
  if (!translation) return { ...rest, language, languages };
  return {
    ...rest,
    title: translation.title ?? form.title,
    description:
      translation.description !== undefined && form.description !== null
        ? translation.description
        : form.description,
    fields: localizeFields(form.fields, translation),
    language,
    languages,
  };
}

/**
 * What a schema cannot say of a form's languages, all problems at once: the default language and every
 * translation's code well-formed BCP 47, no translation in the default language or twice (by case),
 * every field key a field of the form (at any depth) and every choice name a choice of that field.
 * `fields` is the form as it will be: an edit removing a field named by a translation is refused here.
 */
export function translationProblems(
  defaultLanguage: string,
  translations: FormTranslations | null | undefined,
  fields: FormField[],
): string[] {
  const problems: string[] = [];
  if (!isLanguageCode(defaultLanguage)) {
    problems.push(`defaultLanguage ${LANGUAGE_CODE.rule}`);
  }
  const byKey = new Map(allFields(fields).map((field) => [field.key, field]));
  const seen = new Set<string>();
  for (const [code, translation] of Object.entries(translations ?? {})) {
    const at = `translations.${code}`;
    if (!isLanguageCode(code)) problems.push(`${at} is not a BCP 47 language code`);
    if (code.toLowerCase() === defaultLanguage.toLowerCase()) {
      problems.push(`${at} is the default language: its strings are the form's own`);
    }
    if (seen.has(code.toLowerCase())) problems.push(`${at} is given twice (codes ignore case)`);
    seen.add(code.toLowerCase());
    for (const [key, strings] of Object.entries(translation.fields ?? {})) {
      const field = byKey.get(key);
      if (!field) {
        problems.push(`${at}.fields.${key} is not a field of this form`);
        continue;
      }
      if (strings.choices) {
        const names = new Set(choicesOf(field).map((choice) => choice.name));
        for (const name of Object.keys(strings.choices)) {
          if (!names.has(name))
            problems.push(`${at}.fields.${key}.choices.${name} is not a choice of ${key}`);
        }
      }
    }
  }
  return problems;
}

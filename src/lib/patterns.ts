import { CONTROL_PROBLEM, TEXT_PATTERNS } from './text.js';

/**
 * The patterns request strings must match, each with its rule in words: a 400 names the field and says
 * the rule (`code must be 2 to 32 lower-case letters, ...`), never only that the format is wrong. The
 * schemas take `pattern` from here, so a pattern cannot be written without its words.
 */
export interface NamedPattern {
  /** The JSON Schema pattern (ECMA-262), as schemas and the OpenAPI document carry it. */
  readonly pattern: string;
  /** The end of the 400 message after the field's name. */
  readonly rule: string;
}

/**
 * An organization's code: a slug, unique across the service. Donors' and projects' codes are
 * abbreviations as their owners write them (`USAID`, `KE-WASH-01`), refused only when blank or too long.
 */
export const ORGANIZATION_CODE: NamedPattern = {
  pattern: '^[a-z0-9][a-z0-9-]{1,31}$',
  rule: 'must be 2 to 32 lower-case letters, digits or dashes, starting with a letter or digit',
};

/** An indicator's code is the name formulas call it by: no dash, which a formula reads as minus. */
export const INDICATOR_CODE: NamedPattern = {
  pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$',
  rule:
    'must be 1 to 64 letters, digits or underscores, starting with a letter or underscore, ' +
    'as formulas name indicators by code',
};

/** A result node's code: how a logframe numbers it (`1.2`, `OUT-3`, `IMP_1`). */
export const RESULT_CODE: NamedPattern = {
  pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$',
  rule: 'must be 1 to 32 letters, digits, dots, dashes or underscores, starting with a letter or digit',
};

/** A form field's key: the answer's name in submissions, CSV columns and `showIf`. */
export const FIELD_KEY: NamedPattern = {
  pattern: '^[a-z][a-z0-9_]{0,63}$',
  rule: 'must be 1 to 64 lower-case letters, digits or underscores, starting with a letter',
};

export const CURRENCY_CODE: NamedPattern = {
  pattern: '^[A-Z]{3}$',
  rule: 'must be 3 upper-case letters, an ISO 4217 currency code such as USD or KES',
};

export const HTTP_URL: NamedPattern = {
  pattern: '^https?://',
  rule: 'must be an http or https URL',
};

/** IATI forbids spaces and `/ & | ?` in identifiers; real ones are letters, digits and `- _ . :`. */
export const IATI_IDENTIFIER: NamedPattern = {
  pattern: '^[A-Za-z0-9](?:[A-Za-z0-9._:-]*[A-Za-z0-9])?$',
  rule: 'must be letters, digits, dots, underscores, colons or dashes, starting and ending with a letter or digit',
};

export const IDEMPOTENCY_KEY: NamedPattern = {
  pattern: '^[\\x21-\\x7E]+$',
  rule: 'must be visible ASCII characters, without spaces',
};

/** Text with a character that is not white space (what `notBlank` amounts to). */
/** An age band of an organization: a range of whole years, closed (`18-59`) or open (`60+`), or `unknown`. */
export const AGE_BAND: NamedPattern = {
  pattern: '^(?:(?:0|[1-9][0-9]{0,2})(?:-(?:0|[1-9][0-9]{0,2})|\\+)|unknown)$',
  rule: 'must be an age range in whole years written a-b or a+ (like 18-59 or 60+), or unknown',
};

export const NOT_BLANK: NamedPattern = { pattern: '\\S', rule: 'should not be empty' };

/**
 * The text rules of every request string (validation's own keywords, which the OpenAPI document writes
 * as these patterns): their words are the keywords' messages.
 */
const TEXT: readonly NamedPattern[] = [
  { pattern: TEXT_PATTERNS.one.any, rule: CONTROL_PROBLEM.one },
  { pattern: TEXT_PATTERNS.several.any, rule: CONTROL_PROBLEM.several },
  { pattern: TEXT_PATTERNS.one.notBlank, rule: `should not be empty and ${CONTROL_PROBLEM.one}` },
  { pattern: TEXT_PATTERNS.several.notBlank, rule: `should not be empty and ${CONTROL_PROBLEM.several}` },
];

/**
 * A language as BCP 47 writes it (`en`, `ar`, `fa-AF`, `prs`, `zh-Hant-TW`): a primary subtag of 2 or 3
 * letters, an optional script, region and variants (forms' defaultLanguage and translations).
 */
export const LANGUAGE_CODE: NamedPattern = {
  pattern:
    '^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?(-([A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*$',
  rule: 'must be a BCP 47 language code such as en, ar, fa-AF or prs',
};

const RULES = new Map(
  [
    ORGANIZATION_CODE,
    INDICATOR_CODE,
    RESULT_CODE,
    FIELD_KEY,
    CURRENCY_CODE,
    HTTP_URL,
    IATI_IDENTIFIER,
    IDEMPOTENCY_KEY,
    AGE_BAND,
    LANGUAGE_CODE,
    NOT_BLANK,
    ...TEXT,
  ].map(({ pattern, rule }) => [pattern, rule]),
);

/** The rule a pattern states, in words (`must be ...`), or undefined for a pattern not listed here. */
export const ruleOfPattern = (pattern: string): string | undefined => RULES.get(pattern);

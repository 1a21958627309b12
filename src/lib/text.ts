/** Optional free text as stored: trimmed, and text of only spaces is no text (null). undefined: not sent. */
export const optionalText = (text: string | null | undefined): string | null | undefined =>
  text === undefined ? undefined : text?.trim() || null;

/** A fixed, locale-free order for text that may be missing (missing last): code-unit order. */
export const compareText = (a: string | null | undefined, b: string | null | undefined): number =>
  a == null ? (b == null ? 0 : 1) : b == null ? -1 : a < b ? -1 : a > b ? 1 : 0;

/** PostgreSQL refuses NUL (`\u0000`) in text and in jsonb. */
export const hasNul = (text: string): boolean => text.includes('\u0000');

// In `u` mode a surrogate pair is one code point: only a lone surrogate is of the category Cs.
const LONE_SURROGATE = /\p{Cs}/u;
/** Text that is not valid Unicode: UTF-8 cannot hold it and PostgreSQL's jsonb refuses it. */
export const hasLoneSurrogate = (text: string): boolean => LONE_SURROGATE.test(text);

// Control characters (Unicode category Cc: U+0000-U+001F, U+007F-U+009F), NUL aside (`hasNul`, whose
// message the contract names); as strings, since the lint refuses them in a regular expression literal.
const CONTROLS = '\\u0001-\\u001F\\u007F-\\u009F';
const CONTROLS_BUT_LINES = '\\u0001-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F';
const CONTROL = { one: new RegExp(`[${CONTROLS}]`), several: new RegExp(`[${CONTROLS_BUT_LINES}]`) };
/**
 * Whether text holds a control character. Text of one line (a name, a code, a title) has none: a line
 * break in a name garbles email subjects, pages and XML. Text of several lines (a description, a
 * narrative, an answer) keeps tab, line feed and carriage return.
 */
export const hasControl = (text: string, lines: 'one' | 'several'): boolean => CONTROL[lines].test(text);

/** The ends of the 400 messages of control characters (`name must not ...`). */
export const CONTROL_PROBLEM = {
  one: 'must not contain control characters (line breaks, tabs or other invisible characters)',
  several: 'must not contain control characters other than tabs and line breaks',
} as const;

/**
 * The same rules as JSON Schema patterns, for the OpenAPI document: `any` text, or `notBlank` text (a
 * character that is neither white space nor a control). Written with `\u` escapes in classes, they
 * mean the same with and without the `u` flag, and match in time linear in the length.
 */
const CC = '\\u0000-\\u001F\\u007F-\\u009F';
const CC_BUT_LINES = '\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F';
export const TEXT_PATTERNS = {
  one: { any: `^[^${CC}]*$`, notBlank: `^[^\\S${CC}]*[^\\s${CC}][^${CC}]*$` },
  several: {
    any: `^[^${CC_BUT_LINES}]*$`,
    notBlank: `^[^\\S${CC_BUT_LINES}]*[^\\s${CC}][^${CC_BUT_LINES}]*$`,
  },
} as const;

/**
 * The problem with text a client sent, as the end of a 400 message (`name must ...`), or null: `lines`
 * says whether it is one line of text or may be several.
 */
export function textProblem(text: string, lines: 'one' | 'several'): string | null {
  if (hasNul(text)) return 'must not contain NUL characters';
  if (hasLoneSurrogate(text)) return 'must be valid Unicode text';
  if (hasControl(text, lines)) return CONTROL_PROBLEM[lines];
  return null;
}

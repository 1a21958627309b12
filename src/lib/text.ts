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

/** The problem with text a client sent, as the end of a 400 message (`name must ...`), or null. */
export function textProblem(text: string): string | null {
  if (hasNul(text)) return 'must not contain NUL characters';
  if (hasLoneSurrogate(text)) return 'must be valid Unicode text';
  return null;
}

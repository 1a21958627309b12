/** Optional free text as stored: trimmed, and text of only spaces is no text (null). undefined: not sent. */
export const optionalText = (text: string | null | undefined): string | null | undefined =>
  text === undefined ? undefined : text?.trim() || null;

/** A fixed, locale-free order for text that may be missing (missing last): code-unit order. */
export const compareText = (a: string | null | undefined, b: string | null | undefined): number =>
  a == null ? (b == null ? 0 : 1) : b == null ? -1 : a < b ? -1 : a > b ? 1 : 0;

/** Optional free text as stored: trimmed, and text of only spaces is no text (null). undefined: not sent. */
export const optionalText = (text: string | null | undefined): string | null | undefined =>
  text === undefined ? undefined : text?.trim() || null;

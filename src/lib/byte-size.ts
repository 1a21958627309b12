/** Binary units only: `GB` would be read as 10^9 by some and 2^30 by others, so it is refused. */
const UNIT_BYTES: Record<string, number> = { b: 1, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40 };
const UNITS = ['TiB', 'GiB', 'MiB', 'KiB'] as const;

/**
 * Parses `1073741824`, `512B`, `500KiB`, `1.5 MiB`, `10GiB` or `2TiB` (units in any case) into whole
 * bytes, rounded down; null when the text is not such a size or is not at least one byte.
 */
export function parseByteSize(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  if (!match) return null;
  const unit = UNIT_BYTES[(match[2] || 'b').toLowerCase()];
  if (unit === undefined) return null;
  const bytes = Math.floor(Number(match[1]) * unit);
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : null;
}

/** `10 GiB`, `1.5 MiB`, `900 B`: the largest unit the size reaches, with at most one decimal. */
export function formatByteSize(bytes: number): string {
  for (const unit of UNITS) {
    const size = UNIT_BYTES[unit.toLowerCase()]!;
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} B`;
}

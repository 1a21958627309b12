const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** Parses `90`, `90s`, `30m`, `12h` or `7d` into whole seconds; null when the text is not a duration. */
export function parseDuration(text: string): number | null {
  const match = /^(\d+)\s*([smhd]?)$/.exec(text.trim());
  if (!match) return null;
  const seconds = Number(match[1]) * (UNIT_SECONDS[match[2] || 's'] ?? 1);
  return Number.isSafeInteger(seconds) && seconds > 0 ? seconds : null;
}

/**
 * Parses `250ms` or any duration `parseDuration` takes (`2s`, `1m`; a bare number is seconds, as
 * everywhere else) into whole milliseconds; null when the text is not a duration.
 */
export function parseDurationMs(text: string): number | null {
  const match = /^(\d+)\s*ms$/.exec(text.trim());
  if (!match) {
    const seconds = parseDuration(text);
    return seconds === null ? null : seconds * 1000;
  }
  const ms = Number(match[1]);
  return Number.isSafeInteger(ms) && ms > 0 ? ms : null;
}

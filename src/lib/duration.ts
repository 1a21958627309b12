const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** Parses `90`, `90s`, `30m`, `12h` or `7d` into whole seconds; null when the text is not a duration. */
export function parseDuration(text: string): number | null {
  const match = /^(\d+)\s*([smhd]?)$/.exec(text.trim());
  if (!match) return null;
  const seconds = Number(match[1]) * (UNIT_SECONDS[match[2] || 's'] ?? 1);
  return Number.isSafeInteger(seconds) && seconds > 0 ? seconds : null;
}

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * Parses a duration that may be shorter than a second into whole milliseconds: `500ms`, `10s`, `5min` (or
 * `5m`), `1h`, `1d`, or a bare number of seconds as `parseDuration` reads it; null when it is not one.
 */
export function parseDurationMs(text: string): number | null {
  const match = /^(\d+)\s*(ms|s|min|m|h|d)?$/.exec(text.trim());
  if (!match) return null;
  const ms = Number(match[1]) * (UNIT_MS[match[2] ?? 's'] ?? 1000);
  return Number.isSafeInteger(ms) && ms > 0 ? ms : null;
}

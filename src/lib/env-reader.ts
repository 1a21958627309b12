import { parseByteSize } from './byte-size.js';
import { parseDuration, parseDurationMs } from './duration.js';

export type Env = Record<string, string | undefined>;

// PostgreSQL takes up to about 24 days; a day is already far past any statement a request should wait for.
const ONE_DAY = { ms: 86_400_000, text: '1d' };

/**
 * Reads environment variables, each with its default, and keeps a problem naming the variable for every
 * bad value instead of stopping at the first: one start-up names them all. A bad value reads as a
 * stand-in (its default, or a bound), so the checks after it still run.
 */
export class EnvReader {
  readonly problems: string[] = [];

  constructor(private readonly env: Env) {}

  refuse(problem: string): void {
    this.problems.push(problem);
  }

  /** The trimmed value; unset or blank is undefined. */
  text(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value ? value : undefined;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.text(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) {
      this.refuse(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  }

  /** In seconds: a bare number, or `30m`, `12h`, `7d`. */
  duration(name: string, fallback: string): number {
    const raw = this.text(name) ?? fallback;
    const seconds = parseDuration(raw);
    if (seconds !== null) return seconds;
    this.refuse(`${name} must be a duration such as 3600, 30m, 12h or 7d (got "${raw}")`);
    return 1;
  }

  /** A duration in seconds, at most `maxSeconds`. */
  limit(name: string, fallback: string, maxSeconds: number): number {
    const seconds = this.duration(name, fallback);
    if (seconds <= maxSeconds) return seconds;
    this.refuse(`${name} must be at most ${maxSeconds} seconds (got "${this.text(name)}")`);
    return maxSeconds;
  }

  /** In ms, up to `max` (a day unless said): `500ms`, `10s`, `5min`. */
  milliseconds(name: string, fallback: string, max: { ms: number; text: string } = ONE_DAY): number {
    const raw = this.text(name) ?? fallback;
    const ms = parseDurationMs(raw);
    if (ms !== null && ms <= max.ms) return ms;
    this.refuse(
      `${name} must be a duration from 1ms to ${max.text}, such as 500ms, 10s or 5min (got "${raw}")`,
    );
    return parseDurationMs(fallback)!;
  }

  /** In bytes: a bare number, or `500MiB`, `10GiB`. */
  byteSize(name: string, fallback: string): number {
    const raw = this.text(name) ?? fallback;
    const bytes = parseByteSize(raw);
    if (bytes !== null) return bytes;
    this.refuse(`${name} must be a size such as 1073741824, 500MiB or 10GiB (got "${raw}")`);
    return 1;
  }

  /** `true` or `false`; unset is false. */
  flag(name: string): boolean {
    const raw = this.text(name);
    if (raw === undefined || raw === 'false') return false;
    if (raw === 'true') return true;
    this.refuse(`${name} must be true or false (got "${raw}")`);
    return false;
  }

  /** An http(s) URL without its trailing slashes. */
  url(name: string, fallback: string): string;
  url(name: string, fallback: undefined): string | undefined;
  url(name: string, fallback: string | undefined): string | undefined {
    const raw = this.text(name) ?? fallback;
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!['http:', 'https:'].includes(parsed.protocol)) throw new Error('protocol');
      return raw.replace(/\/+$/, '');
    } catch {
      this.refuse(`${name} must be an http(s) URL (got "${raw}")`);
      return fallback;
    }
  }

  /** A connection string with one of `protocols` (`postgres:`), kept as written; unset is null. */
  connection(name: string, protocols: readonly string[]): string | null {
    const raw = this.text(name);
    if (raw === undefined) return null;
    try {
      if (!protocols.includes(new URL(raw).protocol)) throw new Error('protocol');
    } catch {
      this.refuse(`${name} must be a ${protocols.map((p) => p.replace(':', '://')).join(' or ')} URL`);
    }
    return raw;
  }

  /** A secret of at least `minLength` characters; unset is null. */
  secret(name: string, minLength: number): string | null {
    const value = this.text(name);
    if (value !== undefined && value.length < minLength)
      this.refuse(`${name} must be at least ${minLength} characters`);
    return value ?? null;
  }
}

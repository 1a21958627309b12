import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseByteSize } from './lib/byte-size.js';
import { parseDuration, parseDurationMs } from './lib/duration.js';
import { SealedValueError, sealingKey, type Keyring } from './lib/sealed-values.js';

export interface Config {
  readonly env: string;
  readonly port: number;
  readonly host: string;
  readonly baseUrl: string;
  readonly appUrl: string;
  readonly frontendUrl: string;
  readonly databaseUrl: string | null;
  /** DATABASE_REPLICA_URL: a streaming replica of DATABASE_URL for heavy reads (reports, dashboard, exports). */
  readonly databaseReplicaUrl: string | null;
  /** REPLICA_MAX_LAG: a replica further behind than this, in seconds, is not read; the primary answers. */
  readonly replicaMaxLagSeconds: number;
  /**
   * How long a statement may run and wait for a lock on PostgreSQL, in ms (PGlite has no other session
   * to wait for, and no timer to cancel a statement: there they change nothing).
   */
  readonly databaseTimeouts: {
    /** DATABASE_STATEMENT_TIMEOUT: a request's statement is cancelled after this (503 `database_busy`). */
    readonly statementMs: number;
    /** DATABASE_LOCK_TIMEOUT: a statement that waits this long for a lock gives up (503 `database_busy`). */
    readonly lockMs: number;
    /** EXPORT_STATEMENT_TIMEOUT: the statement limit of exports, bulk jobs and `npm run worker`. */
    readonly exportStatementMs: number;
  };
  /** METRICS_TOKEN: GET /metrics answers Prometheus text to this bearer token; unset, there is no /metrics. */
  readonly metricsToken: string | null;
  readonly dataDir: string;
  readonly jwtSecret: string;
  /** The key personal data is sealed under (PII_KEY) and, during a rotation, the one before (PII_KEY_PREVIOUS). */
  readonly piiKeyring: Keyring;
  /** How long the access audit log keeps entries (AUDIT_RETENTION), in seconds. */
  readonly auditRetentionSeconds: number;
  readonly jwtExpirySeconds: number;
  readonly bcryptCost: number;
  /**
   * UV_THREADPOOL_SIZE: the threads of libuv's pool (bcrypt, file reads, DNS), which Node reads itself;
   * password hashing leaves one of them free.
   */
  readonly threadPoolSize: number;
  readonly resetTokenTtlSeconds: number;
  readonly smtpUrl: string | null;
  readonly mailFrom: string;
  readonly redisUrl: string | null;
  /** REDIS_COMMAND_TIMEOUT: a Redis command unanswered after this many ms fails, and limits fail open. */
  readonly redisCommandTimeoutMs: number;
  readonly rateLimit: {
    readonly max: number;
    readonly windowSeconds: number;
    readonly publicMax: number;
    /** PUBLIC_UPLOAD_RATE_LIMIT_MAX: multipart public submissions, on top of the public bucket. */
    readonly publicUploadMax: number;
    readonly authMax: number;
  };
  /** Stored bytes of uploaded files: a form's submissions (FORM_FILES_QUOTA), an organization's all (ORG_FILES_QUOTA). */
  readonly fileQuotas: {
    readonly formBytes: number;
    readonly orgBytes: number;
  };
  readonly trustProxy: boolean | string[];
  readonly corsOrigins: string[];
  readonly oidc: {
    readonly issuer: string;
    readonly clientId: string;
    readonly clientSecret: string;
    readonly redirectUri: string;
  } | null;
  readonly logLevel: string;
  /** WEBHOOK_ALLOW_PRIVATE: webhooks may go to private and loopback addresses, and over http to loopback. */
  readonly webhookAllowPrivate: boolean;
  /** Limits on slow or idle clients, in seconds (REQUEST_TIMEOUT and the others). */
  readonly timeouts: {
    /** The whole request, headers and body, must arrive within this. */
    readonly requestSeconds: number;
    /** The headers must arrive within this; never longer than the request limit. */
    readonly headersSeconds: number;
    /** An idle kept-alive connection is closed after this. */
    readonly keepAliveSeconds: number;
    /** A connection on which nothing moves either way for this long is closed. */
    readonly connectionSeconds: number;
  };
}

export class ConfigError extends Error {}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const secureOrLoopback = (url: URL) => url.protocol === 'https:' || LOOPBACK.has(url.hostname);

type Env = Record<string, string | undefined>;

const ONE_DAY = { ms: 86_400_000, text: '1d' };

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads and validates every variable at once, so one start-up names every bad value. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const text = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = text(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const duration = (name: string, fallback: string): number => {
    const raw = text(name) ?? fallback;
    const seconds = parseDuration(raw);
    if (seconds === null) {
      problems.push(`${name} must be a duration such as 3600, 30m, 12h or 7d (got "${raw}")`);
      return 1;
    }
    return seconds;
  };
  const byteSize = (name: string, fallback: string): number => {
    const raw = text(name) ?? fallback;
    const bytes = parseByteSize(raw);
    if (bytes !== null) return bytes;
    problems.push(`${name} must be a size such as 1073741824, 500MiB or 10GiB (got "${raw}")`);
    return 1;
  };
  const limit = (name: string, fallback: string, maxSeconds: number): number => {
    const seconds = duration(name, fallback);
    if (seconds <= maxSeconds) return seconds;
    problems.push(`${name} must be at most ${maxSeconds} seconds (got "${text(name)}")`);
    return maxSeconds;
  };
  // PostgreSQL takes up to about 24 days; a day is already far past any statement a request should wait for.
  const milliseconds = (
    name: string,
    fallback: string,
    max: { ms: number; text: string } = ONE_DAY,
  ): number => {
    const raw = text(name) ?? fallback;
    const ms = parseDurationMs(raw);
    if (ms === null || ms > max.ms) {
      problems.push(
        `${name} must be a duration from 1ms to ${max.text}, such as 500ms, 10s or 5min (got "${raw}")`,
      );
      return parseDurationMs(fallback)!;
    }
    return ms;
  };
  const flag = (name: string): boolean => {
    const raw = text(name);
    if (raw === undefined || raw === 'false') return false;
    if (raw === 'true') return true;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return false;
  };
  const url = (name: string, fallback: string | undefined): string | undefined => {
    const raw = text(name) ?? fallback;
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!['http:', 'https:'].includes(parsed.protocol)) throw new Error('protocol');
      return raw.replace(/\/+$/, '');
    } catch {
      problems.push(`${name} must be an http(s) URL (got "${raw}")`);
      return fallback;
    }
  };
  const connection = (name: string, protocols: string[]): string | null => {
    const raw = text(name);
    if (raw === undefined) return null;
    try {
      if (!protocols.includes(new URL(raw).protocol)) throw new Error('protocol');
    } catch {
      problems.push(`${name} must be a ${protocols.map((p) => p.replace(':', '://')).join(' or ')} URL`);
    }
    return raw;
  };

  const env_ = text('NODE_ENV') ?? 'development';
  const port = integer('PORT', 3000, 0, 65535);
  const host = text('HOST') ?? '0.0.0.0';
  const baseUrl = url('BASE_URL', `http://localhost:${port}`) ?? `http://localhost:${port}`;
  const appUrl = url('APP_URL', baseUrl) ?? baseUrl;
  const frontendUrl = url('FRONTEND_URL', appUrl) ?? appUrl;
  const dataDir = path.resolve(text('DATA_DIR') ?? './data');

  const logLevel = text('LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const trustProxyRaw = text('TRUST_PROXY') ?? 'false';
  const trustProxy =
    trustProxyRaw === 'false'
      ? false
      : trustProxyRaw === 'true'
        ? true
        : trustProxyRaw.split(',').map((p) => p.trim());

  let jwtSecret = text('JWT_SECRET');
  if (jwtSecret !== undefined && jwtSecret.length < 32)
    problems.push('JWT_SECRET must be at least 32 characters');
  if (jwtSecret === undefined && env_ === 'production')
    problems.push('JWT_SECRET is required when NODE_ENV=production');

  // At least 30 days: a short retention would let the daily purge empty the record of processing.
  const auditRetention = () => {
    const known = problems.length;
    const seconds = duration('AUDIT_RETENTION', '730d');
    if (seconds >= 30 * 86_400 || problems.length > known) return seconds;
    problems.push(`AUDIT_RETENTION must be at least 30 days (got "${text('AUDIT_RETENTION')}")`);
    return 30 * 86_400;
  };

  const piiKeyText = text('PII_KEY');
  if (piiKeyText === undefined && env_ === 'production')
    problems.push(
      'PII_KEY is required when NODE_ENV=production (32 bytes in base64: openssl rand -base64 32)',
    );
  const key = (name: string, value: string | undefined) => {
    if (value === undefined) return undefined;
    try {
      return sealingKey(value, name);
    } catch (err) {
      if (!(err instanceof SealedValueError)) throw err;
      problems.push(err.message);
      return undefined;
    }
  };
  const piiKey = key('PII_KEY', piiKeyText);
  const previousPiiKey = key('PII_KEY_PREVIOUS', text('PII_KEY_PREVIOUS'));
  if (previousPiiKey && piiKeyText === undefined) problems.push('PII_KEY_PREVIOUS is set without PII_KEY');
  if (previousPiiKey && piiKey && previousPiiKey.id === piiKey.id)
    problems.push('PII_KEY_PREVIOUS must differ from PII_KEY');

  const oidcNames = ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_REDIRECT_URI'] as const;
  const oidcSet = oidcNames.filter((name) => text(name) !== undefined);
  if (oidcSet.length > 0 && oidcSet.length < oidcNames.length) {
    problems.push(
      `${oidcNames.filter((n) => !oidcSet.includes(n)).join(', ')} must be set with ${oidcSet.join(', ')}`,
    );
  }
  // The issuer is kept exactly as given: discovery compares it with the provider's own, trailing slash included.
  const oidcIssuer = url('OIDC_ISSUER', undefined) && text('OIDC_ISSUER');
  if (oidcIssuer && !secureOrLoopback(new URL(oidcIssuer))) {
    problems.push(`OIDC_ISSUER must be an https URL; http only on localhost (got "${oidcIssuer}")`);
  }
  // Providers compare redirect URIs exactly: kept as written too.
  const oidcRedirect = url('OIDC_REDIRECT_URI', undefined) && text('OIDC_REDIRECT_URI');

  // 50 s: a slow body is cut within a minute (checked every 2.5 s), while a 10 MiB field upload at
  // 1.7 Mbit/s still arrives; a buffering proxy in front takes slow uploads off the service altogether.
  const requestSeconds = limit('REQUEST_TIMEOUT', '50s', 3600);
  // Node ignores a request limit shorter than its headers limit (60 s unless set): never longer.
  const headersSeconds = limit('HEADERS_TIMEOUT', `${Math.min(10, requestSeconds)}s`, 3600);
  if (text('HEADERS_TIMEOUT') !== undefined && headersSeconds > requestSeconds) {
    problems.push(
      `HEADERS_TIMEOUT must not be longer than REQUEST_TIMEOUT (got ${headersSeconds} s and ${requestSeconds} s)`,
    );
  }

  // A replica only makes sense beside a PostgreSQL primary: the embedded database has none.
  const replicaUrl = () => {
    const replica = connection('DATABASE_REPLICA_URL', ['postgres:', 'postgresql:']);
    if (replica !== null && text('DATABASE_URL') === undefined)
      problems.push('DATABASE_REPLICA_URL is set without DATABASE_URL');
    return replica;
  };
  // Exports and the worker run the statements that read or purge in bulk: never a shorter limit than requests'.
  const databaseTimeouts = () => {
    const statementMs = milliseconds('DATABASE_STATEMENT_TIMEOUT', '10s');
    const exportStatementMs = milliseconds('EXPORT_STATEMENT_TIMEOUT', '5min');
    if (exportStatementMs < statementMs)
      problems.push(
        `EXPORT_STATEMENT_TIMEOUT must not be shorter than DATABASE_STATEMENT_TIMEOUT (got ${exportStatementMs} ms and ${statementMs} ms)`,
      );
    return { statementMs, lockMs: milliseconds('DATABASE_LOCK_TIMEOUT', '5s'), exportStatementMs };
  };
  // A scrape token is a credential: short ones are guessed.
  const metricsToken = () => {
    const token = text('METRICS_TOKEN');
    if (token !== undefined && token.length < 16)
      problems.push('METRICS_TOKEN must be at least 16 characters');
    return token ?? null;
  };

  const config: Config = {
    env: env_,
    port,
    host,
    baseUrl,
    appUrl,
    frontendUrl,
    databaseUrl: connection('DATABASE_URL', ['postgres:', 'postgresql:']),
    databaseReplicaUrl: replicaUrl(),
    replicaMaxLagSeconds: limit('REPLICA_MAX_LAG', '5s', 3600),
    databaseTimeouts: databaseTimeouts(),
    metricsToken: metricsToken(),
    dataDir,
    jwtSecret: '',
    piiKeyring: { current: { id: '', secret: Buffer.alloc(0) } },
    auditRetentionSeconds: auditRetention(),
    jwtExpirySeconds: duration('JWT_EXPIRY', '7d'),
    bcryptCost: integer('BCRYPT_COST', 12, 4, 31),
    // libuv's own bounds: it takes 1 to 1024 threads.
    threadPoolSize: integer('UV_THREADPOOL_SIZE', 4, 1, 1024),
    resetTokenTtlSeconds: duration('RESET_TOKEN_TTL', '1h'),
    smtpUrl: connection('SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: text('MAIL_FROM') ?? 'MEL <no-reply@localhost>',
    redisUrl: connection('REDIS_URL', ['redis:', 'rediss:']),
    // A rate-limit count takes about a millisecond; a Redis that has not answered in 250 ms is hung or
    // gone, and every limited request would wait as long (a bare number is seconds: at most 10 s).
    redisCommandTimeoutMs: milliseconds('REDIS_COMMAND_TIMEOUT', '250ms', { ms: 10_000, text: '10s' }),
    rateLimit: {
      max: integer('RATE_LIMIT_MAX', 100, 1, 1_000_000),
      windowSeconds: duration('RATE_LIMIT_WINDOW', '60s'),
      publicMax: integer('PUBLIC_RATE_LIMIT_MAX', 300, 1, 1_000_000),
      // A tenth of the public bucket: multipart bodies (up to 10 MiB per file field) are what fill the disk.
      publicUploadMax: integer('PUBLIC_UPLOAD_RATE_LIMIT_MAX', 30, 1, 1_000_000),
      authMax: integer('AUTH_RATE_LIMIT_MAX', 10, 1, 1_000_000),
    },
    fileQuotas: {
      formBytes: byteSize('FORM_FILES_QUOTA', '1GiB'),
      orgBytes: byteSize('ORG_FILES_QUOTA', '10GiB'),
    },
    trustProxy,
    corsOrigins: (text('CORS_ORIGINS') ?? appUrl).split(',').map((o) => o.trim().replace(/\/+$/, '')),
    oidc:
      oidcSet.length === oidcNames.length && oidcIssuer && oidcRedirect
        ? {
            issuer: oidcIssuer,
            clientId: text('OIDC_CLIENT_ID') ?? '',
            clientSecret: text('OIDC_CLIENT_SECRET') ?? '',
            redirectUri: oidcRedirect,
          }
        : null,
    logLevel,
    webhookAllowPrivate: flag('WEBHOOK_ALLOW_PRIVATE'),
    timeouts: {
      requestSeconds,
      headersSeconds,
      // Longer than the idle timeout of the proxy in front (60 s for most), so that the proxy closes first.
      keepAliveSeconds: limit('KEEP_ALIVE_TIMEOUT', '72s', 3600),
      connectionSeconds: limit('CONNECTION_TIMEOUT', '120s', 3600),
    },
  };

  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n- ${problems.join('\n- ')}`);
  jwtSecret ??= developmentSecret(dataDir, 'jwt-secret', () => randomBytes(48).toString('base64url'));
  const piiKeyring: Keyring = {
    current: piiKey ?? developmentKey(dataDir),
    ...(previousPiiKey ? { previous: previousPiiKey } : {}),
  };
  return Object.freeze({ ...config, jwtSecret, piiKeyring });
}

/** The development PII key kept in DATA_DIR; a file damaged by hand or by a crash is named, not stacked. */
function developmentKey(dataDir: string) {
  const file = path.join(dataDir, 'pii-key');
  const text = developmentSecret(dataDir, 'pii-key', () => randomBytes(32).toString('base64'));
  try {
    return sealingKey(text, file);
  } catch (err) {
    if (!(err instanceof SealedValueError)) throw err;
    throw new ConfigError(
      `Invalid configuration:\n- ${err.message}. It is the generated development key: restore it, or ` +
        'set PII_KEY to the key the data was sealed under.',
    );
  }
}

/** For entry points: a configuration error is printed as it is and ends the process. */
export function loadConfigOrExit(env: Env = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    process.exit(1);
  }
}

/**
 * Outside production a secret is generated once and kept in DATA_DIR, so sessions survive restarts and
 * sealed personal data stays readable (the JWT secret, the PII key).
 */
function developmentSecret(dataDir: string, name: string, generate: () => string): string {
  const file = path.join(dataDir, name);
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(dataDir, { recursive: true });
    const secret = generate();
    writeFileSync(file, secret, { mode: 0o600 });
    return secret;
  }
}

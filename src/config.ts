import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { EnvReader, type Env } from './lib/env-reader.js';
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
  /** DATABASE_WAIT: how long a start waits for an unreachable or missing PostgreSQL database, in seconds. */
  readonly databaseWaitSeconds: number;
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
  /**
   * FILE_STORAGE: where uploaded files are kept: `filesystem` (DATA_DIR/files, the default) or `database`
   * (chunked in PostgreSQL, so instances on one database share them and its backups hold them).
   */
  readonly fileStorage: FileStorageKind;
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
  /** LOG_FORMAT: JSON lines for machines, or `pretty` (pino-pretty) for people. */
  readonly logFormat: 'json' | 'pretty';
  /** WEBHOOK_ALLOW_PRIVATE: webhooks may go to private and loopback addresses, and over http to loopback. */
  readonly webhookAllowPrivate: boolean;
  /**
   * REGISTRATION and REGISTRATION_DOMAINS: for whom an account may be created (POST /auth/register, a
   * first sign-in through the identity provider). `domains` lists lower-case domains, matched exactly.
   */
  readonly registration: { readonly mode: RegistrationMode; readonly domains: readonly string[] };
  /** ORG_CREATION: who may create an organization with POST /orgs (`admins`: org_admins of one already). */
  readonly orgCreation: OrgCreation;
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

export const REGISTRATION_MODES = ['open', 'invite', 'domains'] as const;
export type RegistrationMode = (typeof REGISTRATION_MODES)[number];
export const ORG_CREATION = ['anyone', 'admins'] as const;
export type OrgCreation = (typeof ORG_CREATION)[number];
export const FILE_STORAGE_KINDS = ['filesystem', 'database'] as const;
export type FileStorageKind = (typeof FILE_STORAGE_KINDS)[number];

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const secureOrLoopback = (url: URL) => url.protocol === 'https:' || LOOPBACK.has(url.hostname);

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const POSTGRES = ['postgres:', 'postgresql:'];
const DAY = 86_400;

type Setting<T> = (read: EnvReader) => T;

/**
 * The settings read on their own: each line a variable, its parser and its default (the configuration
 * table of docs/operations.md), in the order their problems are listed. Those read against other settings
 * (addresses, secrets, external sign-in, request limits) are the functions after it.
 */
const SETTINGS = {
  databaseUrl: (read) => read.connection('DATABASE_URL', POSTGRES),
  databaseReplicaUrl: replicaUrl,
  databaseWaitSeconds: databaseWait,
  replicaMaxLagSeconds: (read) => read.limit('REPLICA_MAX_LAG', '5s', 3600),
  databaseTimeouts,
  // A scrape token is a credential: short ones are guessed.
  metricsToken: (read) => read.secret('METRICS_TOKEN', 16),
  auditRetentionSeconds: auditRetention,
  jwtExpirySeconds: (read) => read.duration('JWT_EXPIRY', '7d'),
  bcryptCost: (read) => read.integer('BCRYPT_COST', 12, 4, 31),
  // libuv's own bounds: it takes 1 to 1024 threads.
  threadPoolSize: (read) => read.integer('UV_THREADPOOL_SIZE', 4, 1, 1024),
  resetTokenTtlSeconds: (read) => read.duration('RESET_TOKEN_TTL', '1h'),
  smtpUrl: (read) => read.connection('SMTP_URL', ['smtp:', 'smtps:']),
  mailFrom: (read) => read.text('MAIL_FROM') ?? 'MEL <no-reply@localhost>',
  redisUrl: (read) => read.connection('REDIS_URL', ['redis:', 'rediss:']),
  // A rate-limit count takes about a millisecond; a Redis that has not answered in 250 ms is hung or
  // gone, and every limited request would wait as long (a bare number is seconds: at most 10 s).
  redisCommandTimeoutMs: (read) =>
    read.milliseconds('REDIS_COMMAND_TIMEOUT', '250ms', { ms: 10_000, text: '10s' }),
  rateLimit: (read) => ({
    max: read.integer('RATE_LIMIT_MAX', 100, 1, 1_000_000),
    windowSeconds: read.duration('RATE_LIMIT_WINDOW', '60s'),
    publicMax: read.integer('PUBLIC_RATE_LIMIT_MAX', 300, 1, 1_000_000),
    // A tenth of the public bucket: multipart bodies (up to 10 MiB per file field) are what fill the disk.
    publicUploadMax: read.integer('PUBLIC_UPLOAD_RATE_LIMIT_MAX', 30, 1, 1_000_000),
    authMax: read.integer('AUTH_RATE_LIMIT_MAX', 10, 1, 1_000_000),
  }),
  fileQuotas: (read) => ({
    formBytes: read.byteSize('FORM_FILES_QUOTA', '1GiB'),
    orgBytes: read.byteSize('ORG_FILES_QUOTA', '10GiB'),
  }),
  // The filesystem on PostgreSQL too: moving files into the database is an operator's choice (its size,
  // its backups), made with `npm run files:migrate`, never by an upgrade.
  fileStorage: (read) => oneOf(read, 'FILE_STORAGE', FILE_STORAGE_KINDS),
  webhookAllowPrivate: (read) => read.flag('WEBHOOK_ALLOW_PRIVATE'),
  registration: registrationOf,
  orgCreation: (read) => oneOf(read, 'ORG_CREATION', ORG_CREATION),
  logFormat,
} satisfies { [K in keyof Config]?: Setting<Config[K]> };

type Read<T> = { [K in keyof T]: T[K] extends Setting<infer V> ? V : never };

/** Reads every setting of a table, in its order. */
const readAll = <T extends Record<string, Setting<unknown>>>(table: T, read: EnvReader): Read<T> =>
  Object.fromEntries(Object.entries(table).map(([key, setting]) => [key, setting(read)])) as Read<T>;

/** Reads and validates every variable at once, so one start-up names every bad value. */
export function loadConfig(env: Env = process.env): Config {
  const read = new EnvReader(env);
  const mode = read.text('NODE_ENV') ?? 'development';
  const addresses = addressesOf(read);
  const dataDir = path.resolve(read.text('DATA_DIR') ?? './data');
  const logLevel = read.text('LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) read.refuse(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const jwtSecret = read.secret('JWT_SECRET', 32);
  if (jwtSecret === null && mode === 'production')
    read.refuse('JWT_SECRET is required when NODE_ENV=production');
  const piiKeys = piiKeysOf(read, mode);
  embeddedInProduction(read, mode, dataDir);
  const oidc = oidcOf(read);
  const timeouts = timeoutsOf(read);
  const settings = readAll(SETTINGS, read);

  if (read.problems.length > 0)
    throw new ConfigError(`Invalid configuration:\n- ${read.problems.join('\n- ')}`);
  const trustProxy = read.text('TRUST_PROXY') ?? 'false';
  return Object.freeze({
    env: mode,
    ...addresses,
    host: read.text('HOST') ?? '0.0.0.0',
    dataDir,
    logLevel,
    trustProxy: trustProxy === 'false' ? false : trustProxy === 'true' ? true : list(trustProxy),
    corsOrigins: list(read.text('CORS_ORIGINS') ?? addresses.appUrl).map((o) => o.replace(/\/+$/, '')),
    oidc,
    timeouts,
    ...settings,
    jwtSecret:
      jwtSecret ?? developmentSecret(dataDir, 'jwt-secret', () => randomBytes(48).toString('base64url')),
    piiKeyring: {
      current: piiKeys.current ?? developmentKey(dataDir),
      ...(piiKeys.previous ? { previous: piiKeys.previous } : {}),
    },
  });
}

const list = (text: string) => text.split(',').map((item) => item.trim());

/** PORT, and the URLs each defaulting to the one before: BASE_URL from PORT, APP_URL, FRONTEND_URL. */
function addressesOf(read: EnvReader) {
  const port = read.integer('PORT', 3000, 0, 65535);
  const baseUrl = read.url('BASE_URL', `http://localhost:${port}`);
  const appUrl = read.url('APP_URL', baseUrl);
  return { port, baseUrl, appUrl, frontendUrl: read.url('FRONTEND_URL', appUrl) };
}

/** PII_KEY, required in production, and during a rotation PII_KEY_PREVIOUS, which must differ. */
function piiKeysOf(read: EnvReader, mode: string) {
  const currentText = read.text('PII_KEY');
  if (currentText === undefined && mode === 'production')
    read.refuse('PII_KEY is required when NODE_ENV=production (32 bytes in base64: openssl rand -base64 32)');
  const key = (name: string, value: string | undefined) => {
    if (value === undefined) return undefined;
    try {
      return sealingKey(value, name);
    } catch (err) {
      if (!(err instanceof SealedValueError)) throw err;
      read.refuse(err.message);
      return undefined;
    }
  };
  const current = key('PII_KEY', currentText);
  const previous = key('PII_KEY_PREVIOUS', read.text('PII_KEY_PREVIOUS'));
  if (previous && currentText === undefined) read.refuse('PII_KEY_PREVIOUS is set without PII_KEY');
  if (previous && current && previous.id === current.id)
    read.refuse('PII_KEY_PREVIOUS must differ from PII_KEY');
  return { current, previous };
}

/** External sign-in: all four OIDC variables or none. */
function oidcOf(read: EnvReader): Config['oidc'] {
  const names = ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_REDIRECT_URI'] as const;
  const set = names.filter((name) => read.text(name) !== undefined);
  if (set.length > 0 && set.length < names.length) {
    read.refuse(`${names.filter((n) => !set.includes(n)).join(', ')} must be set with ${set.join(', ')}`);
  }
  // The issuer is kept exactly as given: discovery compares it with the provider's own, trailing slash included.
  const issuer = read.url('OIDC_ISSUER', undefined) && read.text('OIDC_ISSUER');
  if (issuer && !secureOrLoopback(new URL(issuer))) {
    read.refuse(`OIDC_ISSUER must be an https URL; http only on localhost (got "${issuer}")`);
  }
  // Providers compare redirect URIs exactly: kept as written too.
  const redirectUri = read.url('OIDC_REDIRECT_URI', undefined) && read.text('OIDC_REDIRECT_URI');
  if (set.length < names.length || !issuer || !redirectUri) return null;
  return {
    issuer,
    clientId: read.text('OIDC_CLIENT_ID') ?? '',
    clientSecret: read.text('OIDC_CLIENT_SECRET') ?? '',
    redirectUri,
  };
}

/** Limits on slow or idle clients. */
function timeoutsOf(read: EnvReader): Config['timeouts'] {
  // 50 s: a slow body is cut within a minute (checked every 2.5 s), while a 10 MiB field upload at
  // 1.7 Mbit/s still arrives; a buffering proxy in front takes slow uploads off the service altogether.
  const requestSeconds = read.limit('REQUEST_TIMEOUT', '50s', 3600);
  // Node ignores a request limit shorter than its headers limit (60 s unless set): never longer.
  const headersSeconds = read.limit('HEADERS_TIMEOUT', `${Math.min(10, requestSeconds)}s`, 3600);
  if (read.text('HEADERS_TIMEOUT') !== undefined && headersSeconds > requestSeconds) {
    read.refuse(
      `HEADERS_TIMEOUT must not be longer than REQUEST_TIMEOUT (got ${headersSeconds} s and ${requestSeconds} s)`,
    );
  }
  return {
    requestSeconds,
    headersSeconds,
    // Longer than the idle timeout of the proxy in front (60 s for most), so that the proxy closes first.
    keepAliveSeconds: read.limit('KEEP_ALIVE_TIMEOUT', '72s', 3600),
    connectionSeconds: read.limit('CONNECTION_TIMEOUT', '120s', 3600),
  };
}

/**
 * The embedded database in production only when asked for: it lives inside the one process, so no second
 * instance, no replica, no failover, and a consistent copy of it needs the service stopped.
 */
function embeddedInProduction(read: EnvReader, mode: string, dataDir: string): void {
  const allowed = read.flag('ALLOW_EMBEDDED_IN_PRODUCTION');
  if (mode !== 'production' || read.text('DATABASE_URL') !== undefined || allowed) return;
  read.refuse(
    `NODE_ENV=production needs DATABASE_URL: without it the service runs on its embedded database ` +
      `(PGlite in ${path.join(dataDir, 'pglite')}), which lives inside this one process: no second ` +
      'instance can share it, there is no replica or failover, and a consistent backup of it needs the ' +
      'service stopped. Set DATABASE_URL to a PostgreSQL database, or ALLOW_EMBEDDED_IN_PRODUCTION=true ' +
      'to run on the embedded one anyway',
  );
}

/**
 * Seconds a start waits for PostgreSQL (a container started before its database): at most an hour; `0`
 * tries once.
 */
function databaseWait(read: EnvReader): number {
  return read.text('DATABASE_WAIT') === '0' ? 0 : read.limit('DATABASE_WAIT', '60', 3600);
}

const LOG_FORMATS = ['json', 'pretty'] as const;

function logFormat(read: EnvReader): Config['logFormat'] {
  const format = read.text('LOG_FORMAT') ?? 'json';
  const known = LOG_FORMATS.find((name) => name === format);
  if (!known) read.refuse(`LOG_FORMAT must be json or pretty (got "${format}")`);
  return known ?? 'json';
}

/**
 * A production BASE_URL in plain http away from loopback: the session cookie goes without `Secure` and
 * tokens cross the network in clear. Started anyway (a proxy may add TLS in front), with this warning.
 */
export function plainHttpWarning(config: Pick<Config, 'env' | 'baseUrl'>): string | null {
  if (config.env !== 'production' || secureOrLoopback(new URL(config.baseUrl))) return null;
  return (
    `BASE_URL ${config.baseUrl} is plain http on an address other than loopback: session cookies are ` +
    'sent without Secure and tokens cross the network in clear; serve the API over https and set ' +
    'BASE_URL to its https URL'
  );
}

/** A replica only makes sense beside a PostgreSQL primary: the embedded database has none. */
function replicaUrl(read: EnvReader): string | null {
  const replica = read.connection('DATABASE_REPLICA_URL', POSTGRES);
  if (replica !== null && read.text('DATABASE_URL') === undefined)
    read.refuse('DATABASE_REPLICA_URL is set without DATABASE_URL');
  return replica;
}

/** Exports and the worker run the statements that read or purge in bulk: never a shorter limit than requests'. */
function databaseTimeouts(read: EnvReader): Config['databaseTimeouts'] {
  const statementMs = read.milliseconds('DATABASE_STATEMENT_TIMEOUT', '10s');
  const exportStatementMs = read.milliseconds('EXPORT_STATEMENT_TIMEOUT', '5min');
  if (exportStatementMs < statementMs)
    read.refuse(
      `EXPORT_STATEMENT_TIMEOUT must not be shorter than DATABASE_STATEMENT_TIMEOUT (got ${exportStatementMs} ms and ${statementMs} ms)`,
    );
  return { statementMs, lockMs: read.milliseconds('DATABASE_LOCK_TIMEOUT', '5s'), exportStatementMs };
}

/** One of `values`, written exactly; unset is the first. */
function oneOf<T extends string>(read: EnvReader, name: string, values: readonly [T, ...T[]]): T {
  const raw = read.text(name);
  if (raw === undefined) return values[0];
  if ((values as readonly string[]).includes(raw)) return raw as T;
  read.refuse(`${name} must be one of ${values.join(', ')} (got "${raw}")`);
  return values[0];
}

/**
 * A domain name as an email address ends: labels of letters, digits and inner dashes (IDNs in their
 * `xn--` form), at least two, lower-cased.
 */
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** REGISTRATION, and REGISTRATION_DOMAINS, required with `domains` and only there. */
function registrationOf(read: EnvReader): Config['registration'] {
  const mode = oneOf(read, 'REGISTRATION', REGISTRATION_MODES);
  const raw = read.text('REGISTRATION_DOMAINS');
  if (raw === undefined) {
    if (mode === 'domains')
      read.refuse('REGISTRATION_DOMAINS is required with REGISTRATION=domains (e.g. ngo.org,partner.org)');
    return { mode, domains: [] };
  }
  // A bad REGISTRATION is named already; else domains given to a mode that ignores them are a mistake.
  const given = read.text('REGISTRATION');
  if (mode !== 'domains' && (given === undefined || given === mode))
    read.refuse(`REGISTRATION_DOMAINS is set, but REGISTRATION is ${mode}, not domains`);
  const domains = list(raw).map((domain) => domain.toLowerCase());
  const bad = domains.filter((domain) => !DOMAIN.test(domain));
  if (bad.length > 0)
    read.refuse(
      `REGISTRATION_DOMAINS must be domain names separated by commas, such as ngo.org,partner.org (got ${bad
        .map((domain) => `"${domain}"`)
        .join(', ')})`,
    );
  return { mode, domains: [...new Set(domains)] };
}

/** At least 30 days: a short retention would let the daily purge empty the record of processing. */
function auditRetention(read: EnvReader): number {
  const known = read.problems.length;
  const seconds = read.duration('AUDIT_RETENTION', '730d');
  if (seconds >= 30 * DAY || read.problems.length > known) return seconds;
  read.refuse(`AUDIT_RETENTION must be at least 30 days (got "${read.text('AUDIT_RETENTION')}")`);
  return 30 * DAY;
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

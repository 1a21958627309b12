import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, plainHttpWarning } from './config.js';
import { sealingKey } from './lib/sealed-values.js';

const SECRET = 'a-configured-secret-of-at-least-32-chars';
const PII_KEY = Buffer.alloc(32, 1).toString('base64');
const OLD_PII_KEY = Buffer.alloc(32, 2).toString('base64');
const KEY_MESSAGE = 'PII_KEY must be 32 bytes written in base64 (e.g. openssl rand -base64 32)';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'mel-config-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

/** Loads with only the given variables set (and a throwaway DATA_DIR), as a bare environment would. */
const load = (env: Record<string, string> = {}) => loadConfig({ DATA_DIR: dataDir, ...env });

/** The ConfigError `env` raises; fails the test when nothing is thrown. */
function errorOf(env: Record<string, string>): ConfigError {
  try {
    load(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`no ConfigError for ${JSON.stringify(env)}`);
}

describe('defaults', () => {
  it('follows the configuration table when nothing is set', () => {
    const config = load({ JWT_SECRET: SECRET });
    expect(config).toEqual({
      env: 'development',
      port: 3000,
      host: '0.0.0.0',
      baseUrl: 'http://localhost:3000',
      appUrl: 'http://localhost:3000',
      frontendUrl: 'http://localhost:3000',
      databaseUrl: null,
      databaseReplicaUrl: null,
      databaseWaitSeconds: 60,
      replicaMaxLagSeconds: 5,
      databaseTimeouts: { statementMs: 10_000, lockMs: 5_000, exportStatementMs: 300_000 },
      metricsToken: null,
      dataDir,
      fileStorage: 'filesystem',
      jwtSecret: SECRET,
      piiKeyring: { current: { id: expect.stringMatching(/^[0-9a-f]{16}$/), secret: expect.any(Buffer) } },
      auditRetentionSeconds: 730 * 86_400,
      jwtExpirySeconds: 604_800,
      bcryptCost: 12,
      threadPoolSize: 4,
      resetTokenTtlSeconds: 3600,
      smtpUrl: null,
      mailFrom: expect.any(String),
      redisUrl: null,
      redisCommandTimeoutMs: 250,
      rateLimit: { max: 100, windowSeconds: 60, publicMax: 300, publicUploadMax: 30, authMax: 10 },
      fileQuotas: { formBytes: 2 ** 30, orgBytes: 10 * 2 ** 30 },
      trustProxy: false,
      corsOrigins: ['http://localhost:3000'],
      oidc: null,
      logLevel: 'info',
      logFormat: 'json',
      webhookAllowPrivate: false,
      registration: { mode: 'open', domains: [] },
      orgCreation: 'anyone',
      timeouts: { requestSeconds: 50, headersSeconds: 10, keepAliveSeconds: 72, connectionSeconds: 120 },
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads DATABASE_REPLICA_URL, REPLICA_MAX_LAG and METRICS_TOKEN', () => {
    const config = load({
      JWT_SECRET: SECRET,
      DATABASE_URL: 'postgres://db/mel',
      DATABASE_REPLICA_URL: 'postgres://replica/mel',
      REPLICA_MAX_LAG: '2s',
      METRICS_TOKEN: 'a-scrape-token-of-enough-length',
    });
    expect(config.databaseReplicaUrl).toBe('postgres://replica/mel');
    expect(config.replicaMaxLagSeconds).toBe(2);
    expect(config.metricsToken).toBe('a-scrape-token-of-enough-length');
    expect(() => load({ JWT_SECRET: SECRET, DATABASE_REPLICA_URL: 'postgres://replica/mel' })).toThrow(
      'DATABASE_REPLICA_URL is set without DATABASE_URL',
    );
    expect(() =>
      load({ JWT_SECRET: SECRET, DATABASE_URL: 'postgres://db/mel', DATABASE_REPLICA_URL: 'mysql://r/mel' }),
    ).toThrow('DATABASE_REPLICA_URL must be a postgres:// or postgresql:// URL');
    expect(() => load({ JWT_SECRET: SECRET, REPLICA_MAX_LAG: 'soon' })).toThrow(
      'REPLICA_MAX_LAG must be a duration',
    );
    expect(() => load({ JWT_SECRET: SECRET, METRICS_TOKEN: 'short' })).toThrow(
      'METRICS_TOKEN must be at least 16 characters',
    );
  });

  it('reads the database timeouts in ms, PostgreSQL units included, exports never shorter than requests', () => {
    const config = load({
      JWT_SECRET: SECRET,
      DATABASE_STATEMENT_TIMEOUT: '1s',
      DATABASE_LOCK_TIMEOUT: '500ms',
      EXPORT_STATEMENT_TIMEOUT: '2min',
    });
    expect(config.databaseTimeouts).toEqual({ statementMs: 1000, lockMs: 500, exportStatementMs: 120_000 });
    expect(load({ JWT_SECRET: SECRET, DATABASE_STATEMENT_TIMEOUT: '30' }).databaseTimeouts.statementMs).toBe(
      30_000,
    );
    expect(
      load({ JWT_SECRET: SECRET, EXPORT_STATEMENT_TIMEOUT: '1h' }).databaseTimeouts.exportStatementMs,
    ).toBe(3_600_000);
    expect(errorOf({ JWT_SECRET: SECRET, DATABASE_STATEMENT_TIMEOUT: '10min' }).message).toContain(
      'EXPORT_STATEMENT_TIMEOUT must not be shorter than DATABASE_STATEMENT_TIMEOUT (got 300000 ms and 600000 ms)',
    );
    expect(errorOf({ JWT_SECRET: SECRET, DATABASE_LOCK_TIMEOUT: '2d' }).message).toContain(
      'DATABASE_LOCK_TIMEOUT must be a duration from 1ms to 1d, such as 500ms, 10s or 5min (got "2d")',
    );
  });

  it('reads WEBHOOK_ALLOW_PRIVATE as true or false, and refuses anything else', () => {
    expect(load({ JWT_SECRET: SECRET, WEBHOOK_ALLOW_PRIVATE: 'true' }).webhookAllowPrivate).toBe(true);
    expect(load({ JWT_SECRET: SECRET, WEBHOOK_ALLOW_PRIVATE: 'false' }).webhookAllowPrivate).toBe(false);
    expect(() => load({ JWT_SECRET: SECRET, WEBHOOK_ALLOW_PRIVATE: 'yes' })).toThrow(
      'WEBHOOK_ALLOW_PRIVATE must be true or false (got "yes")',
    );
  });

  it('derives BASE_URL from PORT, and APP_URL, FRONTEND_URL and CORS_ORIGINS from the one before', () => {
    expect(load({ JWT_SECRET: SECRET, PORT: '8080' })).toMatchObject({
      port: 8080,
      baseUrl: 'http://localhost:8080',
      appUrl: 'http://localhost:8080',
      frontendUrl: 'http://localhost:8080',
      corsOrigins: ['http://localhost:8080'],
    });
    expect(load({ JWT_SECRET: SECRET, BASE_URL: 'https://api.example.org/' })).toMatchObject({
      baseUrl: 'https://api.example.org',
      appUrl: 'https://api.example.org',
      frontendUrl: 'https://api.example.org',
      corsOrigins: ['https://api.example.org'],
    });
    expect(
      load({ JWT_SECRET: SECRET, BASE_URL: 'https://api.example.org', APP_URL: 'https://app.example.org' }),
    ).toMatchObject({
      baseUrl: 'https://api.example.org',
      appUrl: 'https://app.example.org',
      frontendUrl: 'https://app.example.org',
      corsOrigins: ['https://app.example.org'],
    });
    expect(
      load({
        JWT_SECRET: SECRET,
        APP_URL: 'https://app.example.org',
        FRONTEND_URL: 'https://web.example.org',
        CORS_ORIGINS: 'https://a.example.org, https://b.example.org/',
      }),
    ).toMatchObject({
      appUrl: 'https://app.example.org',
      frontendUrl: 'https://web.example.org',
      corsOrigins: ['https://a.example.org', 'https://b.example.org'],
    });
  });

  it('reads every other variable', () => {
    const config = load({
      JWT_SECRET: SECRET,
      NODE_ENV: 'production',
      PII_KEY,
      PII_KEY_PREVIOUS: OLD_PII_KEY,
      AUDIT_RETENTION: '365d',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://mel:pw@db:5432/mel',
      SMTP_URL: 'smtp://mail:25',
      MAIL_FROM: 'MEL <mel@example.org>',
      REDIS_URL: 'redis://cache:6379',
      RATE_LIMIT_MAX: '50',
      RATE_LIMIT_WINDOW: '2m',
      PUBLIC_RATE_LIMIT_MAX: '500',
      PUBLIC_UPLOAD_RATE_LIMIT_MAX: '12',
      AUTH_RATE_LIMIT_MAX: '5',
      FORM_FILES_QUOTA: '500MiB',
      ORG_FILES_QUOTA: '2147483648',
      TRUST_PROXY: '10.0.0.1, 10.0.0.2',
      BCRYPT_COST: '10',
      UV_THREADPOOL_SIZE: '8',
      RESET_TOKEN_TTL: '30m',
      LOG_LEVEL: 'warn',
      REQUEST_TIMEOUT: '45s',
      HEADERS_TIMEOUT: '15',
      KEEP_ALIVE_TIMEOUT: '2m',
      CONNECTION_TIMEOUT: '5m',
      FILE_STORAGE: 'database',
    });
    expect(config).toMatchObject({
      env: 'production',
      host: '127.0.0.1',
      databaseUrl: 'postgres://mel:pw@db:5432/mel',
      smtpUrl: 'smtp://mail:25',
      mailFrom: 'MEL <mel@example.org>',
      redisUrl: 'redis://cache:6379',
      rateLimit: { max: 50, windowSeconds: 120, publicMax: 500, publicUploadMax: 12, authMax: 5 },
      fileQuotas: { formBytes: 500 * 2 ** 20, orgBytes: 2 ** 31 },
      fileStorage: 'database',
      trustProxy: ['10.0.0.1', '10.0.0.2'],
      bcryptCost: 10,
      threadPoolSize: 8,
      resetTokenTtlSeconds: 1800,
      logLevel: 'warn',
      jwtSecret: SECRET,
      piiKeyring: { current: sealingKey(PII_KEY), previous: sealingKey(OLD_PII_KEY) },
      auditRetentionSeconds: 365 * 86_400,
      timeouts: { requestSeconds: 45, headersSeconds: 15, keepAliveSeconds: 120, connectionSeconds: 300 },
    });
    expect(load({ JWT_SECRET: SECRET, TRUST_PROXY: 'true' }).trustProxy).toBe(true);
  });

  it('enables external sign-in only with all four OIDC variables', () => {
    const config = load({
      JWT_SECRET: SECRET,
      OIDC_ISSUER: 'https://id.example.org/',
      OIDC_CLIENT_ID: 'mel',
      OIDC_CLIENT_SECRET: 'shh',
      OIDC_REDIRECT_URI: 'https://api.example.org/auth/oidc/callback',
    });
    expect(config.oidc).toEqual({
      issuer: 'https://id.example.org/',
      clientId: 'mel',
      clientSecret: 'shh',
      redirectUri: 'https://api.example.org/auth/oidc/callback',
    });
    const error = errorOf({
      JWT_SECRET: SECRET,
      OIDC_ISSUER: 'https://id.example.org',
      OIDC_CLIENT_ID: 'mel',
    });
    expect(error.message).toContain('OIDC_CLIENT_SECRET');
    expect(error.message).toContain('OIDC_REDIRECT_URI');
  });

  it('requires an https issuer, except on localhost', () => {
    const oidc = (issuer: string) => ({
      JWT_SECRET: SECRET,
      OIDC_ISSUER: issuer,
      OIDC_CLIENT_ID: 'mel',
      OIDC_CLIENT_SECRET: 'shh',
      OIDC_REDIRECT_URI: 'https://api.example.org/auth/idp/callback',
    });
    expect(errorOf(oidc('http://id.example.org')).message).toContain(
      'OIDC_ISSUER must be an https URL; http only on localhost (got "http://id.example.org")',
    );
    expect(errorOf(oidc('not a url')).message).toContain('OIDC_ISSUER must be an http(s) URL');
    for (const local of ['http://127.0.0.1:8080', 'http://localhost:8080/realms/mel', 'http://[::1]:9000']) {
      expect(load(oidc(local)).oidc?.issuer).toBe(local);
    }
  });
});

describe('JWT_EXPIRY', () => {
  it.each([
    ['7d', 604_800],
    ['12h', 43_200],
    ['30m', 1800],
    ['90s', 90],
    ['3600', 3600],
  ])('reads %s as %i seconds', (value, seconds) => {
    expect(load({ JWT_SECRET: SECRET, JWT_EXPIRY: value }).jwtExpirySeconds).toBe(seconds);
  });
});

describe('timeouts', () => {
  it('keeps the headers limit within a shorter request limit unless HEADERS_TIMEOUT is set', () => {
    expect(load({ JWT_SECRET: SECRET, REQUEST_TIMEOUT: '5s' }).timeouts).toMatchObject({
      requestSeconds: 5,
      headersSeconds: 5,
    });
    expect(load({ JWT_SECRET: SECRET, REQUEST_TIMEOUT: '5s', HEADERS_TIMEOUT: '2s' }).timeouts).toMatchObject(
      {
        requestSeconds: 5,
        headersSeconds: 2,
      },
    );
  });

  it('refuses a headers limit longer than the request limit, which Node would not enforce', () => {
    expect(errorOf({ JWT_SECRET: SECRET, REQUEST_TIMEOUT: '20s', HEADERS_TIMEOUT: '1m' }).message).toContain(
      'HEADERS_TIMEOUT must not be longer than REQUEST_TIMEOUT (got 60 s and 20 s)',
    );
  });

  it('reads REDIS_COMMAND_TIMEOUT in milliseconds or seconds, up to 10 s', () => {
    expect(load({ JWT_SECRET: SECRET, REDIS_COMMAND_TIMEOUT: '100ms' }).redisCommandTimeoutMs).toBe(100);
    expect(load({ JWT_SECRET: SECRET, REDIS_COMMAND_TIMEOUT: '2s' }).redisCommandTimeoutMs).toBe(2000);
    // A bare number is seconds, as for every duration: 250 would be four minutes, refused.
    expect(errorOf({ JWT_SECRET: SECRET, REDIS_COMMAND_TIMEOUT: '250' }).message).toContain(
      'REDIS_COMMAND_TIMEOUT must be a duration from 1ms to 10s, such as 500ms, 10s or 5min (got "250")',
    );
  });

  it('refuses limits longer than an hour', () => {
    expect(errorOf({ JWT_SECRET: SECRET, KEEP_ALIVE_TIMEOUT: '2h' }).message).toContain(
      'KEEP_ALIVE_TIMEOUT must be at most 3600 seconds (got "2h")',
    );
  });
});

describe('bad values', () => {
  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['BCRYPT_COST', '2'],
    ['BCRYPT_COST', '12.5'],
    ['UV_THREADPOOL_SIZE', '0'],
    ['UV_THREADPOOL_SIZE', '1025'],
    ['UV_THREADPOOL_SIZE', 'many'],
    ['JWT_EXPIRY', 'soon'],
    ['JWT_EXPIRY', '0'],
    ['RESET_TOKEN_TTL', '1 week'],
    ['RATE_LIMIT_MAX', '0'],
    ['RATE_LIMIT_WINDOW', '-5s'],
    ['PUBLIC_RATE_LIMIT_MAX', 'many'],
    ['AUTH_RATE_LIMIT_MAX', '-1'],
    ['PUBLIC_UPLOAD_RATE_LIMIT_MAX', '0'],
    ['FORM_FILES_QUOTA', '1GB'],
    ['FORM_FILES_QUOTA', '0'],
    ['ORG_FILES_QUOTA', 'plenty'],
    ['DATABASE_URL', 'mysql://x'],
    ['SMTP_URL', 'http://mail'],
    ['REDIS_URL', 'memcached://x'],
    ['REDIS_COMMAND_TIMEOUT', '0ms'],
    ['REDIS_COMMAND_TIMEOUT', 'fast'],
    ['BASE_URL', 'ftp://x'],
    ['APP_URL', 'not a url'],
    ['FRONTEND_URL', 'javascript:alert(1)'],
    ['JWT_SECRET', 'too-short'],
    ['LOG_LEVEL', 'loud'],
    ['REQUEST_TIMEOUT', '0'],
    ['REQUEST_TIMEOUT', '2h'],
    ['HEADERS_TIMEOUT', 'soon'],
    ['KEEP_ALIVE_TIMEOUT', '-1s'],
    ['CONNECTION_TIMEOUT', '1.5m'],
    ['DATABASE_STATEMENT_TIMEOUT', '0'],
    ['DATABASE_LOCK_TIMEOUT', '1.5s'],
    ['EXPORT_STATEMENT_TIMEOUT', 'forever'],
    ['AUDIT_RETENTION', 'forever'],
    ['AUDIT_RETENTION', '0'],
    ['AUDIT_RETENTION', '-30d'],
    ['PII_KEY', 'secret'],
    ['PII_KEY_PREVIOUS', 'secret'],
  ])('%s=%s stops start-up with a message naming the variable', (name, value) => {
    const error = errorOf({ JWT_SECRET: SECRET, [name]: value });
    expect(error.message).toContain(name);
  });

  it('keeps UV_THREADPOOL_SIZE within what libuv takes', () => {
    expect(errorOf({ JWT_SECRET: SECRET, UV_THREADPOOL_SIZE: '0' }).message).toContain(
      'UV_THREADPOOL_SIZE must be a whole number from 1 to 1024 (got "0")',
    );
  });

  it('says what a size looks like', () => {
    expect(errorOf({ JWT_SECRET: SECRET, ORG_FILES_QUOTA: '10 GB' }).message).toContain(
      'ORG_FILES_QUOTA must be a size such as 1073741824, 500MiB or 10GiB (got "10 GB")',
    );
  });

  it('names every bad value in one error', () => {
    const error = errorOf({
      PORT: 'abc',
      BCRYPT_COST: '2',
      JWT_EXPIRY: 'soon',
      DATABASE_URL: 'mysql://x',
      BASE_URL: 'ftp://x',
    });
    for (const name of ['PORT', 'BCRYPT_COST', 'JWT_EXPIRY', 'DATABASE_URL', 'BASE_URL']) {
      expect(error.message).toContain(name);
    }
    expect(error.message).not.toContain('JWT_SECRET');
  });

  it('writes no generated secret when the configuration is refused', () => {
    errorOf({ PORT: 'abc' });
    expect(() => statSync(path.join(dataDir, 'jwt-secret'))).toThrow();
    expect(() => statSync(path.join(dataDir, 'pii-key'))).toThrow();
  });
});

describe('FILE_STORAGE', () => {
  it('keeps files on the filesystem unless told the database, on PostgreSQL too', () => {
    expect(load({ JWT_SECRET: SECRET }).fileStorage).toBe('filesystem');
    expect(load({ JWT_SECRET: SECRET, DATABASE_URL: 'postgres://mel:pw@db:5432/mel' }).fileStorage).toBe(
      'filesystem',
    );
    expect(load({ JWT_SECRET: SECRET, FILE_STORAGE: 'database' }).fileStorage).toBe('database');
    expect(load({ JWT_SECRET: SECRET, FILE_STORAGE: 'filesystem' }).fileStorage).toBe('filesystem');
  });

  it('refuses any other value, naming the variable', () => {
    expect(errorOf({ JWT_SECRET: SECRET, FILE_STORAGE: 's3' }).message).toBe(
      'Invalid configuration:\n- FILE_STORAGE must be one of filesystem, database (got "s3")',
    );
  });
});

describe('REGISTRATION, REGISTRATION_DOMAINS and ORG_CREATION', () => {
  it('read each mode, domains trimmed, lower-cased and listed once', () => {
    expect(load({ JWT_SECRET: SECRET, REGISTRATION: 'invite' }).registration).toEqual({
      mode: 'invite',
      domains: [],
    });
    expect(
      load({
        JWT_SECRET: SECRET,
        REGISTRATION: 'domains',
        REGISTRATION_DOMAINS: ' NGO.org, partner.org ,ngo.org,xn--bcher-kva.example',
      }).registration,
    ).toEqual({ mode: 'domains', domains: ['ngo.org', 'partner.org', 'xn--bcher-kva.example'] });
    expect(load({ JWT_SECRET: SECRET, REGISTRATION: 'open' }).registration.mode).toBe('open');
    expect(load({ JWT_SECRET: SECRET, ORG_CREATION: 'admins' }).orgCreation).toBe('admins');
    expect(load({ JWT_SECRET: SECRET, ORG_CREATION: 'anyone' }).orgCreation).toBe('anyone');
  });

  it('refuse other modes, written exactly', () => {
    expect(errorOf({ JWT_SECRET: SECRET, REGISTRATION: 'closed' }).message).toBe(
      'Invalid configuration:\n- REGISTRATION must be one of open, invite, domains (got "closed")',
    );
    expect(errorOf({ JWT_SECRET: SECRET, REGISTRATION: 'Invite' }).message).toContain(
      'REGISTRATION must be one of open, invite, domains (got "Invite")',
    );
    expect(errorOf({ JWT_SECRET: SECRET, ORG_CREATION: 'nobody' }).message).toBe(
      'Invalid configuration:\n- ORG_CREATION must be one of anyone, admins (got "nobody")',
    );
  });

  it('require domains with REGISTRATION=domains, and only there', () => {
    expect(errorOf({ JWT_SECRET: SECRET, REGISTRATION: 'domains' }).message).toBe(
      'Invalid configuration:\n- REGISTRATION_DOMAINS is required with REGISTRATION=domains (e.g. ngo.org,partner.org)',
    );
    expect(errorOf({ JWT_SECRET: SECRET, REGISTRATION_DOMAINS: 'ngo.org' }).message).toBe(
      'Invalid configuration:\n- REGISTRATION_DOMAINS is set, but REGISTRATION is open, not domains',
    );
    expect(
      errorOf({ JWT_SECRET: SECRET, REGISTRATION: 'invite', REGISTRATION_DOMAINS: 'ngo.org' }).message,
    ).toBe('Invalid configuration:\n- REGISTRATION_DOMAINS is set, but REGISTRATION is invite, not domains');
    // A bad mode is named once, not again as a mode that ignores the domains.
    expect(
      errorOf({ JWT_SECRET: SECRET, REGISTRATION: 'domain', REGISTRATION_DOMAINS: 'ngo.org' }).message,
    ).toBe('Invalid configuration:\n- REGISTRATION must be one of open, invite, domains (got "domain")');
  });

  it('refuse what is no domain name, naming each', () => {
    const error = errorOf({
      JWT_SECRET: SECRET,
      REGISTRATION: 'domains',
      REGISTRATION_DOMAINS: 'ngo.org,@partner.org,localhost,,*.ngo.org,ngo.org.,-ngo.org,ngo_org.com',
    });
    expect(error.message).toBe(
      'Invalid configuration:\n- REGISTRATION_DOMAINS must be domain names separated by commas, such as ' +
        'ngo.org,partner.org (got "@partner.org", "localhost", "", "*.ngo.org", "ngo.org.", "-ngo.org", "ngo_org.com")',
    );
  });
});

describe('JWT_SECRET', () => {
  it('is required in production', () => {
    const error = errorOf({ NODE_ENV: 'production' });
    expect(error.message).toContain('JWT_SECRET');
    expect(() => statSync(path.join(dataDir, 'jwt-secret'))).toThrow();
  });

  it('is generated into DATA_DIR/jwt-secret outside production and reused by the next start', () => {
    const nested = path.join(dataDir, 'not', 'yet', 'there');
    const first = loadConfig({ DATA_DIR: nested, NODE_ENV: 'development' });
    expect(first.jwtSecret.length).toBeGreaterThanOrEqual(32);
    const file = path.join(nested, 'jwt-secret');
    expect(readFileSync(file, 'utf8').trim()).toBe(first.jwtSecret);
    expect(statSync(file).mode & 0o077).toBe(0);

    const second = loadConfig({ DATA_DIR: nested, NODE_ENV: 'test' });
    expect(second.jwtSecret).toBe(first.jwtSecret);

    const elsewhere = load();
    expect(elsewhere.jwtSecret).not.toBe(first.jwtSecret);
  });

  it('prefers a configured secret over the generated one', () => {
    load();
    expect(load({ JWT_SECRET: SECRET }).jwtSecret).toBe(SECRET);
  });
});

describe('PII_KEY', () => {
  it.each([
    ['not base64', 'not a key at all!'],
    ['16 bytes', Buffer.alloc(16, 1).toString('base64')],
    ['33 bytes', Buffer.alloc(33, 1).toString('base64')],
    ['base64url', Buffer.alloc(32, 0xfb).toString('base64url')],
    ['hex', Buffer.alloc(32, 1).toString('hex')],
  ])('refuses a key that is %s, saying what a key is', (_, value) => {
    expect(errorOf({ PII_KEY: value }).message).toContain(KEY_MESSAGE);
    expect(errorOf({ PII_KEY, PII_KEY_PREVIOUS: value }).message).toContain(
      'PII_KEY_PREVIOUS must be 32 bytes written in base64 (e.g. openssl rand -base64 32)',
    );
  });

  it('takes 32 bytes of base64 as the current key, and PII_KEY_PREVIOUS as the one before', () => {
    expect(load({ PII_KEY }).piiKeyring).toEqual({ current: sealingKey(PII_KEY) });
    const rotating = load({ PII_KEY, PII_KEY_PREVIOUS: OLD_PII_KEY }).piiKeyring;
    expect(rotating.current.id).toBe(sealingKey(PII_KEY).id);
    expect(rotating.previous?.id).toBe(sealingKey(OLD_PII_KEY).id);
    expect(rotating.current.id).not.toBe(rotating.previous?.id);
  });

  it('is required in production, and then nothing is generated', () => {
    const error = errorOf({ NODE_ENV: 'production', JWT_SECRET: SECRET });
    expect(error.message).toContain(
      'PII_KEY is required when NODE_ENV=production (32 bytes in base64: openssl rand -base64 32)',
    );
    expect(() => statSync(path.join(dataDir, 'pii-key'))).toThrow();
    const production = {
      NODE_ENV: 'production',
      JWT_SECRET: SECRET,
      PII_KEY,
      DATABASE_URL: 'postgres://db/mel',
    };
    expect(load(production).piiKeyring.current.id).toBe(sealingKey(PII_KEY).id);
  });

  it('refuses PII_KEY_PREVIOUS without PII_KEY, in production and outside it', () => {
    expect(errorOf({ PII_KEY_PREVIOUS: OLD_PII_KEY }).message).toContain(
      'PII_KEY_PREVIOUS is set without PII_KEY',
    );
    const production = errorOf({ NODE_ENV: 'production', JWT_SECRET: SECRET, PII_KEY_PREVIOUS: OLD_PII_KEY });
    expect(production.message).toContain('PII_KEY is required when NODE_ENV=production');
    expect(production.message).toContain('PII_KEY_PREVIOUS is set without PII_KEY');
    expect(() => statSync(path.join(dataDir, 'pii-key'))).toThrow();
  });

  it('refuses the same key as PII_KEY and PII_KEY_PREVIOUS, however it is spaced', () => {
    expect(errorOf({ PII_KEY, PII_KEY_PREVIOUS: PII_KEY }).message).toContain(
      'PII_KEY_PREVIOUS must differ from PII_KEY',
    );
    expect(errorOf({ PII_KEY, PII_KEY_PREVIOUS: ` ${PII_KEY}\n` }).message).toContain(
      'PII_KEY_PREVIOUS must differ from PII_KEY',
    );
  });

  it('is generated into DATA_DIR/pii-key outside production (mode 0600) and reused by the next start', () => {
    const nested = path.join(dataDir, 'not', 'yet', 'there');
    const first = loadConfig({ DATA_DIR: nested, NODE_ENV: 'development' });
    const file = path.join(nested, 'pii-key');
    const written = readFileSync(file, 'utf8').trim();
    expect(Buffer.from(written, 'base64')).toHaveLength(32);
    expect(first.piiKeyring).toEqual({ current: sealingKey(written) });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Not the JWT secret: two secrets, two files.
    expect(written).not.toBe(first.jwtSecret);

    const second = loadConfig({ DATA_DIR: nested, NODE_ENV: 'test' });
    expect(second.piiKeyring.current.id).toBe(first.piiKeyring.current.id);
    expect(readFileSync(file, 'utf8').trim()).toBe(written);

    expect(load().piiKeyring.current.id).not.toBe(first.piiKeyring.current.id);
  });

  // A damaged key file (empty after a crash between create and write, or edited) is a configuration
  // error naming the file, printed without a stack (it was a SealedValueError naming PII_KEY).
  it('refuses a damaged DATA_DIR/pii-key with a configuration error naming the file', () => {
    writeFileSync(path.join(dataDir, 'pii-key'), '');
    const error = errorOf({});
    expect(error.message).toContain('pii-key');
  });

  it('prefers a configured key, and then writes no key file', () => {
    expect(load({ PII_KEY }).piiKeyring.current.id).toBe(sealingKey(PII_KEY).id);
    expect(() => statSync(path.join(dataDir, 'pii-key'))).toThrow();
    const generated = load().piiKeyring.current.id;
    expect(load({ PII_KEY }).piiKeyring.current.id).not.toBe(generated);
  });
});

describe('AUDIT_RETENTION', () => {
  it.each([
    [undefined, 730 * 86_400],
    ['365d', 365 * 86_400],
    ['30d', 30 * 86_400],
    ['720h', 30 * 86_400],
    ['2592000', 2_592_000],
  ])('reads %s as %i seconds', (value, seconds) => {
    expect(load(value === undefined ? {} : { AUDIT_RETENTION: value }).auditRetentionSeconds).toBe(seconds);
  });

  it.each(['29d', '48h', '3600'])(
    'refuses %s: less than 30 days would let the purge empty the log',
    (value) => {
      expect(errorOf({ AUDIT_RETENTION: value }).message).toContain(
        `AUDIT_RETENTION must be at least 30 days (got "${value}")`,
      );
    },
  );

  it('names the variable and the value it refuses', () => {
    expect(errorOf({ AUDIT_RETENTION: '2 years' }).message).toContain(
      'AUDIT_RETENTION must be a duration such as 3600, 30m, 12h or 7d (got "2 years")',
    );
  });
});

describe('DATABASE_WAIT', () => {
  it('is 60 s unless set; a duration up to an hour, or 0 for one attempt', () => {
    expect(load().databaseWaitSeconds).toBe(60);
    expect(load({ DATABASE_WAIT: '5' }).databaseWaitSeconds).toBe(5);
    expect(load({ DATABASE_WAIT: '2m' }).databaseWaitSeconds).toBe(120);
    expect(load({ DATABASE_WAIT: '0' }).databaseWaitSeconds).toBe(0);
  });

  it('refuses what is no duration, and more than an hour', () => {
    expect(errorOf({ DATABASE_WAIT: 'soon' }).message).toBe(
      'Invalid configuration:\n- DATABASE_WAIT must be a duration such as 3600, 30m, 12h or 7d (got "soon")',
    );
    expect(errorOf({ DATABASE_WAIT: '2h' }).message).toBe(
      'Invalid configuration:\n- DATABASE_WAIT must be at most 3600 seconds (got "2h")',
    );
  });
});

describe('LOG_FORMAT', () => {
  it('is json unless set to pretty', () => {
    expect(load().logFormat).toBe('json');
    expect(load({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(load({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
  });

  it('refuses any other format', () => {
    expect(errorOf({ LOG_FORMAT: 'text' }).message).toBe(
      'Invalid configuration:\n- LOG_FORMAT must be json or pretty (got "text")',
    );
  });
});

describe('the embedded database in production', () => {
  const production = { NODE_ENV: 'production', JWT_SECRET: SECRET, PII_KEY };

  it('is refused, naming it and saying why, unless ALLOW_EMBEDDED_IN_PRODUCTION=true', () => {
    expect(errorOf(production).message).toBe(
      'Invalid configuration:\n- NODE_ENV=production needs DATABASE_URL: without it the service runs on ' +
        `its embedded database (PGlite in ${path.join(dataDir, 'pglite')}), which lives inside this one ` +
        'process: no second instance can share it, there is no replica or failover, and a consistent ' +
        'backup of it needs the service stopped. Set DATABASE_URL to a PostgreSQL database, or ' +
        'ALLOW_EMBEDDED_IN_PRODUCTION=true to run on the embedded one anyway',
    );
    expect(load({ ...production, ALLOW_EMBEDDED_IN_PRODUCTION: 'true' }).databaseUrl).toBeNull();
    expect(load({ ...production, DATABASE_URL: 'postgres://db/mel' }).databaseUrl).toBe('postgres://db/mel');
  });

  it('is nothing to allow outside production', () => {
    expect(load({ NODE_ENV: 'development' }).databaseUrl).toBeNull();
    expect(load({ NODE_ENV: 'test', ALLOW_EMBEDDED_IN_PRODUCTION: 'false' }).databaseUrl).toBeNull();
  });

  it('takes ALLOW_EMBEDDED_IN_PRODUCTION as true or false only', () => {
    expect(errorOf({ ALLOW_EMBEDDED_IN_PRODUCTION: 'yes' }).message).toBe(
      'Invalid configuration:\n- ALLOW_EMBEDDED_IN_PRODUCTION must be true or false (got "yes")',
    );
  });
});

describe('an http BASE_URL in production', () => {
  const warningFor = (env: string, baseUrl: string) => plainHttpWarning({ env, baseUrl });

  it('is warned about away from loopback', () => {
    expect(warningFor('production', 'http://mel.example.org')).toBe(
      'BASE_URL http://mel.example.org is plain http on an address other than loopback: session cookies ' +
        'are sent without Secure and tokens cross the network in clear; serve the API over https and set ' +
        'BASE_URL to its https URL',
    );
    expect(warningFor('production', 'http://10.0.0.5:3000')).toContain(
      'BASE_URL http://10.0.0.5:3000 is plain http',
    );
  });

  it('is not on loopback, over https, or outside production', () => {
    for (const baseUrl of [
      'http://localhost:3000',
      'http://127.0.0.1',
      'http://[::1]:8080',
      'https://mel.example.org',
    ]) {
      expect(warningFor('production', baseUrl)).toBeNull();
    }
    expect(warningFor('development', 'http://mel.example.org')).toBeNull();
  });
});

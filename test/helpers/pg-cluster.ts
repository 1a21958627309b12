import { execFile, execFileSync } from 'node:child_process';
import {
  appendFileSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * Private PostgreSQL clusters for tests that stop a server or need a streaming replica: the machine's own
 * cluster cannot be stopped under other tests, and its pg_hba allows no replication. Each cluster lives in
 * a temporary directory with its Unix socket inside, and listens on 127.0.0.1 on a free port.
 */
export interface PgCluster {
  readonly port: number;
  readonly dataDir: string;
  /** postgres://postgres@127.0.0.1:<port>/<database> (database defaults to 'postgres') */
  url(database?: string): string;
  /** pg_ctl stop -m fast (resolves when stopped) */
  stop(): Promise<void>;
  /** pg_ctl start -w (resolves when it accepts connections) */
  start(): Promise<void>;
  /** stop if running, remove the data directory */
  destroy(): Promise<void>;
}

const REQUIRED = ['initdb', 'pg_ctl', 'pg_basebackup', 'postgres'];

/** Directory of the PostgreSQL server binaries, or null when absent. */
export function postgresBinaries(): string | null {
  const fromEnv = process.env.PG_BIN;
  const candidates = fromEnv ? [fromEnv] : debianBinaryDirs();
  return candidates.find((dir) => REQUIRED.every((bin) => existsSync(path.join(dir, bin)))) ?? null;
}

/** Debian and Ubuntu keep one directory per major version; the newest wins. */
function debianBinaryDirs(): string[] {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((version) => /^\d+$/.test(version))
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => path.join(root, version, 'bin'));
}

/** For `describe`: a reason to skip (no binaries) or null. Under CI=true missing binaries must THROW instead of skipping. */
export function clustersUnavailable(): string | null {
  let reason: string | null = null;
  if (!postgresBinaries()) reason = 'PostgreSQL server binaries not found (set PG_BIN or install postgresql)';
  else if (isRoot() && !postgresUser())
    reason = 'running as root and there is no `postgres` user to run the server';
  if (reason && process.env.CI === 'true')
    throw new Error(`private PostgreSQL clusters are required under CI: ${reason}`);
  return reason;
}

const isRoot = (): boolean => process.getuid?.() === 0;

/** PostgreSQL refuses to run as root, so under root every binary runs as this user. */
function postgresUser(): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    return null;
  }
}

function command(bin: string, args: string[]): [string, string[]] {
  const binary = path.join(binaries(), bin);
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', binary, ...args]] : [binary, args];
}

function binaries(): string {
  const dir = postgresBinaries();
  if (!dir) throw new Error('PostgreSQL server binaries not found');
  return dir;
}

const execFileAsync = promisify(execFile);

async function run(bin: string, args: string[], cwd: string): Promise<void> {
  const [file, argv] = command(bin, args);
  try {
    // cwd inside the cluster's directory: the postgres user may not be allowed into the caller's.
    await execFileAsync(file, argv, { cwd, timeout: 60_000 });
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${bin} ${args.join(' ')} failed: ${stderr || stdout || String(error)}`, {
      cause: error,
    });
  }
}

/** A temporary directory the server's user owns (under root, chowned to postgres). */
function ownedTempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'mel-pg-'));
  if (isRoot()) {
    const user = postgresUser();
    if (!user) throw new Error('running as root and there is no `postgres` user');
    chownSync(dir, user.uid, user.gid);
  }
  return dir;
}

/** A port nobody listens on right now (the server takes it a moment later; a clash is retried). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

/**
 * Settings appended last, so they win over what initdb or pg_basebackup wrote. Speed over durability:
 * the data is thrown away, and fsync off makes initdb and checkpoints near instant.
 */
function ownSettings(port: number, dataDir: string): string {
  return [
    '',
    `port = ${port}`,
    `listen_addresses = '127.0.0.1'`,
    `unix_socket_directories = '${dataDir}'`,
    'wal_level = replica',
    'max_wal_senders = 5',
    'hot_standby = on',
    'shared_buffers = 16MB',
    'max_connections = 50',
    'fsync = off',
    'synchronous_commit = off',
    'full_page_writes = off',
    '',
  ].join('\n');
}

const HBA = [
  'local all all trust',
  'host all all 127.0.0.1/32 trust',
  'host replication all 127.0.0.1/32 trust',
  'local replication all trust',
  '',
].join('\n');

/** Running clusters, stopped at exit if a test file dies before its afterAll: no stray servers. */
const running = new Set<Cluster>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const cluster of running) {
      try {
        const [file, argv] = command('pg_ctl', ['stop', '-D', cluster.dataDir, '-m', 'immediate', '-w']);
        execFileSync(file, argv, { cwd: cluster.baseDir, stdio: 'ignore', timeout: 10_000 });
      } catch {
        // Already stopped; nothing else can be done in an exit handler.
      }
      rmSync(cluster.baseDir, { recursive: true, force: true });
    }
  });
}

class Cluster implements PgCluster {
  private up = false;

  constructor(
    readonly baseDir: string,
    readonly dataDir: string,
    readonly port: number,
  ) {}

  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    if (this.up) return;
    await run(
      'pg_ctl',
      ['start', '-D', this.dataDir, '-l', path.join(this.baseDir, 'server.log'), '-w', '-t', '60'],
      this.baseDir,
    );
    this.up = true;
    running.add(this);
    installExitHook();
  }

  async stop(): Promise<void> {
    if (!this.up) return;
    await run('pg_ctl', ['stop', '-D', this.dataDir, '-m', 'fast', '-w', '-t', '60'], this.baseDir);
    this.up = false;
    running.delete(this);
  }

  async destroy(): Promise<void> {
    try {
      await this.stop();
    } finally {
      running.delete(this);
      rmSync(this.baseDir, { recursive: true, force: true });
    }
  }
}

/**
 * Starts a cluster prepared by `prepare` (which fills `dataDir`) on a free port. A port taken between
 * choosing and binding fails the start; a new port is tried.
 */
async function startCluster(
  prepare: (dataDir: string, baseDir: string) => Promise<void>,
): Promise<PgCluster> {
  const baseDir = ownedTempDir();
  const dataDir = path.join(baseDir, 'data');
  try {
    await prepare(dataDir, baseDir);
    for (let attempt = 1; ; attempt += 1) {
      const port = await freePort();
      appendFileSync(path.join(dataDir, 'postgresql.conf'), ownSettings(port, dataDir));
      const cluster = new Cluster(baseDir, dataDir, port);
      try {
        await cluster.start();
        return cluster;
      } catch (error) {
        if (attempt >= 3) throw error;
      }
    }
  } catch (error) {
    rmSync(baseDir, { recursive: true, force: true });
    throw error;
  }
}

/** A fresh primary on a free port. */
export function startPrimary(): Promise<PgCluster> {
  return startCluster(async (dataDir, baseDir) => {
    await run(
      'initdb',
      [
        '-D',
        dataDir,
        '-U',
        'postgres',
        '--auth=trust',
        '--no-sync',
        '--no-instructions',
        '-E',
        'UTF8',
        '--locale=C',
      ],
      baseDir,
    );
    // Written as root the file keeps its owner: it already exists.
    writeFileSync(path.join(dataDir, 'pg_hba.conf'), HBA);
  });
}

/** A streaming standby of `primary` from pg_basebackup -R (hot_standby on), on a free port, started. */
export function startReplica(primary: PgCluster): Promise<PgCluster> {
  return startCluster(async (dataDir, baseDir) => {
    await run(
      'pg_basebackup',
      [
        '-h',
        '127.0.0.1',
        '-p',
        String(primary.port),
        '-U',
        'postgres',
        '-D',
        dataDir,
        '-R',
        '-X',
        'stream',
        '-c',
        'fast',
        '--no-sync',
      ],
      baseDir,
    );
  });
}

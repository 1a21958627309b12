import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';

/**
 * A private redis-server for tests that stop, hang or kill it: the machine's own Redis serves every other
 * test. It keeps nothing on disk and listens on 127.0.0.1 on a free port, the same one after a restart.
 */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** SIGSTOP: the process keeps its connections and answers nothing (a hung server). */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** SIGKILL; resolves when the process is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port (after kill), empty. */
  start(): Promise<void>;
  /** Resumes and kills it, whatever state it is in. */
  destroy(): Promise<void>;
}

/** For `describe`: a reason to skip (no redis-server) or null; under CI=true a missing binary throws. */
export function redisServerUnavailable(): string | null {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return null;
  } catch {
    const reason = 'redis-server not found (install redis-server)';
    if (process.env.CI === 'true') throw new Error(`a private Redis is required under CI: ${reason}`);
    return reason;
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts connections on the port (within 10 s). */
async function accepting(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not listen on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--loglevel',
        'warning',
      ],
      { stdio: 'ignore' },
    );
    await accepting(port);
  };
  const running = () => child?.pid !== undefined && child.exitCode === null && child.signalCode === null;
  const signal = (name: NodeJS.Signals) => {
    if (running()) process.kill(child!.pid!, name);
  };
  const kill = async () => {
    if (!running()) return;
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    signal('SIGKILL');
    await exited;
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    pause: () => signal('SIGSTOP'),
    resume: () => signal('SIGCONT'),
    kill,
    start,
    async destroy() {
      signal('SIGCONT');
      await kill();
    },
  };
}

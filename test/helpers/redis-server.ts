/**
 * A real `redis-server` on a free loopback port, without persistence, for tests that need
 * Redis (shared rate-limit buckets, outages). CI installs the Debian package
 * (`apt-get install -y redis-server`); when the binary is missing the test fails with that
 * advice rather than skipping.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** Stops the server (an outage, SIGKILL); the port stays reserved for `restart()`. Idempotent. */
  stop(): Promise<void>;
  /** Starts the server again on the same port (stopping it first if running); data is gone unless `persistent`. */
  restart(): Promise<void>;
  /** Freezes the process (SIGSTOP): connections stay open but nothing answers, like a hung Redis. */
  pause(): void;
  /** Lets a paused server run again (SIGCONT). */
  resume(): void;
}

const READY_TIMEOUT_MS = 5000;

export interface RedisServerOptions {
  /**
   * Keep the data across `stop()` and `restart()` (an append-only file, written through on
   * every command, in a folder of its own that `stop()` leaves for `restart()`): an outage,
   * not a loss. Default false: a restart starts empty.
   */
  readonly persistent?: boolean;
}

/**
 * Starts `redis-server` and resolves once it answers PING.
 *
 * @example
 * const redis = await startRedisServer();
 * after(() => redis.stop());
 */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const found = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
  if (found.error !== undefined || found.status !== 0) {
    throw new Error(
      'redis-server is not installed: these tests need a real Redis. Install it with ' +
        '`apt-get update && apt-get install -y redis-server` (CI does the same).',
    );
  }
  const port = await freePort();
  let child: ChildProcess | undefined;
  const dir = options.persistent ? mkdtempSync(path.join(tmpdir(), 'redis-aof-')) : undefined;
  const storage = dir
    ? ['--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always']
    : ['--appendonly', 'no'];

  const start = async () => {
    const output: string[] = [];
    const proc = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...storage],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    proc.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    proc.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child = proc;
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(await answersPing(port))) {
      if (proc.exitCode !== null || Date.now() > deadline) {
        proc.kill('SIGKILL');
        throw new Error(`redis-server on port ${port} did not start:\n${output.join('')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  const stop = async () => {
    const proc = child;
    child = undefined;
    if (proc === undefined || proc.exitCode !== null) return;
    const exited = once(proc, 'exit');
    proc.kill('SIGKILL');
    await exited;
  };

  // Never leave a server (or its files) behind, even when a test crashes before its `after` hook.
  process.once('exit', () => {
    child?.kill('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    async restart() {
      await stop();
      await start();
    },
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
  };
}

/** A port nobody listens on now (listen on 0, read it, close). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

/** True when something on the port answers a RESP PING with +PONG. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    let reply = '';
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => finish(false));
    socket.on('error', () => finish(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
  });
}

/**
 * A real `redis-server` on a free loopback port, without persistence, for tests that need
 * Redis (shared rate-limit buckets, outages), optionally with a password and TLS only (a
 * throwaway CA and server certificate made with `openssl`). CI installs the Debian packages
 * (`apt-get install -y redis-server openssl`); when the binary is missing the test fails with
 * that advice rather than skipping.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';

export interface RedisServer {
  readonly port: number;
  /**
   * `redis://127.0.0.1:<port>`; with `tls`, `rediss://`; with `password`,
   * `redis[s]://:<password>@127.0.0.1:<port>`.
   */
  readonly url: string;
  /** With `tls`: the PEM file of the CA that signed the server's certificate (MCP_REDIS_TLS_CA). */
  readonly caFile?: string;
  /**
   * Stops the server (an outage: SIGKILL, or SIGTERM for Redis's own graceful shutdown); the
   * port stays reserved for `restart()`. Idempotent.
   */
  stop(signal?: 'SIGKILL' | 'SIGTERM'): Promise<void>;
  /**
   * Starts the server again on the same port (stopping it first if running, with `signal`);
   * data is gone unless `persistent`.
   */
  restart(signal?: 'SIGKILL' | 'SIGTERM'): Promise<void>;
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
  /** Require this password (`--requirepass`): commands without AUTH get NOAUTH. */
  readonly password?: string;
  /**
   * Serve TLS only (`--port 0 --tls-port`), with a server certificate for 127.0.0.1 signed by
   * a throwaway CA (`caFile`); clients need no certificate of their own.
   */
  readonly tls?: boolean;
}

export interface TestCertificates {
  /** The CA's certificate (PEM): what a client trusts. */
  readonly caFile: string;
  /** The server's certificate for 127.0.0.1, signed by that CA, and its key. */
  readonly certFile: string;
  readonly keyFile: string;
}

/**
 * A throwaway CA and a server certificate it signed for 127.0.0.1 (IP SAN), valid two days,
 * made with `openssl` in a new temporary folder (removed when the process exits). Each call
 * makes a new CA: one that did not sign a given server stands in for a wrong CA.
 *
 * @example
 * const { caFile, certFile, keyFile } = makeTestCertificates();
 */
export function makeTestCertificates(): TestCertificates {
  const found = spawnSync('openssl', ['version'], { stdio: 'ignore' });
  if (found.error !== undefined || found.status !== 0) {
    throw new Error(
      'openssl is not installed: install it with `apt-get install -y openssl` (CI does the same).',
    );
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'redis-tls-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string) => path.join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2'];
  const run = (args: string[]) => {
    const result = spawnSync('openssl', args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`openssl ${args[0]} failed: ${result.stderr}`);
  };
  run([
    'req',
    '-x509',
    ...ec,
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
    '-subj',
    '/CN=mcp-toolkit test CA',
  ]);
  run([
    'req',
    '-x509',
    ...ec,
    '-keyout',
    file('server.key'),
    '-out',
    file('server.pem'),
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
    '-addext',
    'basicConstraints=critical,CA:FALSE',
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
  ]);
  return { caFile: file('ca.pem'), certFile: file('server.pem'), keyFile: file('server.key') };
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
  const certificates = options.tls ? makeTestCertificates() : undefined;
  const listen = certificates
    ? [
        '--port',
        '0',
        '--tls-port',
        String(port),
        '--tls-cert-file',
        certificates.certFile,
        '--tls-key-file',
        certificates.keyFile,
        '--tls-ca-cert-file',
        certificates.caFile,
        '--tls-auth-clients',
        'no',
      ]
    : ['--port', String(port)];
  const auth = options.password === undefined ? [] : ['--requirepass', options.password];
  const probe: PingOptions = {
    port,
    ...(options.password === undefined ? {} : { password: options.password }),
    ...(certificates ? { ca: readFileSync(certificates.caFile, 'utf8') } : {}),
  };

  const start = async () => {
    const output: string[] = [];
    const proc = spawn(
      'redis-server',
      [...listen, '--bind', '127.0.0.1', '--save', '', ...storage, ...auth],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    proc.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    proc.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child = proc;
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(await answersPing(probe))) {
      if (proc.exitCode !== null || Date.now() > deadline) {
        proc.kill('SIGKILL');
        throw new Error(`redis-server on port ${port} did not start:\n${output.join('')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  const stop = async (signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL') => {
    const proc = child;
    child = undefined;
    if (proc === undefined || proc.exitCode !== null) return;
    const exited = once(proc, 'exit');
    proc.kill(signal);
    // A graceful shutdown that does not end (a frozen server) ends the hard way.
    const timer = signal === 'SIGTERM' ? setTimeout(() => proc.kill('SIGKILL'), READY_TIMEOUT_MS) : undefined;
    await exited;
    clearTimeout(timer);
  };

  // Never leave a server (or its files) behind, even when a test crashes before its `after` hook.
  process.once('exit', () => {
    child?.kill('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  await start();
  const credentials = options.password === undefined ? '' : `:${encodeURIComponent(options.password)}@`;
  return {
    port,
    url: `${certificates ? 'rediss' : 'redis'}://${credentials}127.0.0.1:${port}`,
    ...(certificates ? { caFile: certificates.caFile } : {}),
    stop,
    async restart(signal) {
      await stop(signal);
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

interface PingOptions {
  readonly port: number;
  readonly password?: string;
  /** Speak TLS, trusting this CA (PEM). */
  readonly ca?: string;
}

/** True when something on the port answers a RESP PING (after AUTH, over TLS, as asked) with +PONG. */
function answersPing({ port, password, ca }: PingOptions): Promise<boolean> {
  return new Promise((resolve) => {
    const socket =
      ca === undefined
        ? net.connect({ port, host: '127.0.0.1' })
        : tls.connect({ port, host: '127.0.0.1', ca });
    let reply = '';
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    // A TLS handshake on a loaded machine takes longer than a plain PING.
    socket.setTimeout(ca === undefined ? 500 : 2000, () => finish(false));
    socket.on('error', () => finish(false));
    // RESP inline commands; the password is sent as a bulk string so any byte in it is safe.
    const auth =
      password === undefined ? '' : `*2\r\n$4\r\nAUTH\r\n$${Buffer.byteLength(password)}\r\n${password}\r\n`;
    socket.on(ca === undefined ? 'connect' : 'secureConnect', () => socket.write(`${auth}PING\r\n`));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      const lines = reply.split('\r\n');
      const expected = password === undefined ? 1 : 2;
      if (lines.length > expected) finish(lines[expected - 1] === '+PONG');
    });
  });
}

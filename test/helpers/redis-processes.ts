/**
 * The redis-server processes behind the topologies of redis-topologies.ts: free loopback
 * ports, `redis-cli` commands, bounded waits, and stopping every process (and its folder)
 * at the end, or when the test process exits early.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import net from 'node:net';

export const READY_TIMEOUT_MS = 30_000;

/** One redis-server process (a cluster node, a data node or a sentinel). */
export interface Node {
  readonly port: number;
  readonly child: ChildProcess;
  output(): string;
}

/** Fails with the install advice when redis-server or redis-cli is missing. */
export function requireRedis(): void {
  const found = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
  const cli = spawnSync('redis-cli', ['--version'], { stdio: 'ignore' });
  if (found.error !== undefined || found.status !== 0 || cli.error !== undefined || cli.status !== 0) {
    throw new Error(
      'redis-server and redis-cli are not installed: these tests need a real Redis. Install them with ' +
        '`apt-get update && apt-get install -y redis-server` (CI does the same).',
    );
  }
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

/** Runs a command against `port` with redis-cli; its stdout, trimmed. */
export function cli(port: number, ...args: string[]): string {
  const out = spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  return (out.stdout ?? '').trim();
}

export async function waitFor(check: () => boolean, what: string, node?: Node): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!check()) {
    if (Date.now() > deadline)
      throw new Error(`${what}: not within ${READY_TIMEOUT_MS} ms\n${node?.output() ?? ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function start(args: readonly string[], port: number): Node {
  const output: string[] = [];
  const child = spawn('redis-server', [...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (c: Buffer) => output.push(c.toString()));
  child.stderr?.on('data', (c: Buffer) => output.push(c.toString()));
  return { port, child, output: () => output.join('') };
}

export async function stopAll(nodes: readonly Node[], dir: string): Promise<void> {
  await Promise.all(
    nodes.map(async (n) => {
      if (n.child.exitCode !== null || n.child.signalCode !== null) return;
      const exited = once(n.child, 'exit');
      n.child.kill('SIGKILL');
      await exited;
    }),
  );
  rmSync(dir, { recursive: true, force: true });
}

/** Kills every process and removes the folder even when a test crashes before its `after` hook. */
export function cleanupOnExit(nodes: readonly Node[], dir: string): void {
  process.once('exit', () => {
    for (const n of nodes) n.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
}

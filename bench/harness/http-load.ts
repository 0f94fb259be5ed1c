/**
 * HTTP helpers of the harness: one-off requests (verification, session set-up) with fetch,
 * and load rounds run by the autocannon worker pinned to the load core.
 */

import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadJob, LoadResult } from './autocannon-worker.ts';
import { LOAD_CORE, type Pinning, spawnPinned, stop, tail } from './processes.ts';
import { checkCallResult, messagesIn } from './wire.ts';
import { runWrk } from './wrk-load.ts';

const WORKER = fileURLToPath(new URL('./autocannon-worker.ts', import.meta.url));

export interface Reply {
  status: number;
  headers: Headers;
  body: string;
}

export async function post(url: string, headers: Record<string, string>, body: object): Promise<Reply> {
  const res = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

/** Sends one `tools/call` and checks the whole answer; throws with the reason when it is wrong. */
export async function verifyCall(
  url: string,
  headers: Record<string, string>,
  body: object,
  id: number,
): Promise<void> {
  const reply = await post(url, headers, body);
  if (reply.status !== 200) throw new Error(`HTTP ${reply.status}: ${reply.body.slice(0, 300)}`);
  const messages = messagesIn(reply.body, reply.headers.get('content-type') ?? '');
  const response = messages.find((m) => (m as { id?: unknown }).id === id);
  const why = checkCallResult(response, id);
  if (why !== undefined) throw new Error(`wrong answer (${why}): ${reply.body.slice(0, 300)}`);
}

/**
 * Opens a 2025-wire session: `initialize`, then `notifications/initialized`. Returns the
 * session id (null when the server keeps no sessions) and the negotiated version.
 */
export async function openSession(
  url: string,
  headers: Record<string, string>,
  initialize: object,
  initialized: object,
): Promise<{ sessionId: string | null; version: string }> {
  const init = await post(url, headers, initialize);
  if (init.status !== 200) throw new Error(`initialize: HTTP ${init.status}: ${init.body.slice(0, 300)}`);
  const first = messagesIn(init.body, init.headers.get('content-type') ?? '')[0] as {
    result?: { protocolVersion?: unknown };
  };
  const version = first?.result?.protocolVersion;
  if (typeof version !== 'string')
    throw new Error(`initialize: no protocolVersion: ${init.body.slice(0, 300)}`);
  const sessionId = init.headers.get('mcp-session-id');
  const sessionHeaders: Record<string, string> = { ...headers, 'mcp-protocol-version': version };
  if (sessionId !== null) sessionHeaders['mcp-session-id'] = sessionId;
  const ack = await post(url, sessionHeaders, initialized);
  if (ack.status !== 202 && ack.status !== 200)
    throw new Error(`notifications/initialized: HTTP ${ack.status}`);
  return { sessionId, version };
}

/** Which program generates the HTTP load. */
export type LoadTool = 'wrk' | 'autocannon';

/**
 * The load generator, pinned to the load core: wrk, started for each round, or autocannon's
 * worker process, kept for the whole run. `run` sends one job and resolves with its result.
 * One job at a time.
 */
export class LoadGenerator {
  readonly tool: LoadTool;
  private readonly pinning: Pinning;
  private readonly child: ChildProcess | undefined;
  private readonly stderr: () => string = () => '';
  private buffered = '';
  private pending: { resolve: (r: LoadResult) => void; reject: (e: Error) => void } | undefined;

  constructor(pinning: Pinning, tool: LoadTool = 'autocannon') {
    this.tool = tool;
    this.pinning = pinning;
    if (tool === 'wrk') return;
    this.child = spawnPinned(pinning, LOAD_CORE, [WORKER]);
    this.stderr = tail(this.child.stderr);
    this.child.stdout?.setEncoding('utf8');
    this.child.stdout?.on('data', (chunk: string) => {
      this.buffered += chunk;
      const nl = this.buffered.indexOf('\n');
      if (nl < 0) return;
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      const p = this.pending;
      this.pending = undefined;
      const reply = JSON.parse(line) as LoadResult | { error: string };
      if ('error' in reply) p?.reject(new Error(`load generator: ${reply.error}`));
      else p?.resolve(reply);
    });
    this.child.once('exit', (code, signal) => {
      this.pending?.reject(new Error(`load generator exited (${signal ?? code}): ${this.stderr()}`));
      this.pending = undefined;
    });
    this.child.stdin?.on('error', () => {});
  }

  run(job: LoadJob): Promise<LoadResult> {
    if (this.pending) return Promise.reject(new Error('the load generator runs one job at a time'));
    if (this.child === undefined) {
      const done = runWrk(job, this.pinning);
      const pending = { resolve: () => {}, reject: () => {} };
      this.pending = pending;
      const clear = () => {
        if (this.pending === pending) this.pending = undefined;
      };
      return done.finally(clear);
    }
    const child = this.child;
    if (child.exitCode !== null) return Promise.reject(new Error(`load generator exited: ${this.stderr()}`));
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      child.stdin?.write(`${JSON.stringify(job)}\n`);
    });
  }

  close(): Promise<void> {
    return this.child === undefined ? Promise.resolve() : stop(this.child);
  }
}

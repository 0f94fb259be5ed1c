/**
 * A link moves raw JSON-RPC messages between the test kit and a server, and nothing else:
 * the kit needs raw access (malformed messages, `params: null`, notifications, odd ids), so
 * it speaks through these rather than through an SDK client: line-delimited JSON over streams
 * (a spawned stdio process, or streams the caller wires to a server), a server in-process,
 * and streamable HTTP (http-link.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { ErrorCode } from '../../base/errors.ts';
import { createLineReader } from '../../base/line-reader.ts';
import type { InProcessConnection, RunningServer } from '../../index.ts';

export interface LinkSendOptions {
  /** HTTP: extra request headers (protocol version, routing headers). */
  headers?: Readonly<Record<string, string>>;
  /** HTTP: leave the session id off (pre-initialize probes). */
  omitSession?: boolean;
  /** HTTP: stop reading an SSE reply once this returns true for a delivered message. */
  stopWhen?: (message: unknown) => boolean;
  signal?: AbortSignal;
}

export interface LinkSendResult {
  /** HTTP status of the POST (absent on streams). */
  status?: number;
  /** HTTP: the body when it was not JSON-RPC (an HTML error page, a plain-text refusal). */
  bodyText?: string;
  /** HTTP: how many JSON-RPC messages the reply carried. */
  delivered?: number;
  /** HTTP: the reply's Content-Type. */
  contentType?: string;
}

export interface Link {
  readonly transport: 'stdio' | 'http' | 'in-process';
  /** Every message the server sends (responses, notifications, requests), parsed. */
  onMessage: (message: unknown) => void;
  /** Called once when the link breaks (the process exited, the stream closed). */
  onClose: (reason: string) => void;
  send(message: unknown, options?: LinkSendOptions): Promise<LinkSendResult>;
  /** stdio: stdout lines that are not JSON-RPC messages (trimmed to 200 characters each). */
  readonly junk: readonly string[];
  /** Why the link broke, once it has. */
  readonly failure: string | undefined;
  close(): Promise<void>;
}

const JUNK_SAMPLE = 200;
const STDERR_TAIL = 4_000;

/** Structurally a JSON-RPC message (or a batch of them): what may appear on an MCP stdout. */
export function looksLikeJsonRpc(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0 && value.every(looksLikeJsonRpc);
  if (typeof value !== 'object' || value === null) return false;
  return 'method' in value || 'result' in value || 'error' in value;
}

/** What every link shares: message delivery and the one-time failure report. */
export abstract class BaseLink {
  onMessage: (message: unknown) => void = () => {};
  onClose: (reason: string) => void = () => {};
  failure: string | undefined;
  protected deliver(value: unknown): void {
    for (const m of Array.isArray(value) ? value : [value]) this.onMessage(m);
  }
  protected fail(reason: string): void {
    if (this.failure !== undefined) return;
    this.failure = reason;
    this.onClose(reason);
  }
}

/**
 * Line-delimited JSON over a pair of streams (MCP stdio transport). Every byte the server
 * writes is inspected: lines that are not JSON-RPC are kept in `junk`.
 */
export class StreamLink extends BaseLink implements Link {
  readonly transport = 'stdio' as const;
  readonly junk: string[] = [];
  protected readonly toServer: Writable;
  readonly #reader = createLineReader({ onLine: (line) => this.#onLine(line) });

  constructor(toServer: Writable, fromServer: Readable) {
    super();
    this.toServer = toServer;
    fromServer.setEncoding('utf8');
    fromServer.on('data', (chunk: string) => this.#reader.push(chunk));
    fromServer.on('end', () => this.flushPartialLine());
    // EPIPE when the server died first: reported through its exit instead.
    toServer.on('error', () => {});
  }

  protected flushPartialLine(): void {
    this.#reader.end();
  }

  #onLine(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.junk.push(line.slice(0, JUNK_SAMPLE));
      return;
    }
    if (!looksLikeJsonRpc(value)) {
      this.junk.push(line.slice(0, JUNK_SAMPLE));
      return;
    }
    this.deliver(value);
  }

  async send(message: unknown): Promise<LinkSendResult> {
    if (this.failure !== undefined) throw new Error(this.failure);
    const text = typeof message === 'string' ? message : JSON.stringify(message);
    this.toServer.write(`${text}\n`);
    return {};
  }

  /** Ends the server's input, as a stdio client shuts down (MCP 2025-11-25 Lifecycle §Shutdown). */
  async close(): Promise<void> {
    this.toServer.end();
  }
}

/** How long a closing server gets after its stdin ends, and after SIGTERM, before the next step. */
const CLOSE_GRACE_MS = 1_000;
const KILL_GRACE_MS = 2_000;
/** After the process exits, how long its pipes may stay open (stderr still draining). */
const PIPE_DRAIN_MS = 200;
const GROUPS = process.platform !== 'win32';

/** Process groups of servers still running, ended when this process exits. */
const live = new Set<number>();
let exitHook = false;
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(GROUPS ? -pid : pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Spawns `command args` and speaks to it over its stdin/stdout; stderr is kept for failure
 * messages. The server runs in a process group of its own (`detached`), so closing the link
 * ends everything it started (`sh -c 'node server.js; sleep 60'` included), and the link never
 * waits for pipes an orphaned grandchild holds open.
 */
export class StdioLink extends StreamLink {
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  #stderr = '';
  #closing = false;

  constructor(
    command: string,
    args: readonly string[],
    options: { env?: Readonly<Record<string, string | undefined>>; cwd?: string } = {},
  ) {
    const child = spawn(command, [...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: GROUPS,
      ...(options.env !== undefined ? { env: options.env as NodeJS.ProcessEnv } : {}),
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    });
    super(child.stdin as Writable, child.stdout as Readable);
    this.#child = child;
    const pid = child.pid;
    if (pid !== undefined) {
      live.add(pid);
      if (!exitHook) {
        exitHook = true;
        process.once('exit', () => {
          for (const p of live) signalGroup(p, 'SIGKILL');
        });
      }
    }
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-STDERR_TAIL);
    });
    this.#exited = new Promise((resolve) => {
      child.once('error', (err) => {
        if (pid !== undefined) live.delete(pid);
        this.fail(`cannot start ${command}: ${err.message}`);
        resolve();
      });
      child.once('exit', (code, signal) => {
        // 'close' waits for every holder of the pipes; a grandchild may keep them for ever.
        const closed = new Promise<void>((r) => child.once('close', () => r()));
        const drained = new Promise<void>((r) => setTimeout(r, PIPE_DRAIN_MS).unref());
        void Promise.race([closed, drained]).then(() => {
          this.flushPartialLine();
          if (pid !== undefined) {
            // Whatever it started is ended with it (the group outlives its leader).
            signalGroup(pid, 'SIGTERM');
            setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS).unref();
            live.delete(pid);
          }
          for (const s of [child.stdout, child.stderr, child.stdin]) s?.destroy();
          if (!this.#closing) {
            const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
            const tail = this.#stderr.trim().split('\n').slice(-8).join('\n');
            this.fail(`the server process ${how}${tail ? `; its stderr ended with:\n${tail}` : ''}`);
          }
          resolve();
        });
      });
    });
  }

  /** The last few kilobytes the server wrote to stderr (for failure messages). */
  get stderr(): string {
    return this.#stderr;
  }

  /**
   * Ends stdin (the stdio shutdown the spec describes), then SIGTERM to the server's process
   * group after a second, then SIGKILL two seconds later.
   */
  override async close(): Promise<void> {
    if (this.#closing) return this.#exited;
    this.#closing = true;
    const child = this.#child;
    const pid = child.pid;
    if (pid !== undefined && child.exitCode === null && child.signalCode === null) {
      child.stdin?.end();
      const term = setTimeout(() => signalGroup(pid, 'SIGTERM'), CLOSE_GRACE_MS);
      const kill = setTimeout(() => signalGroup(pid, 'SIGKILL'), CLOSE_GRACE_MS + KILL_GRACE_MS);
      await this.#exited;
      clearTimeout(term);
      clearTimeout(kill);
    }
    return this.#exited;
  }
}

/**
 * Drives a server in-process through its handle's `connect()` (the same connection stdio
 * uses); messages round-trip JSON.
 */
export class InProcessLink extends BaseLink implements Link {
  readonly transport = 'in-process' as const;
  readonly junk: string[] = [];
  readonly #connection: InProcessConnection;

  constructor(server: RunningServer) {
    super();
    this.#connection = server.connect({
      onMessage: (m) => {
        const copy = JSON.parse(JSON.stringify(m)) as unknown;
        queueMicrotask(() => this.deliver(copy));
      },
    });
  }

  async send(message: unknown): Promise<LinkSendResult> {
    // A string is sent as the stdio transport would parse it (malformed lines included).
    let value: unknown;
    try {
      value = typeof message === 'string' ? JSON.parse(message) : JSON.parse(JSON.stringify(message));
    } catch {
      this.deliver({
        jsonrpc: '2.0',
        id: null,
        error: { code: ErrorCode.ParseError, message: 'Parse error' },
      });
      return {};
    }
    void this.#connection.send(value);
    return {};
  }

  async close(): Promise<void> {
    this.#connection.close();
  }
}

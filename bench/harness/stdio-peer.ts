/**
 * The client side of a stdio server under test: spawns it pinned to the server core, writes
 * one request line and waits for the response line with the same id (one request in flight,
 * as a desktop agent mostly does). Lines that are not the awaited response (notifications,
 * logs a server wrongly printed to stdout) are counted, not fatal.
 */
import type { ChildProcess } from 'node:child_process';
import { type Pinning, SERVER_CORE, spawnPinned, stop, tail } from './processes.ts';
import type { ServerSpec } from './servers.ts';

const REPLY_TIMEOUT_MS = 10_000;

export class StdioPeer {
  readonly child: ChildProcess;
  readonly stderr: () => string;
  /** Lines on stdout that did not answer the awaited request. */
  strayLines = 0;
  /** How long a reply may take (a server under valgrind starts in minutes on a busy machine). */
  replyTimeoutMs = REPLY_TIMEOUT_MS;
  private buffered = '';
  private waiting:
    | {
        id: number | string;
        key: string;
        resolve: (line: string) => void;
        reject: (e: Error) => void;
        since: number;
      }
    | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private exited: Error | undefined;

  /** `launch` starts the server some other way (under valgrind: bench/harness/stdio-instructions.ts). */
  constructor(
    pinning: Pinning,
    spec: ServerSpec,
    nodeFlags: readonly string[] = [],
    launch?: (spec: ServerSpec) => ChildProcess,
  ) {
    this.child = launch ? launch(spec) : spawnPinned(pinning, SERVER_CORE, spec.args, spec.env, nodeFlags);
    this.stderr = tail(this.child.stderr);
    this.child.stdout?.setEncoding('utf8');
    this.child.stdout?.on('data', (chunk: string) => this.onData(chunk));
    this.child.once('exit', (code, signal) => {
      this.exited = new Error(`${spec.label} exited (${signal ?? code}): ${this.stderr()}`);
      this.waiting?.reject(this.exited);
      this.waiting = undefined;
    });
    // An EPIPE after the child died is reported through `exit` above.
    this.child.stdin?.on('error', () => {});
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  private onData(chunk: string): void {
    this.buffered += chunk;
    let nl = this.buffered.indexOf('\n');
    while (nl >= 0) {
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      const w = this.waiting;
      // Cheap id match first: the full JSON check is the caller's.
      if (w && (line.includes(`${w.key},`) || line.includes(`${w.key}}`))) {
        this.waiting = undefined;
        w.resolve(line);
      } else if (line.trim() !== '') {
        this.strayLines++;
      }
      nl = this.buffered.indexOf('\n');
    }
  }

  /** Writes a notification (no reply expected). */
  notify(message: object): void {
    this.child.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  /** Writes a request and resolves with the raw response line. */
  request(message: { id: number | string }): Promise<string> {
    return this.requestLine(message.id, `${JSON.stringify(message)}\n`);
  }

  /**
   * Writes a prepared request line (the hot loop builds lines without JSON.stringify) and
   * resolves with the response line. A timer per request would cost the driver on every
   * call; one interval per peer catches a stall instead.
   */
  requestLine(id: number | string, line: string): Promise<string> {
    if (this.exited) return Promise.reject(this.exited);
    return new Promise((resolve, reject) => {
      this.waiting = { id, key: `"id":${JSON.stringify(id)}`, resolve, reject, since: Date.now() };
      this.watchdog ??= setInterval(() => this.checkStall(), 1000).unref();
      this.child.stdin?.write(line);
    });
  }

  private checkStall(): void {
    const w = this.waiting;
    if (w && Date.now() - w.since > this.replyTimeoutMs) {
      this.waiting = undefined;
      w.reject(
        new Error(
          `no reply to request ${JSON.stringify(w.id)} within ${this.replyTimeoutMs} ms: ${this.stderr()}`,
        ),
      );
    }
  }

  close(): Promise<void> {
    clearInterval(this.watchdog);
    return stop(this.child);
  }
}

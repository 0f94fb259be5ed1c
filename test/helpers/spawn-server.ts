/**
 * Spawns the real `mcp-toolkit` CLI (`bin/mcp-toolkit.js run`) as a child process, for the
 * end-to-end tests: an HTTP server on 127.0.0.1 and a free port (ready once it prints its
 * `mcp-toolkit listening on http://...` line on stderr), or a stdio server whose stdout is
 * read line by line. The environment is the caller's `env` on top of a copy of this
 * process's environment with every `MCP_*` variable removed, so a developer's own settings
 * never leak into a test.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(REPO_ROOT, 'bin', 'mcp-toolkit.js');

/**
 * Start-up (Node importing the TypeScript sources) is slow on a loaded machine: be generous.
 * 30 s ran out once with three quick lanes and four other suites on two cores (load average 28).
 */
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 5_000;

export interface SpawnedProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal) once the process has exited. */
  readonly exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after a grace period; resolves when the process is gone. */
  stop(): Promise<number | null>;
}

export interface SpawnedHttpServer extends SpawnedProcess {
  /** The MCP endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  readonly url: string;
  readonly port: number;
}

/** This process's environment minus every `MCP_*` variable, plus `env`. */
export function childEnv(env: Readonly<Record<string, string>> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('MCP_')) out[k] = v;
  }
  return { MCP_LOG_LEVEL: 'warn', ...out, ...env };
}

/**
 * Spawns `mcp-toolkit run <args>` in the repository root.
 *
 * @example
 * const proc = spawnCli(['run', '--transport', 'stdio'], { MCP_PLUGINS: 'filesystem' });
 */
export function spawnCli(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): SpawnedProcess {
  return spawnNode([CLI, ...args], env);
}

/**
 * Spawns `node <argv>` in the repository root, with the environment spawnCli gives (a
 * fixture server in place of the CLI, for instance).
 *
 * @example
 * const proc = spawnNode(['test/fuzz/fixtures/fragile-server.ts']);
 */
export function spawnNode(
  argv: readonly string[],
  env: Readonly<Record<string, string>> = {},
): SpawnedProcess {
  const child = spawn(process.execPath, argv, {
    cwd: REPO_ROOT,
    env: childEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
  const stop = async (): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      const code = await exited;
      clearTimeout(timer);
      return code;
    }
    return exited;
  };
  return { child, stderr: () => stderr, exited, stop };
}

/**
 * Spawns the CLI as an HTTP server on 127.0.0.1, port 0, and waits for its listening line.
 * Rejects (and kills the process) when it exits or stays silent for 60 s.
 *
 * @example
 * const server = await spawnHttpServer({ MCP_PLUGINS: 'filesystem', MCP_FILESYSTEM_ROOT: dir });
 * t.after(() => server.stop());
 */
export async function spawnHttpServer(
  env: Readonly<Record<string, string>> = {},
): Promise<SpawnedHttpServer> {
  return spawnHttpCli(['run', '--transport', 'http', '--host', '127.0.0.1', '--port', '0'], env);
}

/**
 * Spawns a CLI command that serves HTTP (`run --transport http`, `proxy`, ...) and waits for
 * its listening line, as spawnHttpServer does.
 *
 * @example
 * const proxy = await spawnHttpCli(['proxy', '--port', '0', '--', 'node', 'server.js']);
 */
export async function spawnHttpCli(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<SpawnedHttpServer> {
  const proc = spawnCli(args, env);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => fail(new Error(`no "listening" line within ${READY_TIMEOUT_MS / 1000} s`)),
      READY_TIMEOUT_MS,
    );
    const onData = () => {
      const m = /mcp-toolkit listening on (http:\/\/[^\s"]+)/.exec(proc.stderr());
      if (m) {
        cleanup();
        resolve(m[1]!);
      }
    };
    const onExit = (code: number | null) =>
      fail(new Error(`the server exited (code ${code}) before listening`));
    const cleanup = () => {
      clearTimeout(timer);
      proc.child.stderr.off('data', onData);
      proc.child.off('exit', onExit);
    };
    const fail = (err: Error) => {
      cleanup();
      void proc.stop();
      reject(new Error(`${err.message}; stderr:\n${proc.stderr()}`));
    };
    proc.child.stderr.on('data', onData);
    proc.child.once('exit', onExit);
  });
  return { ...proc, url, port: Number(new URL(url).port) };
}

/** A JSON-RPC peer over a spawned stdio server: line-delimited JSON on stdin/stdout. */
export interface StdioPeer extends SpawnedProcess {
  /** Every stdout line received so far, as written (without the newline). */
  readonly lines: readonly string[];
  /** Writes raw text to stdin (add the newline yourself). */
  write(text: string): void;
  /** Writes one message as a line. */
  send(message: unknown): void;
  /** Waits for the next stdout line at or after index `from` that satisfies `match`. */
  waitFor(
    match: (message: Record<string, unknown>) => boolean,
    from?: number,
  ): Promise<Record<string, unknown>>;
  /** Sends a request and waits for the response carrying its id. */
  request(message: { id: string | number } & Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Ends stdin (EOF). */
  end(): void;
}

const WAIT_TIMEOUT_MS = 20_000;

/**
 * Spawns `mcp-toolkit run --transport stdio` and reads its stdout as JSON lines. A stdout line
 * that is not JSON is kept in `lines` (the test asserts on it) and never matches `waitFor`.
 */
export function spawnStdioServer(env: Readonly<Record<string, string>> = {}): StdioPeer {
  const proc = spawnCli(['run', '--transport', 'stdio'], env);
  const lines: string[] = [];
  const parsed: (Record<string, unknown> | undefined)[] = [];
  const waiters = new Set<() => void>();
  let rest = '';
  proc.child.stdout.setEncoding('utf8');
  proc.child.stdout.on('data', (chunk: string) => {
    rest += chunk;
    for (let nl = rest.indexOf('\n'); nl !== -1; nl = rest.indexOf('\n')) {
      const line = rest.slice(0, nl);
      rest = rest.slice(nl + 1);
      lines.push(line);
      try {
        const value = JSON.parse(line) as unknown;
        parsed.push(
          typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined,
        );
      } catch {
        parsed.push(undefined);
      }
    }
    for (const w of waiters) w();
  });
  proc.child.stdout.on('end', () => {
    if (rest !== '') lines.push(rest);
    for (const w of waiters) w();
  });

  const waitFor: StdioPeer['waitFor'] = (match, from = 0) =>
    new Promise((resolve, reject) => {
      const check = () => {
        for (let i = from; i < parsed.length; i++) {
          const m = parsed[i];
          if (m && match(m)) {
            done();
            resolve(m);
            return;
          }
        }
        if (proc.child.stdout.readableEnded) {
          done();
          reject(new Error(`stdout ended before a matching message; stderr:\n${proc.stderr()}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no matching message within ${WAIT_TIMEOUT_MS} ms; stderr:\n${proc.stderr()}`));
      }, WAIT_TIMEOUT_MS);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  const write = (text: string) => {
    proc.child.stdin.write(text);
  };
  const send = (message: unknown) => write(`${JSON.stringify(message)}\n`);
  return {
    ...proc,
    lines,
    write,
    send,
    waitFor,
    request(message) {
      const from = parsed.length;
      send({ jsonrpc: '2.0', ...message });
      return waitFor((m) => m.id === message.id && !('method' in m), from);
    },
    end() {
      proc.child.stdin.end();
    },
  };
}

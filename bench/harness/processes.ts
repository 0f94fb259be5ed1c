/**
 * Child processes under test: started pinned to the server core with `taskset` (util-linux),
 * their CPU time and memory read from `/proc` (proc(5)), and stopped by pid.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, constants } from 'node:os';

export const SERVER_CORE = 0;
export const LOAD_CORE = 1;
const START_TIMEOUT_MS = 10_000;

export interface Pinning {
  /** Whether servers and load run on separate pinned cores. */
  pinned: boolean;
  /** Why not, when they are not. */
  note?: string;
}

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Decides once whether pinning is possible: taskset present and at least two cores. */
export function detectPinning(): Pinning {
  if (!hasTaskset()) return { pinned: false, note: 'taskset not found (util-linux): running unpinned' };
  if (availableParallelism() < 2) return { pinned: false, note: 'fewer than two cores: running unpinned' };
  return { pinned: true };
}

/** Moves every thread of this process to `core` (the harness drives stdio and hosts the OTLP sink). */
export function pinSelf(pinning: Pinning, core: number): void {
  if (!pinning.pinned) return;
  // `taskset -a` walks /proc/<pid>/task and fails when a thread ends during the walk (V8 and
  // libuv start and stop helper threads at start-up): try again a few times.
  for (let attempt = 1; ; attempt++) {
    try {
      execFileSync('taskset', ['-a', '-cp', String(core), String(process.pid)], { stdio: 'ignore' });
      return;
    } catch (err) {
      if (attempt >= 5) throw err;
    }
  }
}

const live = new Set<ChildProcess>();
let stopsChildren = false;

/**
 * Remembers a child so that the bench stops it when it is stopped itself. A terminal's Ctrl-C
 * reaches the whole process group, but `kill <pid>` (a CI timeout, a script) reaches only the
 * harness: without this its servers, pinned to the server core, would run on. On SIGTERM, SIGINT
 * or SIGHUP every child still running is killed (SIGKILL: a server's drain is not worth waiting
 * for here) and the harness exits as the signal would have ended it (128 + its number).
 */
export function tracked<T extends ChildProcess>(child: T): T {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!stopsChildren) {
    stopsChildren = true;
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
      process.once(signal, () => {
        for (const c of live) c.kill('SIGKILL');
        process.exit(128 + constants.signals[signal]);
      });
    }
  }
  return child;
}

/** Spawns `node <args>` on `core` (taskset execs node in place, so the pid is node's). */
export function spawnPinned(
  pinning: Pinning,
  core: number,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
  nodeFlags: readonly string[] = [],
): ChildProcess {
  const node = [process.execPath, ...nodeFlags, ...args];
  const [cmd, ...rest] = pinning.pinned ? ['taskset', '-c', String(core), ...node] : node;
  return tracked(spawn(cmd!, rest, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] }));
}

/** Keeps the last few KB of a stream, to explain a failure: its first lines, stack frames dropped. */
export function tail(stream: NodeJS.ReadableStream | null): () => string {
  let kept = '';
  stream?.on('data', (chunk: Buffer | string) => {
    kept = (kept + chunk.toString()).slice(-4000);
  });
  return () =>
    kept
      .split('\n')
      .filter((line) => line.trim() !== '' && !/^\s+at /.test(line))
      .slice(0, 6)
      .join(' | ')
      .slice(0, 600);
}

/**
 * Waits for the line a server prints when it listens (`http://127.0.0.1:<port>/mcp`, on
 * stderr, ours and the baselines alike) and returns the URL. Fails after `timeoutMs` (10 s), or as soon
 * as the process exits, with its last output.
 */
export function waitForUrl(
  child: ChildProcess,
  name: string,
  stderr = tail(child.stderr),
  timeoutMs = START_TIMEOUT_MS,
): Promise<string> {
  const stdout = tail(child.stdout);
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const m = /http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(seen);
      if (m) {
        cleanup();
        resolve(`http://127.0.0.1:${m[1]}/mcp`);
      }
    };
    const onExit = (code: number | null, signal: string | null) => {
      cleanup();
      reject(new Error(`${name} exited (${signal ?? code}) before listening: ${stderr() || stdout()}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(
        new Error(`${name} did not print its URL within ${timeoutMs / 1000} s: ${stderr() || stdout()}`),
      );
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
    };
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

let ticksPerSecond: number | undefined;

/** utime + stime of a /proc `stat` file's text, in microseconds. */
function statMicros(stat: string): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  // Fields after the parenthesised command name (which may hold spaces): utime is field 14,
  // stime field 15 (proc(5)), i.e. indexes 11 and 12 after the closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1e6) / ticksPerSecond;
}

/** The process's CPU time (user + system, all threads) in microseconds, from /proc/<pid>/stat. */
export function cpuMicros(pid: number): number {
  return statMicros(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/**
 * CPU time in microseconds of each thread of a process, summed by thread name (`MainThread`,
 * `WorkerThread`, `V8Worker`, ...), from /proc/<pid>/task/<tid>/stat. A thread that ended is
 * missing, so compare two readings name by name.
 */
export function threadCpuMicros(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const us = statMicros(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
      byName.set(name, (byName.get(name) ?? 0) + us);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return byName;
}

/** Resident set size in KiB, from /proc/<pid>/status (VmRSS). */
export function rssKiB(pid: number): number {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : Number.NaN;
}

/**
 * Stops a child we started and waits for it to exit: SIGTERM first (our server drains and
 * exits, and `--cpu-prof` writes its profile on that exit), SIGKILL after `graceMs`.
 */
export function stop(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.stdin?.end();
    child.kill('SIGTERM');
  });
}

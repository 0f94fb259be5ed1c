/**
 * Instructions per request of a stdio server (scenario 3: one request in flight, a `tools/call`
 * of `add`), counted like the HTTP servers in bench/harness/instructions.ts: the server runs
 * under callgrind uninstrumented through start-up and a fixed number of checked warm-up
 * requests, then its counters are zeroed, it answers a fixed number of measured requests and is
 * dumped; main thread only, its garbage collection left out.
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callgrindArgs, dumpedByThread, type InstructionFigure } from './instructions.ts';
import { tracked } from './processes.ts';
import { ECHO_STDIO, OURS_STDIO, type ServerSpec } from './servers.ts';
import { StdioPeer } from './stdio-peer.ts';
import { bodyHasSum, call2025, call2026, checkCallResult, INITIALIZED, initialize2025 } from './wire.ts';

/**
 * The stdio servers counted: `ours-stdio` (our CLI with the bench plugin, `MCP_LOG_LEVEL=warn`
 * as in the benchmark), `ours-stdio-info` (the same at the default level, `info`: a request
 * line per request on stderr) and `echo` (bench/servers/echo-stdio.ts).
 */
export const STDIO_COUNTED: Readonly<Record<string, ServerSpec>> = {
  'ours-stdio': OURS_STDIO,
  'ours-stdio-info': { ...OURS_STDIO, id: 'ours-info', env: { ...OURS_STDIO.env, MCP_LOG_LEVEL: 'info' } },
  echo: ECHO_STDIO,
};

export interface StdioCountOptions {
  warmup: number;
  requests: number;
  /** The wire of the calls: scenario 3 runs the 2025 wire (initialize first). */
  wire: '2025' | '2026';
  log?: (line: string) => void;
  /** A folder to keep callgrind's dumps in (`<server>.out.1-<thread>`, for callgrind_annotate). */
  keepDir?: string;
}

/** Sends `count` calls one at a time, each checked; rejects on the first wrong answer. */
async function sendLines(
  peer: StdioPeer,
  wire: '2025' | '2026',
  first: number,
  count: number,
): Promise<void> {
  const template = JSON.stringify((wire === '2025' ? call2025 : call2026)(-1));
  const [before, after] = template.split('"id":-1');
  for (let id = first; id < first + count; id++) {
    const reply = await peer.requestLine(id, `${before}"id":${id}${after}\n`);
    if (!bodyHasSum(reply)) throw new Error(`request ${id}: wrong answer ${reply.slice(0, 300)}`);
  }
}

/** Counts one stdio server's main-thread instructions per request under callgrind. */
export async function countStdio(name: string, options: StdioCountOptions): Promise<InstructionFigure> {
  const spec = STDIO_COUNTED[name];
  if (spec === undefined) throw new Error(`unknown stdio server ${name}`);
  const out = join(tmpdir(), `instructions-${process.pid}-${name}.out`);
  const peer = new StdioPeer({ pinned: false }, spec, [], (s) =>
    tracked(
      spawn('valgrind', [...callgrindArgs(out), process.execPath, ...s.args], {
        env: { ...process.env, ...s.env },
        stdio: ['pipe', 'pipe', 'pipe'],
      }),
    ),
  );
  peer.replyTimeoutMs = 1_800_000;
  const pid = String(peer.pid);
  try {
    if (options.wire === '2025') {
      const init = JSON.parse(await peer.request(initialize2025(0))) as { result?: unknown };
      if (init.result === undefined) throw new Error('initialize: no result');
      peer.notify(INITIALIZED);
    }
    const check = checkCallResult(
      JSON.parse(await peer.request((options.wire === '2025' ? call2025 : call2026)(1))),
      1,
    );
    if (check !== undefined) throw new Error(`wrong answer: ${check}`);
    await sendLines(peer, options.wire, 2, options.warmup);
    execFileSync('callgrind_control', ['--instr=on', pid], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['-z', pid], { stdio: 'ignore' });
    await sendLines(peer, options.wire, 2 + options.warmup, options.requests);
    execFileSync('callgrind_control', ['-d', pid], { stdio: 'ignore' });
    const byThread = dumpedByThread(out);
    let others = 0;
    for (const [thread, count] of byThread) if (thread !== 1) others += count;
    const figure = {
      server: name,
      perRequest: byThread.get(1)! / options.requests,
      otherThreadsPerRequest: others / options.requests,
    };
    options.log?.(
      `${name}: ${Math.round(figure.perRequest)} instructions/request on the main thread ` +
        `(other threads ${Math.round(figure.otherThreadsPerRequest)})`,
    );
    return figure;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    options.log?.(`${name}: not counted: ${message}`);
    return { server: name, perRequest: null, otherThreadsPerRequest: null, error: message };
  } finally {
    await peer.close();
    const base = out.slice(tmpdir().length + 1);
    for (const f of readdirSync(tmpdir())) {
      if (!f.startsWith(base)) continue;
      if (options.keepDir !== undefined)
        copyFileSync(join(tmpdir(), f), join(options.keepDir, `${name}.out${f.slice(base.length)}`));
      rmSync(join(tmpdir(), f), { force: true });
    }
  }
}

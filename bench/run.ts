/**
 * The side-by-side benchmark of issue 6: `node bench/run.ts [options]` (see `--help`).
 * Servers run pinned to core 0, the load generator (and this harness, which drives stdio and
 * hosts the OTLP sink) to core 1; rounds are interleaved; every answer is checked. It prints
 * the tables and ratios and writes them as JSON (default `bench/results/latest.json`).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureSessionMemory, measureStartup } from './harness/extras.ts';
import type { ServerResult } from './harness/figures.ts';
import { scenario1Contenders, scenario2Contenders, scenario4Contenders } from './harness/http-contenders.ts';
import { LoadGenerator } from './harness/http-load.ts';
import { type Context, type HttpContender, runHttpGroup } from './harness/http-scenario.ts';
import {
  countedServers,
  countInstructions,
  instructionRatios,
  valgrindMissing,
} from './harness/instructions.ts';
import { type Options, parseOptions } from './harness/options.ts';
import { startOtlpSink } from './harness/otlp-sink.ts';
import { detectPinning, LOAD_CORE, pinSelf, SERVER_CORE } from './harness/processes.ts';
import {
  computeRatios,
  formatResults,
  type InstructionResults,
  type Results,
  type ScenarioResult,
} from './harness/report.ts';
import {
  ECHO_STDIO,
  OURS_HTTP,
  OURS_STDIO,
  SDK_HTTP,
  SDK_SESSION_HTTP,
  SDK_STDIO,
} from './harness/servers.ts';
import { runStdioGroup } from './harness/stdio-scenario.ts';
import { hasWrk } from './harness/wrk-load.ts';

const TITLES: Record<string, string> = {
  '1': '2026-wire tools/call, JSON replies, HTTP',
  '2': '2025-wire tools/call within one session, HTTP',
  '3': 'stdio, one request in flight',
  '4': 'scenario 1 with API-key auth, rate limit and OTLP tracing at sample ratios 1, 0.1 and 0; the anchor: the raw route with the OTel Node SDK',
};

function pick(group: Map<string, ServerResult>, keys: Record<string, string>): Record<string, ServerResult> {
  const out: Record<string, ServerResult> = {};
  for (const [key, as] of Object.entries(keys)) {
    const r = group.get(key);
    if (r) out[as] = r;
  }
  return out;
}

function cpuModel(): string {
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

async function runScenarios(ctx: Context): Promise<Record<string, ScenarioResult>> {
  const { options, log } = ctx;
  const scenarios: Record<string, ScenarioResult> = {};
  const want = (n: number) => options.scenarios.has(n);
  if (want(1) || want(4)) {
    log(`\n== scenario${want(1) && want(4) ? 's 1 and 4' : want(1) ? ' 1' : ' 4'} (HTTP, 2026 wire)`);
    const sink = want(4) ? await startOtlpSink() : undefined;
    try {
      const first: HttpContender[] = want(1)
        ? scenario1Contenders(options.profileDir)
        : scenario1Contenders(options.profileDir).filter((c) => c.key === 'ours');
      const group = await runHttpGroup(ctx, [
        ...first,
        ...(sink ? scenario4Contenders(sink, options.profileDir) : []),
      ]);
      scenarios['1'] = {
        title: TITLES['1']!,
        servers: pick(group, { ours: 'ours', sdk: 'sdk', tmcp: 'tmcp', raw: 'raw' }),
      };
      if (want(4))
        scenarios['4'] = {
          title: TITLES['4']!,
          servers: pick(group, {
            'ours-secured': 'ours',
            'ours-sampled': 'sampled',
            'ours-unsampled': 'unsampled',
            'ours-unsampled-nometrics': 'unsampled-nometrics',
            'ours-edge': 'edge',
            'raw-otel': 'raw-otel',
          }),
        };
    } finally {
      await sink?.close();
    }
  }
  if (want(2)) {
    log('\n== scenario 2 (HTTP, 2025 wire, one session)');
    const group = await runHttpGroup(ctx, scenario2Contenders());
    scenarios['2'] = {
      title: TITLES['2']!,
      servers: pick(group, { ours: 'ours', sdk: 'sdk', 'sdk-session': 'sdk-session' }),
    };
  }
  if (want(3)) {
    log(`\n== scenario 3 (stdio, ${options.stdioWire} wire, one request in flight)`);
    const group = await runStdioGroup(ctx, [OURS_STDIO, SDK_STDIO, ECHO_STDIO]);
    scenarios['3'] = {
      title: `${TITLES['3']!} (${options.stdioWire} wire)`,
      servers: Object.fromEntries(group),
    };
  }
  return scenarios;
}

/**
 * Main-thread instructions per request of plain, ratio 0, ratio 1 and the raw route, counted
 * side by side under callgrind after the timed scenarios (so they do not slow the rounds).
 */
async function countRequestInstructions(ctx: Context): Promise<InstructionResults | undefined> {
  const { options, log } = ctx;
  if (options.instructions === 0 || !(options.scenarios.has(1) || options.scenarios.has(4))) return undefined;
  const base = { warmup: options.instructionsWarmup, requests: options.instructions };
  log(`\n== instructions per request (callgrind, ${options.instructions} requests per server)`);
  const skipped = valgrindMissing();
  if (skipped !== undefined) {
    log(skipped);
    return { ...base, figures: [], ratios: [], skipped };
  }
  const sink = await startOtlpSink();
  try {
    const servers = countedServers(sink.url, randomBytes(16).toString('hex'));
    const figures = await countInstructions(
      options.instructionsServers.map((name) => servers[name]!),
      { ...base, connections: 16, log },
    );
    return { ...base, figures, ratios: instructionRatios(figures) };
  } finally {
    await sink.close();
  }
}

async function main(options: Options): Promise<void> {
  // Before pinning: afterwards this process sees only its own core.
  const nproc = availableParallelism();
  const loadBefore = loadavg();
  const pinning = detectPinning();
  pinSelf(pinning, LOAD_CORE);
  const log = (line: string) => console.error(line);
  const tool = options.load ?? (hasWrk() ? 'wrk' : 'autocannon');
  if (tool === 'wrk' && !hasWrk()) {
    console.error('wrk not found: install it (Debian/Ubuntu: apt-get install wrk) or pass --load autocannon');
    process.exit(2);
  }
  if (options.load === undefined && tool === 'autocannon')
    log(
      'wrk not found (Debian/Ubuntu: apt-get install wrk): loading with autocannon, which may hold fast servers back',
    );
  const load = new LoadGenerator(pinning, tool);
  const ctx: Context = { pinning, load, options: { ...options, load: tool }, log };
  try {
    await run(ctx, nproc, loadBefore);
  } finally {
    await load.close();
  }
}

async function run(ctx: Context, nproc: number, loadBefore: number[]): Promise<void> {
  const { options, pinning, log } = ctx;
  if (options.profileDir !== undefined) await mkdir(options.profileDir, { recursive: true });
  log(
    pinning.pinned
      ? `servers pinned to core ${SERVER_CORE}, load generator and harness to core ${LOAD_CORE}`
      : `NOT PINNED: ${pinning.note}`,
  );
  const scenarios = await runScenarios(ctx);
  const instructions = await countRequestInstructions(ctx);
  const memory = [];
  const startup = [];
  if (options.extras) {
    log(`\n== memory with ${options.sessions} idle 2025-wire sessions`);
    for (const spec of [OURS_HTTP, SDK_HTTP, SDK_SESSION_HTTP])
      memory.push(await measureSessionMemory(ctx, spec));
    log('\n== start-up over stdio');
    startup.push(...(await measureStartup(ctx, [OURS_STDIO, SDK_STDIO, ECHO_STDIO])));
  }
  const results: Results = {
    generatedAt: new Date().toISOString(),
    machine: {
      nproc,
      // The machine's load around the run: other work on these cores makes figures noisy.
      loadavgBefore: loadBefore.map((l) => Number(l.toFixed(2))),
      loadavgAfter: loadavg().map((l) => Number(l.toFixed(2))),
      cpuModel: cpuModel(),
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      pinned: pinning.pinned,
      ...(pinning.note ? { note: pinning.note } : {}),
      serverCore: pinning.pinned ? SERVER_CORE : null,
      loadCore: pinning.pinned ? LOAD_CORE : null,
    },
    options: { ...options, scenarios: [...options.scenarios] },
    scenarios,
    ratios: computeRatios(scenarios),
    memory,
    startup,
    ...(instructions === undefined ? {} : { instructions }),
  };
  await mkdir(dirname(resolve(options.out)), { recursive: true });
  await writeFile(options.out, `${JSON.stringify(results, null, 2)}\n`);
  console.log(formatResults(results));
  console.log(
    `\nmachine: ${results.machine.nproc} cores, ${results.machine.cpuModel}, Node ${process.version}`,
  );
  console.log(`results written to ${options.out}`);
}

// Run from the repository root whatever the caller's directory: server paths are relative to it.
process.chdir(fileURLToPath(new URL('..', import.meta.url)));
let options: Options;
try {
  options = parseOptions(process.argv.slice(2));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(2);
}
await main(options);

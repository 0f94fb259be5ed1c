/** The harness's command line: `node bench/run.ts [--duration S] [--connections N] ...`. */

import { parseArgs } from 'node:util';
import { COUNTABLE, COUNTED_BY_RUN } from './instructions.ts';

export interface Options {
  /** Seconds per measured round. */
  durationSec: number;
  /** Seconds of untimed load per server before its first round (JIT warm-up). */
  warmupSec: number;
  connections: number;
  rounds: number;
  /** Processes of each HTTP server the rounds are spread over, one after the other. */
  processes: number;
  scenarios: ReadonlySet<number>;
  /** Memory with idle sessions and start-up time ("extras"). */
  extras: boolean;
  /** Idle 2025-wire sessions opened for the memory figure. */
  sessions: number;
  /** Start-up samples per stdio server (the median is reported). */
  startupSamples: number;
  /** Wire of the stdio scenario: 2025 (initialize first, as desktop agents do) or 2026. */
  stdioWire: '2025' | '2026';
  out: string;
  /** CPU-profile our server in scenarios 1 and 4 (`node --cpu-prof`) into this directory. */
  profileDir: string | undefined;
  /** The HTTP load generator; `undefined`: wrk when it is installed, else autocannon. */
  load: 'wrk' | 'autocannon' | undefined;
  /** Requests counted under callgrind per server (bench/harness/instructions.ts); 0: none. */
  instructions: number;
  /** Checked requests before the counters are zeroed. */
  instructionsWarmup: number;
  /** The servers counted (default COUNTED_BY_RUN: plain, ratio 0, ratio 1, the raw route). */
  instructionsServers: readonly string[];
}

export const USAGE = `node bench/run.ts [options]
  --duration S       seconds per round (default 4)
  --warmup S         untimed seconds per server before its first round (default: min(3, duration))
  --connections N    HTTP connections (default 50)
  --rounds R         interleaved rounds per scenario (default 10): short rounds, many of them, so
                     that the two sides of a ratio run close together on a machine whose speed drifts
  --processes P      processes of each HTTP server the rounds are spread over (default 3): every
                     server is started anew, verified and warmed up after each P-th of the rounds,
                     because how fast one process runs is partly a draw (with --profile, 1 unless
                     given: each new process writes the same profile file)
  --scenarios LIST   e.g. 1,2,3,4 (default all)
  --no-extras        skip memory (idle sessions) and start-up time
  --sessions N       idle sessions for the memory figure (default 4000)
  --samples N        start-up samples per stdio server (default 5)
  --stdio-wire W     2025 or 2026 for scenario 3 (default 2025)
  --profile DIR      CPU-profile our server in scenarios 1 and 4 (node --cpu-prof) into DIR:
                     ours-scenario1.cpuprofile, ours-scenario4.cpuprofile (see bench/profile-summary.ts)
  --load TOOL        HTTP load generator: wrk or autocannon (default: wrk when installed, else
                     autocannon; autocannon costs its core 30 to 60 µs per request and can hold
                     the fastest servers back)
  --instructions N   with scenario 1 or 4: main-thread instructions per request over N warm
                     requests of plain, ratio 0, ratio 1 and the raw route under valgrind's callgrind
                     (default 2000; 0: none; skipped with a note when valgrind is not installed)
  --instructions-warmup N  checked requests before counting (default 20000: V8 has then
                     optimised the request path; after 3000 much of it still runs as mid-tier code)
  --instructions-servers LIST  the servers counted (default plain,ratio0,ratio1,raw; also edge,
                     ratio0.1, ratio0-nometrics): a ratio is computed where both its sides are
  --out FILE         JSON results (default bench/results/latest.json)`;

function positive(name: string, value: string | undefined, fallback: number, allowZero = false): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || (!allowZero && n === 0))
    throw new Error(`--${name}: expected a number, got ${value}`);
  return n;
}

export function parseOptions(argv: readonly string[]): Options {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      rounds: { type: 'string' },
      processes: { type: 'string' },
      scenarios: { type: 'string' },
      'no-extras': { type: 'boolean' },
      sessions: { type: 'string' },
      samples: { type: 'string' },
      'stdio-wire': { type: 'string' },
      profile: { type: 'string' },
      out: { type: 'string' },
      load: { type: 'string' },
      instructions: { type: 'string' },
      'instructions-warmup': { type: 'string' },
      'instructions-servers': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) throw new Error(USAGE);
  const durationSec = positive('duration', values.duration, 4);
  const scenarios = new Set((values.scenarios ?? '1,2,3,4').split(',').map((s) => Number(s.trim())));
  for (const s of scenarios)
    if (![1, 2, 3, 4].includes(s)) throw new Error(`--scenarios: unknown scenario ${s}`);
  const stdioWire = values['stdio-wire'] ?? '2025';
  if (stdioWire !== '2025' && stdioWire !== '2026') throw new Error('--stdio-wire: expected 2025 or 2026');
  const instructionsServers = (values['instructions-servers'] ?? COUNTED_BY_RUN.join(','))
    .split(',')
    .map((s) => s.trim());
  for (const name of instructionsServers)
    if (!COUNTABLE.includes(name)) throw new Error(`--instructions-servers: unknown server ${name}`);
  const load = values.load;
  if (load !== undefined && load !== 'wrk' && load !== 'autocannon')
    throw new Error('--load: expected wrk or autocannon');
  return {
    load,
    durationSec,
    warmupSec: positive('warmup', values.warmup, Math.min(3, durationSec), true),
    connections: Math.round(positive('connections', values.connections, 50)),
    rounds: Math.round(positive('rounds', values.rounds, 10)),
    processes: Math.round(positive('processes', values.processes, values.profile === undefined ? 3 : 1)),
    scenarios,
    extras: values['no-extras'] !== true,
    sessions: Math.round(positive('sessions', values.sessions, 4000)),
    startupSamples: Math.round(positive('samples', values.samples, 5)),
    stdioWire,
    out: values.out ?? 'bench/results/latest.json',
    profileDir: values.profile,
    instructions: Math.round(positive('instructions', values.instructions, 2000, true)),
    instructionsWarmup: Math.round(
      positive('instructions-warmup', values['instructions-warmup'], 20_000, true),
    ),
    instructionsServers,
  };
}

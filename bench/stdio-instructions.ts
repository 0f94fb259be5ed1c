/**
 * Instructions per request of the stdio servers of scenario 3 (one request in flight, a
 * `tools/call` of `add`), which the load of a shared machine cannot move: `ours-stdio` and the
 * bare line echo (bench/servers/echo-stdio.ts), each under callgrind, main thread only, GC
 * left out (bench/harness/stdio-instructions.ts), and their ratio (issue 51: ours at the
 * echo's throughput within 5%).
 *
 * Usage: `node bench/stdio-instructions.ts [--servers ours-stdio,echo] [--requests N]
 * [--warmup N] [--wire 2025|2026] [--callgrind-out DIR]`. The last line is JSON.
 */
import { commandLine } from './harness/command-line.ts';
import { valgrindMissing } from './harness/instructions.ts';
import { countStdio, STDIO_COUNTED } from './harness/stdio-instructions.ts';

const USAGE = `node bench/stdio-instructions.ts [--servers ours-stdio,echo] [--requests N] [--warmup N]
  [--wire 2025|2026] [--callgrind-out DIR]
  servers: ${Object.keys(STDIO_COUNTED).join(', ')}`;
const values = commandLine(USAGE, {
  servers: { type: 'string', default: 'ours-stdio,echo' },
  requests: { type: 'string', default: '2000' },
  warmup: { type: 'string', default: '20000' },
  wire: { type: 'string', default: '2025' },
  'callgrind-out': { type: 'string' },
});
const requests = Number(values.requests);
const warmup = Number(values.warmup);
if (!(Number.isInteger(requests) && requests >= 1 && Number.isInteger(warmup) && warmup >= 0)) {
  console.error('--requests must be a positive integer, --warmup an integer of at least 0');
  process.exit(2);
}
const wire = values.wire;
if (wire !== '2025' && wire !== '2026') {
  console.error(`--wire: 2025 or 2026, not ${wire}`);
  process.exit(2);
}
const names = values.servers.split(',');
for (const name of names) {
  if (STDIO_COUNTED[name] === undefined) {
    console.error(`unknown server ${name}: expected one of ${Object.keys(STDIO_COUNTED).join(', ')}`);
    process.exit(2);
  }
}
const missing = valgrindMissing();
if (missing !== undefined) {
  console.error(missing);
  process.exit(2);
}

// A count does not depend on what else runs: the servers are counted side by side.
const figures = await Promise.all(
  names.map((name) =>
    countStdio(name, {
      warmup,
      requests,
      wire,
      log: (line) => console.log(line),
      ...(values['callgrind-out'] === undefined ? {} : { keepDir: values['callgrind-out'] }),
    }),
  ),
);
const ours = figures.find((f) => f.server === 'ours-stdio')?.perRequest;
const echo = figures.find((f) => f.server === 'echo')?.perRequest;
const ratio = typeof ours === 'number' && typeof echo === 'number' ? ours / echo : null;
if (ratio !== null) console.log(`ours-stdio / echo: ${ratio.toFixed(3)} instructions per request`);
console.log(JSON.stringify({ wire, figures, ratio }));
// A server that could not be counted fails the run (its error was printed above).
if (figures.some((f) => f.perRequest === null)) process.exitCode = 1;

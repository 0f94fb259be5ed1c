/**
 * `npm run fuzz`: throws random and hostile JSON-RPC messages at the real server over stdio
 * and over HTTP (a spawned `mcp-toolkit run`, real pipes and sockets) for as long as asked,
 * and checks that it stays up, answers every request exactly once with well-formed JSON-RPC,
 * answers no notification, and writes nothing but JSON-RPC to stdout. The same generators
 * and oracle run for a few seconds in `npm test` (test/fuzz/).
 *
 *   npm run fuzz -- --seconds 60                      # both transports, 60 s each
 *   npm run fuzz -- --seconds 300 --transport stdio
 *   npm run fuzz -- --transport http --seed 1234 --path 17:3:0   # replay a reported failure
 *
 * Options: `--seconds N` (default 60), `--transport http|stdio|both` (default both),
 * `--seed S` (default random; printed first either way), `--path P` (replay one run of a
 * report), `--shrink-seconds N` (default 60). Exit code 0 when nothing was found, 1 on a
 * crash, an unanswered request or any other problem (the report names the seed, the path and
 * the smallest failing run), 2 on a usage mistake.
 */
import { parseArgs } from 'node:util';
import { formatReport, fuzz } from '../test/fuzz/run.ts';

function usage(message: string): never {
  console.error(`npm run fuzz: ${message}`);
  console.error(
    'usage: npm run fuzz -- [--seconds N] [--transport http|stdio|both] [--seed S] [--path P] [--shrink-seconds N]',
  );
  process.exit(2);
}

function positive(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0)
    usage(`--${name} must be a positive number (got ${JSON.stringify(text)})`);
  return n;
}

let values: Record<string, string | undefined>;
try {
  ({ values } = parseArgs({
    options: {
      seconds: { type: 'string' },
      transport: { type: 'string' },
      seed: { type: 'string' },
      path: { type: 'string' },
      'shrink-seconds': { type: 'string' },
    },
    strict: true,
  }));
} catch (err) {
  usage((err as Error).message);
}
const seconds = positive('seconds', values.seconds, 60);
const shrinkSeconds = positive('shrink-seconds', values['shrink-seconds'], 60);
const TRANSPORTS = { stdio: ['stdio'], http: ['http'], both: ['stdio', 'http'] } as const;
const transport = values.transport ?? 'both';
if (!Object.hasOwn(TRANSPORTS, transport))
  usage(`--transport must be http, stdio or both (got ${JSON.stringify(transport)})`);
let seed: number | undefined;
if (values.seed !== undefined) {
  seed = Number(values.seed);
  if (!Number.isSafeInteger(seed)) usage(`--seed must be an integer (got ${JSON.stringify(values.seed)})`);
}
if (values.path !== undefined && !/^\d+(:\d+)*$/.test(values.path))
  usage(`--path must look like 17:3:0 (got ${JSON.stringify(values.path)})`);
if (values.path !== undefined && (transport === 'both' || seed === undefined))
  usage('--path replays one report: give its --transport and --seed too');

let failed = false;
for (const t of TRANSPORTS[transport as keyof typeof TRANSPORTS]) {
  const report = await fuzz({
    transport: t,
    seconds,
    seed,
    path: values.path,
    shrinkSeconds,
    log: (line) => console.log(line),
  });
  console.log(formatReport(report));
  if (report.failure || report.atEnd.length > 0) failed = true;
}
process.exit(failed ? 1 : 0);

/**
 * No test waits on a fixed sleep over 50 ms (issue 29): a test waits for the event the sleep
 * stood for (test/helpers/until.ts), with a bounded timeout. A grep-style scan of every
 * TypeScript file under test/ (fixtures excepted: their tools simulate work on purpose) for
 * `await sleep(N)` / `await delay(N)` (and node:timers/promises' setTimeout under any name) and
 * for a promise resolved by `setTimeout(resolve, N)`, N a literal over 50. The files that are
 * about time (a TTL, a refill rate) are allowed, each with its reason.
 */
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LIMIT_MS = 50;
/** Not scanned: this file (its samples of what the scan finds) and until's own short poll. */
const EXEMPT = new Set(['test/helpers-tests/no-fixed-sleeps.test.ts', 'test/helpers/until.ts']);

/** Files that are about time, each with why a real wait stays. */
const ALLOWED: Record<string, string> = {
  'test/scale/session-store.test.ts': 'idle expiry: Redis expires the keys itself (PEXPIRE), in real time',
  'test/ratelimit/limiter-contract.ts': 'token refill over real time; the Redis store counts in Redis time',
  'test/e2e/batteries/rate-limit.test.ts': "a spawned server's bucket refilling (2 a second) in real time",
  'test/tasks/store-redis.test.ts':
    "the task store contract's clock: Redis expires task records in real time",
  'test/tasks/lease-outage.test.ts':
    'a Redis outage of 10 s of real time is what the test is about; the client polls as a client would',
  'test/scale/soak.test.ts':
    'a soak: a steady load paced in real time, a replica frozen and Redis away for seconds are the faults',
  'test/scale/soak.ts':
    "the soak's clients: a retry paced as a client paces it, tasks polled as a client polls",
};

/** Tool implementations and plugins that simulate slow work: not waits of a test. */
const isFixture = (file: string) => /(^|\/)fixtures\//.test(file);

export interface Sleep {
  readonly line: number;
  readonly ms: number;
  readonly text: string;
}

/** A duration: a literal, or an expression (a variable, `ms + 10`), which counts as too long. */
const duration = String.raw`(\d[\d_]*|[A-Za-z_$][^,;()\n]*(?:\([^()\n]*\)[^,;()\n]*)*)`;
const resolver = '(?:r|res|resolve|done|next|wake)';

/** The fixed sleeps over LIMIT_MS in `source`, with their 1-based line numbers. */
export function fixedSleeps(source: string): Sleep[] {
  // node:timers/promises' setTimeout, whatever it is imported as, is a sleep function too.
  const names = new Set(['sleep', 'delay', 'wait', 'pause']);
  for (const m of source.matchAll(/import\s*\{([^}]*)\}\s*from\s*'(?:node:)?timers\/promises'/g)) {
    for (const part of m[1]!.split(',')) {
      const [imported, local] = part.trim().split(/\s+as\s+/);
      if (imported === 'setTimeout') names.add(local ?? imported);
    }
  }
  const called = [...names].join('|');
  const patterns = [
    // await sleep(300), await delay(1_000)
    new RegExp(String.raw`\bawait\s+(?:${called})\(\s*${duration}\s*[,)]`, 'g'),
    // new Promise((r) => setTimeout(r, 200)), const t = setTimeout(resolve, 400)
    new RegExp(String.raw`\bsetTimeout\(\s*${resolver}\s*,\s*${duration}\s*[,)]`, 'g'),
    // setTimeout(() => resolve(), 200)
    new RegExp(String.raw`\bsetTimeout\(\s*\(\)\s*=>\s*${resolver}\(\)\s*,\s*${duration}\s*[,)]`, 'g'),
  ];
  const found: Sleep[] = [];
  for (const pattern of patterns) {
    for (const m of source.matchAll(pattern)) {
      const ms = /^\d/.test(m[1]!) ? Number(m[1]!.replaceAll('_', '')) : Number.POSITIVE_INFINITY;
      if (ms <= LIMIT_MS) continue;
      const line = source.slice(0, m.index).split('\n').length;
      found.push({ line, ms, text: source.split('\n')[line - 1]!.trim() });
    }
  }
  return found.sort((a, b) => a.line - b.line);
}

test('the scan finds the sleep shapes and passes over bounded waits and short polls', () => {
  const sleeps = fixedSleeps(
    [
      "import { setTimeout as nap } from 'node:timers/promises';",
      'await new Promise((r) => setTimeout(r, 200));',
      'await new Promise((resolve) => { const t = setTimeout(resolve, 1_000); });',
      'await sleep(300);',
      'await nap(60);',
      'await sleep(retry + 10);',
      'advance: (ms) => new Promise((r) => setTimeout(r, ms)),',
      'await new Promise<void>((done) => setTimeout(() => done(), 75));',
      // Not sleeps: short polls, timeouts that reject, a kill timer, a race with a deadline.
      'await new Promise((r) => setTimeout(r, 50));',
      'await sleep(10);',
      "timer = setTimeout(() => reject(new Error('late')), 10_000);",
      "const killer = setTimeout(() => proc.kill('SIGKILL'), 20_000);",
      'await Promise.race([exited, nap(1_000)]);',
    ].join('\n'),
  );
  assert.deepEqual(
    sleeps.map((s) => [s.line, s.ms]),
    [
      [2, 200],
      [3, 1000],
      [4, 300],
      [5, 60],
      [6, Number.POSITIVE_INFINITY],
      [7, Number.POSITIVE_INFINITY],
      [8, 75],
    ],
  );
});

test('every allow-listed file exists and still needs its entry', () => {
  for (const [file, reason] of Object.entries(ALLOWED)) {
    assert.ok(reason.length > 10, `${file}: say why it is about time`);
    const sleeps = fixedSleeps(readFileSync(`${ROOT}${file}`, 'utf8'));
    assert.ok(sleeps.length > 0, `${file} has no fixed sleep over ${LIMIT_MS} ms left: drop it from ALLOWED`);
  }
});

test(`no test awaits a fixed sleep over ${LIMIT_MS} ms (wait for the event with test/helpers/until.ts)`, () => {
  const files = globSync('test/**/*.ts', { cwd: ROOT, exclude: ['**/node_modules/**'] })
    .map((f) => f.replaceAll('\\', '/'))
    .filter((f) => !EXEMPT.has(f) && !isFixture(f) && !(f in ALLOWED));
  assert.ok(files.length > 100, `${files.length} files scanned`);
  const offenders = files.flatMap((file) =>
    fixedSleeps(readFileSync(`${ROOT}${file}`, 'utf8')).map(
      (s) => `${file}:${s.line} (${s.ms} ms): ${s.text}`,
    ),
  );
  assert.deepEqual(offenders, [], `fixed sleeps over ${LIMIT_MS} ms:\n${offenders.join('\n')}`);
});

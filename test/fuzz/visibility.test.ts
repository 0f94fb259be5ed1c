/**
 * Hidden is absent, fuzzed: for random names and URIs a caller could guess, the answer about
 * an item it may not see (test/fixtures/hidden-items-plugin.ts, admin only) has exactly the
 * shape of the answer about the guessed name, by every method that resolves a name or URI, on
 * both wires. fast-check picks the guesses and the methods; a counterexample is shrunk and
 * printed with its seed.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { buildHiddenApp, call, guest, open } from '../protocol/hidden-helpers.ts';
import type { Message, TestApp } from '../transports/http-helpers.ts';

/** What each method is asked with, and the hidden item it names. */
const METHODS: readonly { method: string; hidden: string; params: (n: string) => Message; uri: boolean }[] = [
  { method: 'tools/call', hidden: 'secret_tool', params: (n) => ({ name: n, arguments: {} }), uri: false },
  { method: 'prompts/get', hidden: 'secret_prompt', params: (n) => ({ name: n }), uri: false },
  {
    method: 'completion/complete',
    hidden: 'secret_prompt',
    params: (n) => ({ ref: { type: 'ref/prompt', name: n }, argument: { name: 'topic', value: 'p' } }),
    uri: false,
  },
  { method: 'resources/read', hidden: 'secret://config', params: (n) => ({ uri: n }), uri: true },
  { method: 'resources/read', hidden: 'secret://docs/salaries', params: (n) => ({ uri: n }), uri: true },
];

/** A name a client might send: near the hidden ones or anywhere (never one that exists). */
const nameArb = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9_]{0,24}$/),
  fc.constantFrom('secret_tool2', 'secret_promp', 'Secret_tool', 'secret-tool', 'echo_'),
);
const uriArb = fc.oneof(
  fc.stringMatching(/^[a-z]{1,8}:\/\/[a-z0-9/]{1,20}$/),
  fc.constantFrom('secret://configs', 'secret://Config', 'secret://doc/salaries', 'secrets://config'),
);
const EXISTING = new Set(['echo', 'slow', 'secret_tool', 'secret_prompt', 'secret_config']);

/**
 * An answer with the name it was asked about replaced where a value is that name or ends with
 * it (`Unknown tool: <name>`), so two answers about different names compare by shape. Keys and
 * other text stay as they are, whatever the name (a guess of `o` must not rewrite "tool").
 */
function shape(answer: { status: number; body: Message }, name: string): unknown {
  const swap = (v: unknown): unknown => {
    if (typeof v === 'string') return v.endsWith(name) ? `${v.slice(0, v.length - name.length)}<name>` : v;
    if (Array.isArray(v)) return v.map(swap);
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, swap(x)]));
    return v;
  };
  assert.ok(answer.body.error, `an error (got ${JSON.stringify(answer.body)})`);
  return { status: answer.status, error: swap(answer.body.error) };
}

let t: TestApp;
let session: string;
before(async () => {
  t = await buildHiddenApp();
  session = await open(t, guest);
});
after(() => t?.close());

test('no guess tells a hidden item from an absent one, by method, code, message or status', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...METHODS),
      fc.constantFrom('2025' as const, '2026' as const),
      nameArb,
      uriArb,
      async (m, wire, name, uri) => {
        const guess = m.uri ? uri : name;
        fc.pre(!EXISTING.has(guess) && !guess.startsWith('test://') && !guess.startsWith('secret://docs/'));
        const s = wire === '2025' ? session : undefined;
        const hidden = await call(t, wire, guest, m.method, m.params(m.hidden), s);
        const absent = await call(t, wire, guest, m.method, m.params(guess), s);
        assert.deepEqual(shape(hidden, m.hidden), shape(absent, guess));
      },
    ),
    { numRuns: 150 },
  );
});

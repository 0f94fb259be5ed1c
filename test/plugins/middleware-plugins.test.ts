/**
 * The two middleware plugins that ship as examples, on a real stdio server: `audit-log`
 * writes one line per call with secrets redacted; `result-cache` answers a repeated call of
 * a read-only, idempotent tool without running it, and never caches other tools or errors.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type StdioPeer, spawnStdioServer } from '../helpers/spawn-server.ts';

let peer: StdioPeer;
let nextId = 1;

async function call(name: string, args: Record<string, unknown>): Promise<string> {
  const reply = await peer.request({ id: nextId++, method: 'tools/call', params: { name, arguments: args } });
  const result = reply.result as { content: { text: string }[] };
  return result.content.map((c) => c.text).join('\n');
}

function auditLines(): Record<string, unknown>[] {
  return peer
    .stderr()
    .split('\n')
    .filter((l) => l.includes('"audit"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

before(async () => {
  peer = spawnStdioServer({
    MCP_PLUGINS: 'audit-log,result-cache,./test/fixtures/production-plugin.ts,./test/fixtures/echo-plugin.ts',
    MCP_LOG_LEVEL: 'info',
    MCP_LOG_FORMAT: 'json',
    MCP_RESULT_CACHE_TTL_MS: '60000',
  });
  const init = await peer.request({
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  assert.ok('result' in init);
});
after(() => peer.stop());

test('result-cache: a repeated read-only, idempotent call is answered from the cache', async () => {
  const first = await call('lookup', { id: 'k', token: 'sekrit' });
  assert.match(first, /^k: run \d+$/);
  assert.equal(
    await call('lookup', { token: 'sekrit', id: 'k' }),
    first,
    'same arguments in another order: a hit',
  );
  assert.notEqual(await call('lookup', { id: 'other' }), first, 'other arguments: a miss');
  // echo is read-only but not idempotent: never cached.
  assert.equal(await call('echo', { text: 'a' }), 'a');
  assert.equal(await call('echo', { text: 'b' }), 'b');
});

test('audit-log: one line per call, with the tool, outcome and redacted arguments', async () => {
  await call('fail', {});
  for (let i = 0; i < 100 && auditLines().length < 6; i++) await new Promise((r) => setTimeout(r, 20));
  const lines = auditLines();
  assert.equal(lines.length, 6, JSON.stringify(lines));
  const lookup = lines[0] as {
    tool: string;
    outcome: string;
    args: Record<string, unknown>;
    durationMs: number;
  };
  assert.equal(lookup.tool, 'lookup');
  assert.equal(lookup.outcome, 'ok');
  assert.deepEqual(lookup.args, { id: 'k', token: '[redacted]' });
  assert.equal(typeof lookup.durationMs, 'number');
  assert.equal((lines[5] as { outcome: string }).outcome, 'tool_error');
  assert.doesNotMatch(peer.stderr(), /sekrit/);
});

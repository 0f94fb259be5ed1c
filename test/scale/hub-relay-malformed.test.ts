/**
 * What the hub relay takes from the channel is checked before the hub sees it: a relayed
 * event of the right shape reaches the hub as before (ids past Number.MAX_SAFE_INTEGER kept as
 * sent), while a message that is not one (not JSON, no sender, an unknown type, a message that
 * is no JSON-RPC envelope, a cancellation without a usable id, an announcement of nothing) is
 * dropped with one warning naming what is wrong, never its values. The replica's own messages
 * are skipped without a word. A PubSub in memory stands in for Redis.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isBigId } from '../../src/base/json-ids.ts';
import type { JsonRpcMessage, RequestId } from '../../src/base/jsonrpc.ts';
import { Hub } from '../../src/protocol/hub/hub.ts';
import type { Announcement } from '../../src/protocol/hub/relay.ts';
import type { PubSub } from '../../src/redis/pubsub.ts';
import { createHubRelay } from '../../src/scale/hub-relay.ts';

/** One channel in memory: what is published reaches every subscriber at once. */
function memoryPubSub(): PubSub & { deliver(payload: string): void } {
  const handlers = new Set<(payload: string) => void>();
  return {
    async publish(_channel, payload) {
      for (const h of handlers) h(payload);
    },
    async subscribe(_channel, handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    async close() {},
    deliver(payload) {
      for (const h of handlers) h(payload);
    },
  };
}

async function replica() {
  const pubsub = memoryPubSub();
  const warnings: { obj: Record<string, unknown>; msg: string }[] = [];
  const relay = createHubRelay({
    pubsub,
    channel: 'test:hub',
    replicaId: 'here',
    logger: { warn: (obj, msg) => warnings.push({ obj: obj as Record<string, unknown>, msg }) },
  });
  const hub = new Hub({ relay });
  await relay.listen(hub);
  const announced: Announcement[] = [];
  hub.announcements.onAnnounce((a) => {
    announced.push(a);
  });
  const cancelled: [string, RequestId][] = [];
  hub.cancels.setCanceller((scope, id) => {
    cancelled.push([scope, id]);
    return true;
  });
  const sent: JsonRpcMessage[] = [];
  hub.sessionStreams.attach('s1', { send: (m) => sent.push(m) });
  return { pubsub, warnings, announced, cancelled, sent };
}

const from = (event: unknown, sender = 'there') => JSON.stringify({ from: sender, event });

test('well-formed relayed events reach the hub, a big request id kept as sent', async () => {
  const r = await replica();
  r.pubsub.deliver(from({ type: 'announce', announcement: { type: 'list_changed', kind: 'tools' } }));
  r.pubsub.deliver(from({ type: 'announce', announcement: { type: 'resource_updated', uri: 'test://x' } }));
  r.pubsub.deliver(
    from({ type: 'session', sessionId: 's1', message: { jsonrpc: '2.0', method: 'notifications/message' } }),
  );
  r.pubsub.deliver(
    '{"from":"there","event":{"type":"cancel","scope":"s1","requestId":12345678901234567890}}',
  );
  r.pubsub.deliver(from({ type: 'cancel', scope: 's1', requestId: 7 }));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(r.warnings, []);
  assert.deepEqual(r.announced, [
    { type: 'list_changed', kind: 'tools' },
    { type: 'resource_updated', uri: 'test://x' },
  ]);
  assert.deepEqual(r.sent, [{ jsonrpc: '2.0', method: 'notifications/message' }]);
  assert.equal(r.cancelled.length, 2);
  const [[scope, big], second] = r.cancelled as [[string, RequestId], [string, RequestId]];
  assert.equal(scope, 's1');
  assert.ok(isBigId(big), 'the id past MAX_SAFE_INTEGER stays exact');
  assert.equal(JSON.stringify(big), '12345678901234567890');
  assert.deepEqual(second, ['s1', 7]);
});

test('malformed relayed messages are dropped, each with one warning', async () => {
  const r = await replica();
  const malformed = [
    'not json {',
    JSON.stringify({ event: { type: 'cancel', scope: 's1', requestId: 1 } }),
    JSON.stringify(['from', 'there']),
    from({ type: 'unknown-kind' }),
    from(null),
    from({ type: 'announce' }),
    from({ type: 'announce', announcement: { type: 'list_changed', kind: 'widgets' } }),
    from({ type: 'session', sessionId: 's1', message: { method: 'notifications/message' } }),
    from({ type: 'session', message: { jsonrpc: '2.0', method: 'x' } }),
    from({ type: 'cancel', scope: 's1', requestId: { secret: 'do-not-log' } }),
    from({ type: 'response', scope: 's1', response: { jsonrpc: '2.0', id: 's2c-1' } }),
  ];
  for (const payload of malformed) r.pubsub.deliver(payload);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual([r.announced, r.sent, r.cancelled], [[], [], []], 'nothing reached the hub');
  assert.equal(r.warnings.length, malformed.length);
  for (const w of r.warnings) {
    assert.equal(w.msg, 'relayed hub message dropped: malformed');
    assert.equal(w.obj.channel, 'test:hub');
    assert.equal(typeof w.obj.problem, 'string');
  }
  assert.ok(!JSON.stringify(r.warnings).includes('do-not-log'), 'the values are not logged');
  assert.match(String(r.warnings[9]?.obj.problem), /requestId/);
  assert.equal(r.warnings[9]?.obj.from, 'there');
});

test("the replica's own messages are skipped without a warning", async () => {
  const r = await replica();
  r.pubsub.deliver(from({ type: 'announce', announcement: { type: 'list_changed', kind: 'tools' } }, 'here'));
  r.pubsub.deliver(from({ type: 'whatever' }, 'here'));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual([r.announced, r.warnings], [[], []]);
});

/**
 * The 2026-07-28 wire has no `resources/subscribe`: a `subscriptions/listen` stream's
 * `resourceSubscriptions` are passed to the owning upstream while the stream is open (over a
 * real socket), the upstream's `resources/updated` reaches the stream under our URI, and the
 * upstream is unsubscribed when the stream closes.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import proxy from '../../../plugins/proxy/index.ts';
import type { PluginDefinition } from '../../../src/index.ts';
import {
  type Fixture,
  type Message,
  post2026,
  SseReader,
  startFixture,
  V2026,
} from '../../conformance/http-fixture.ts';
import { until } from '../../helpers/until.ts';
import { relayEntry } from './helpers.ts';

let fixture: Fixture;
before(async () => {
  fixture = await startFixture({
    plugins: [proxy as unknown as PluginDefinition<never>],
    env: { MCP_PROXY_UPSTREAMS: JSON.stringify([relayEntry('one', 'one'), relayEntry('two', 'two')]) },
  });
});
after(() => fixture?.close());

async function call(id: number, name: string, args: Message = {}): Promise<string> {
  const res = await post2026(fixture.url, id, 'tools/call', { name, arguments: args });
  const body = (await res.json()) as { result?: { content?: { text?: string }[] } };
  return body.result?.content?.[0]?.text ?? JSON.stringify(body);
}

const subscribed = async (name: string) =>
  (JSON.parse(await call(100, `${name}_state`)) as { subscribed: string[] }).subscribed;

test('a listen stream’s resource subscriptions are held upstream while it is open', async () => {
  const controller = new AbortController();
  const res = await post2026(
    fixture.url,
    'listen-1',
    'subscriptions/listen',
    { notifications: { resourceSubscriptions: ['two+note://a'] } },
    { signal: controller.signal },
  );
  assert.equal(res.status, 200);
  const reader = new SseReader(res, V2026, 'subscriptions/listen');
  try {
    const ack = await reader.next();
    assert.equal(ack?.message?.method, 'notifications/subscriptions/acknowledged');
    assert.deepEqual(await subscribed('two'), ['note://a']);
    assert.deepEqual(await subscribed('one'), []);
    assert.match(await call(2, 'two_touch', { uri: 'note://a' }), /touched/);
    const updated = await reader.next();
    assert.equal(updated?.message?.method, 'notifications/resources/updated');
    assert.equal(((updated?.message?.params ?? {}) as Message).uri, 'two+note://a');
  } finally {
    await reader.cancel().catch(() => {});
    controller.abort();
  }
  await until(async () => (await subscribed('two')).length === 0, {
    timeoutMs: 20_000,
    message: 'the closed stream’s subscription stayed upstream',
  });
});

/**
 * What the proxy passes upstream from its clients, with two upstreams that serve the same URI
 * (fixtures/relay-server.ts, as `one` and `two`): their resources stay two (`one+note://a`,
 * `two+note://a`), a subscription goes to the owning upstream only (once, however many
 * sessions subscribe; dropped when the last unsubscribes or ends), the upstream's
 * `resources/updated` comes back under our URI, and `logging/setLevel` reaches every upstream
 * with the most verbose level a live session set.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RunningServer } from '@mcp-toolkit/server';
import { TestClient } from '@mcp-toolkit/server/testing';
import proxy from '../../../plugins/proxy/index.ts';
import { startServer } from '../../helpers/client.ts';
import { until } from '../../helpers/until.ts';
import { relayEntry } from './helpers.ts';

describe('two upstreams serving the same URI', () => {
  let server: RunningServer;
  let a: TestClient;
  let b: TestClient;
  const state = async (name: string) =>
    JSON.parse(await a.callText(`${name}_state`)) as { subscribed: string[]; levels: string[] };
  before(async () => {
    server = await startServer({
      plugins: [proxy],
      settings: {
        MCP_PROXY_UPSTREAMS: JSON.stringify([
          relayEntry('one', 'from one', { exclude: ['note://secret'] }),
          relayEntry('two', 'from two'),
        ]),
      },
    });
    a = await TestClient.start({ server });
    b = await TestClient.start({ server });
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await server?.close();
  });

  test('the resources stay distinct, each read from its own upstream', async () => {
    const uris = ((await a.request('resources/list')).resources as { uri: string }[])
      .map((r) => r.uri)
      .sort();
    assert.deepEqual(uris, ['one+note://a', 'two+note://a']);
    const one = (await a.readResource('one+note://a')).contents as { uri: string; text: string }[];
    const two = (await a.readResource('two+note://a')).contents as { uri: string; text: string }[];
    assert.deepEqual(one, [{ uri: 'one+note://a', text: 'from one' }]);
    assert.equal(two[0]?.text, 'from two');
  });

  test('a subscription reaches the owning upstream only, and its updates come back under our URI', async () => {
    await a.request('resources/subscribe', { uri: 'two+note://a' });
    assert.deepEqual((await state('two')).subscribed, ['note://a']);
    assert.deepEqual((await state('one')).subscribed, []);
    assert.match(await a.callText('two_touch', { uri: 'note://a' }), /touched/);
    const updated = await until(
      () => a.notifications.find((n) => n.method === 'notifications/resources/updated'),
      { timeoutMs: 20_000, message: 'no resources/updated reached the subscriber' },
    );
    assert.deepEqual(updated.params, { uri: 'two+note://a' });
  });

  test('subscribed upstream once for two sessions; unsubscribed when the last one leaves', async () => {
    await b.request('resources/subscribe', { uri: 'two+note://a' });
    await a.request('resources/unsubscribe', { uri: 'two+note://a' });
    assert.deepEqual((await state('two')).subscribed, ['note://a'], 'b still subscribes');
    await b.request('resources/unsubscribe', { uri: 'two+note://a' });
    assert.deepEqual((await state('two')).subscribed, []);
  });

  test('a session that ends drops its subscriptions upstream', async () => {
    const c = await TestClient.start({ server });
    await c.request('resources/subscribe', { uri: 'one+note://a' });
    assert.deepEqual((await state('one')).subscribed, ['note://a']);
    await c.close();
    await until(async () => (await state('one')).subscribed.length === 0, {
      timeoutMs: 20_000,
      message: 'the ended session’s subscription stayed upstream',
    });
  });

  test('logging/setLevel reaches every upstream, at the most verbose level set', async () => {
    await a.request('logging/setLevel', { level: 'error' });
    assert.equal((await state('one')).levels.at(-1), 'error');
    assert.equal((await state('two')).levels.at(-1), 'error');
    await b.request('logging/setLevel', { level: 'info' });
    assert.equal((await state('one')).levels.at(-1), 'info');
    await a.request('logging/setLevel', { level: 'warning' });
    assert.equal((await state('two')).levels.at(-1), 'info', 'b still wants info');
  });

  test('a URI the upstream’s exclude list leaves out is not passed on; nor past 100 per session', async () => {
    const c = await TestClient.start({ server });
    try {
      await c.request('resources/subscribe', { uri: 'one+note://secret' });
      assert.deepEqual((await state('one')).subscribed, []);
      for (let i = 0; i < 105; i++) await c.request('resources/subscribe', { uri: `one+note://n${i}` });
      assert.equal((await state('one')).subscribed.length, 100);
      await c.request('resources/unsubscribe', { uri: 'one+note://n0' });
      await c.request('resources/subscribe', { uri: 'one+note://n104' });
      const now = (await state('one')).subscribed;
      assert.equal(now.length, 100);
      assert.ok(now.includes('note://n104') && !now.includes('note://n0'));
    } finally {
      await c.close();
    }
    await until(async () => (await state('one')).subscribed.length === 0, {
      timeoutMs: 20_000,
      message: 'the ended session’s subscriptions stayed upstream',
    });
  });

  test('a URI of no upstream is acknowledged and passed nowhere', async () => {
    await a.request('resources/subscribe', { uri: 'three+note://a' });
    await a.request('resources/subscribe', { uri: 'note://a' });
    assert.deepEqual((await state('one')).subscribed, []);
    assert.deepEqual((await state('two')).subscribed, []);
  });
});

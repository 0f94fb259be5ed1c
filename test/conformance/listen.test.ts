/**
 * 2026 `subscriptions/listen` over a real socket (SEP-2575): the acknowledgement comes first,
 * every frame carries the subscription id, and a list change reaches exactly the listeners
 * whose filter asked for it. The changes come from the conformance plugin's trigger tools,
 * which use the ordinary plugin API (`app.notifyListChanged`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Fixture, type Message, post2026, SseReader, startFixture, V2026 } from './http-fixture.ts';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

let fixture: Fixture;
const controllers: AbortController[] = [];
before(async () => {
  fixture = await startFixture();
});
after(async () => {
  for (const c of controllers) c.abort();
  await fixture.close();
});

/** Opens a listen stream and checks its acknowledgement; returns the reader. */
async function listen(id: string, notifications: Message): Promise<SseReader> {
  const controller = new AbortController();
  controllers.push(controller);
  const res = await post2026(
    fixture.url,
    id,
    'subscriptions/listen',
    { notifications },
    {
      signal: controller.signal,
    },
  );
  assert.equal(res.status, 200);
  const reader = new SseReader(res, V2026, 'subscriptions/listen');
  const ack = await reader.next();
  assert.equal(ack?.message?.method, 'notifications/subscriptions/acknowledged', 'the ack comes first');
  const params = ack.message.params as { notifications: Message; _meta: Message };
  assert.deepEqual(params.notifications, notifications, 'the ack echoes the honoured filter');
  assert.equal(params._meta[SUBSCRIPTION_ID], id);
  return reader;
}

async function call(id: number, name: string): Promise<void> {
  const res = await post2026(fixture.url, id, 'tools/call', { name, arguments: {} });
  assert.equal(res.status, 200);
  const body = (await res.json()) as Message;
  assert.equal((body.result as Message).resultType, 'complete');
}

/** The next notification on a listen stream, checked to carry the stream's subscription id. */
async function nextOn(reader: SseReader, subscriptionId: string): Promise<string> {
  const event = await reader.next();
  const message = event?.message;
  assert.ok(message, 'a notification arrives');
  assert.equal(((message.params as Message)._meta as Message)[SUBSCRIPTION_ID], subscriptionId);
  return String(message.method);
}

describe('subscriptions/listen', () => {
  test('a list change reaches the listeners that asked for it, and only those', {
    timeout: 15_000,
  }, async () => {
    const tools = await listen('listen-tools', { toolsListChanged: true });
    const prompts = await listen('listen-prompts', { promptsListChanged: true });
    const both = await listen('listen-both', { toolsListChanged: true, promptsListChanged: true });
    await call(1, 'test_trigger_tool_change');
    await call(2, 'test_trigger_prompt_change');
    assert.equal(await nextOn(tools, 'listen-tools'), 'notifications/tools/list_changed');
    // The tools change came first: had it reached the prompts-only stream, it would be next here.
    assert.equal(await nextOn(prompts, 'listen-prompts'), 'notifications/prompts/list_changed');
    assert.equal(await nextOn(both, 'listen-both'), 'notifications/tools/list_changed');
    assert.equal(await nextOn(both, 'listen-both'), 'notifications/prompts/list_changed');
  });

  test('a listener that goes away is dropped', { timeout: 15_000 }, async () => {
    const before = fixture.server.hub.listenStreams.count;
    const reader = await listen('listen-short', { toolsListChanged: true });
    assert.equal(fixture.server.hub.listenStreams.count, before + 1);
    controllers.at(-1)!.abort();
    await reader.cancel();
    for (let i = 0; i < 200 && fixture.server.hub.listenStreams.count > before; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(fixture.server.hub.listenStreams.count, before);
  });
});

describe('subscriptions/listen streams per caller', () => {
  let capped: Fixture;
  before(async () => {
    capped = await startFixture({ env: { MCP_MAX_LISTEN_STREAMS: '2' } });
  });
  after(() => capped?.close());

  test('beyond MCP_MAX_LISTEN_STREAMS a caller gets 409 -32043; a closed stream frees its place', {
    timeout: 15_000,
  }, async () => {
    const open = async (id: string) => {
      const controller = new AbortController();
      controllers.push(controller);
      const res = await post2026(
        capped.url,
        id,
        'subscriptions/listen',
        { notifications: { toolsListChanged: true } },
        { signal: controller.signal },
      );
      return { res, controller };
    };
    const first = await open('cap-1');
    const second = await open('cap-2');
    assert.equal(first.res.status, 200);
    assert.equal(second.res.status, 200);
    await new SseReader(second.res, V2026, 'subscriptions/listen').next();
    const third = await open('cap-3');
    assert.equal(third.res.status, 409);
    const body = (await third.res.json()) as { id: unknown; error: { code: number; message: string } };
    assert.equal(body.id, 'cap-3');
    assert.equal(body.error.code, -32043);
    assert.match(body.error.message, /MCP_MAX_LISTEN_STREAMS/);
    first.controller.abort();
    for (let i = 0; i < 500 && capped.server.hub.listenStreams.count > 1; i++)
      await new Promise((r) => setTimeout(r, 10));
    const again = await open('cap-4');
    assert.equal(again.res.status, 200);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode } from '../../src/base/errors.ts';
import { definePlugin, type PluginApp } from '../../src/index.ts';
import type { TestClient, TestClientError } from '../../src/testing/client/test-client.ts';
import echoPlugin from '../fixtures/echo-plugin.ts';
import { startClient, startServer } from '../helpers/client.ts';
import { until } from '../helpers/until.ts';

describe('resources, prompts and completion', () => {
  test('resources/list, templates/list and read of a static resource and a template', async () => {
    const client = await startClient({ plugins: [echoPlugin] });
    const list = await client.request('resources/list');
    assert.deepEqual(list.resources, [
      { uri: 'test://hello', name: 'hello', mimeType: 'text/plain', description: 'A greeting' },
    ]);
    const templates = await client.request('resources/templates/list');
    assert.deepEqual(templates.resourceTemplates, [
      { uriTemplate: 'test://items/{id}', name: 'item', mimeType: 'application/json' },
    ]);
    assert.deepEqual(await client.readResource('test://hello'), {
      contents: [{ uri: 'test://hello', mimeType: 'text/plain', text: 'hello world' }],
    });
    assert.deepEqual(await client.readResource('test://items/42'), {
      contents: [{ uri: 'test://items/42', mimeType: 'application/json', text: '{"id":"42"}' }],
    });
    await client.close();
  });

  test('an unknown resource is -32602 with the URI in data', async () => {
    for (const wire of ['2025', '2026'] as const) {
      const client = await startClient({ plugins: [echoPlugin], wire });
      await assert.rejects(client.readResource('test://missing'), (e: TestClientError) => {
        assert.equal(e.code, ErrorCode.InvalidParams);
        assert.deepEqual(e.data, { uri: 'test://missing' });
        return true;
      });
      await client.close();
    }
  });

  test('subscribe/unsubscribe answer {} and updates reach subscribed sessions only', async () => {
    let echoApp: PluginApp | undefined;
    const notifier = definePlugin({
      name: 'notifier',
      register(app) {
        echoApp = app;
      },
    });
    const server = await startServer({ plugins: [echoPlugin, notifier] });
    const client = await startClient({ server });
    const other = await startClient({ server });
    const updates = (c: TestClient) =>
      c.notifications.filter((n) => n.method === 'notifications/resources/updated').map((n) => n.params);
    assert.deepEqual(await client.request('resources/subscribe', { uri: 'test://hello' }), {});
    echoApp?.notifyResourceUpdated('test://hello');
    await until(() => updates(client).length > 0, { message: 'the update never reached the subscriber' });
    assert.deepEqual(updates(client), [{ uri: 'test://hello' }]);
    assert.deepEqual(await client.request('resources/unsubscribe', { uri: 'test://hello' }), {});
    // The other session subscribes now: once the next update has reached it, it has had its
    // chance to reach the first one too.
    assert.deepEqual(await other.request('resources/subscribe', { uri: 'test://hello' }), {});
    client.notifications.length = 0;
    echoApp?.notifyResourceUpdated('test://hello');
    await until(() => updates(other).length > 0, { message: 'the update never reached the other session' });
    assert.deepEqual(updates(other), [{ uri: 'test://hello' }], 'the other session heard only this one');
    assert.equal(client.notifications.length, 0);
    await other.close();
    await client.close();
    await server.close();
  });

  test('prompts/list and prompts/get, required arguments enforced', async () => {
    const client = await startClient({ plugins: [echoPlugin] });
    const list = await client.request('prompts/list');
    assert.deepEqual(list.prompts, [
      {
        name: 'greet',
        description: 'Greets someone',
        arguments: [{ name: 'who', description: 'Who to greet', required: true }],
      },
    ]);
    assert.deepEqual(await client.getPrompt('greet', { who: 'ann' }), {
      description: 'Greets someone',
      messages: [{ role: 'user', content: { type: 'text', text: 'Say hello to ann.' } }],
    });
    await assert.rejects(
      client.getPrompt('greet'),
      (e: TestClientError) => e.code === ErrorCode.InvalidParams,
    );
    await assert.rejects(
      client.getPrompt('nope'),
      (e: TestClientError) => e.code === ErrorCode.InvalidParams,
    );
    await client.close();
  });

  test('completion/complete for prompt arguments and template variables', async () => {
    const client = await startClient({ plugins: [echoPlugin] });
    const prompt = await client.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'who', value: 'a' },
    });
    assert.deepEqual(prompt.completion, { values: ['alice'], total: 1, hasMore: false });
    const template = await client.request('completion/complete', {
      ref: { type: 'ref/resource', uri: 'test://items/{id}' },
      argument: { name: 'id', value: '1' },
    });
    assert.deepEqual(template.completion, { values: ['1', '10'], total: 2, hasMore: false });
    await assert.rejects(
      client.request('completion/complete', {
        ref: { type: 'ref/prompt', name: 'nope' },
        argument: { name: 'x', value: '' },
      }),
      (e: TestClientError) => e.code === ErrorCode.InvalidParams,
    );
    await client.close();
  });
});

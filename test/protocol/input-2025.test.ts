/**
 * The input API on the 2025 wire, in-process: the same handlers as on 2026, but each round's
 * requests go out as real server-to-client requests, concurrently, and the framework runs
 * the handler again with the answers. A client that never answers costs one input timeout;
 * the call ends cleanly and the session lives on. Every message checked against the schema.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import conformancePlugin from '../../plugins/conformance/index.ts';
import { ErrorCode, type JsonObject } from '../../src/index.ts';
import type { TestClient, TestClientError } from '../../src/testing/client/test-client.ts';
import { startClient } from '../helpers/client.ts';

const accept = (content: JsonObject) => ({ action: 'accept', content });

/** Server-to-client requests the client received, in order. */
function serverRequests(client: TestClient): JsonObject[] {
  return client.log
    .filter((e) => e.direction === 'server' && !Array.isArray(e.message))
    .map((e) => e.message as unknown as JsonObject)
    .filter((m) => 'method' in m && 'id' in m);
}

describe('2025 input rounds', () => {
  test('state is carried across three rounds of real elicitation requests', async () => {
    const client = await startClient({
      plugins: [conformancePlugin],
      onElicit: (params) =>
        String(params.message).startsWith('Step 1') ? accept({ name: 'Alice' }) : accept({ color: 'blue' }),
    });
    assert.equal(await client.callText('test_input_required_result_multi_round'), 'Alice likes blue');
    const asked = serverRequests(client).map((m) => (m.params as JsonObject).message);
    assert.deepEqual(asked, ['Step 1: What is your name?', 'Step 2: What is your favorite color?']);
    await client.close();
  });

  test("one round's requests are sent together, before any is answered", { timeout: 10_000 }, async () => {
    let arrived = 0;
    let allIn!: () => void;
    const together = new Promise<void>((r) => {
      allIn = r;
    });
    // Each answer waits until all three requests are in: sent one by one, this would never finish.
    const barrier = async <T>(answer: T): Promise<T> => {
      if (++arrived === 3) allIn();
      await together;
      return answer;
    };
    const client = await startClient({
      plugins: [conformancePlugin],
      onElicit: () => barrier(accept({ name: 'Alice' })),
      onSample: () => barrier({ role: 'assistant', content: { type: 'text', text: 'Hi' }, model: 'm' }),
      onRoots: () => barrier({ roots: [{ uri: 'file:///r', name: 'r' }] }),
    });
    assert.equal(
      await client.callText('test_input_required_result_multiple_inputs'),
      'name=Alice, greeting=Hi, roots=file:///r',
    );
    await client.close();
  });

  test('a client that never answers: the call ends with isError, the request is cancelled, the session lives on', {
    timeout: 10_000,
  }, async () => {
    const client = await startClient({
      plugins: [conformancePlugin],
      env: { MCP_INPUT_TIMEOUT_MS: '100' },
      onElicit: () => new Promise(() => {}),
    });
    const result = await client.callTool('test_elicitation', { message: 'Anyone?' });
    assert.equal(result.isError, true);
    assert.match(String((result.content as JsonObject[])[0]?.text), /did not answer elicitation\/create/);
    const [asked] = serverRequests(client);
    const cancelled = client.notifications.find((n) => n.method === 'notifications/cancelled');
    assert.equal((cancelled?.params as JsonObject | undefined)?.requestId, asked?.id);
    assert.equal(await client.callText('test_simple_text'), 'This is a simple text response for testing.');
    await client.close();
  });

  test('a client that answers with an error: the tool reports the refusal as isError; the session lives on', async () => {
    const client = await startClient({ plugins: [conformancePlugin] }); // no onSample: it answers an error
    const result = await client.callTool('test_sampling', { prompt: 'Hi' });
    assert.equal(result.isError, true);
    assert.match(
      (result.content as { text: string }[])[0]!.text,
      /^ClientAnswerError: the client answered sampling\/createMessage with an error: /,
    );
    assert.equal(await client.callText('test_simple_text'), 'This is a simple text response for testing.');
    await client.close();
  });

  test('a missing capability is -32021 with requiredCapabilities, and nothing is sent', async () => {
    const client = await startClient({ plugins: [conformancePlugin], capabilities: { elicitation: {} } });
    await assert.rejects(client.callTool('test_sampling', { prompt: 'Hi' }), (e: TestClientError) => {
      assert.equal(e.code, ErrorCode.MissingRequiredClientCapability);
      assert.deepEqual((e.data as JsonObject).requiredCapabilities, { sampling: {} });
      return true;
    });
    assert.deepEqual(serverRequests(client), []);
    await client.close();
  });

  test('elicitation schemas go out as written (SEP-1034 defaults, SEP-1330 enums)', async () => {
    const seen: JsonObject[] = [];
    const client = await startClient({
      plugins: [conformancePlugin],
      onElicit: (params) => {
        seen.push(params.requestedSchema as JsonObject);
        return { action: 'decline' };
      },
    });
    assert.match(await client.callText('test_elicitation_sep1034_defaults'), /action=decline/);
    assert.match(await client.callText('test_elicitation_sep1330_enums'), /action=decline/);
    const defaults = seen[0]?.properties as Record<string, JsonObject>;
    assert.deepEqual(Object.fromEntries(Object.entries(defaults).map(([k, v]) => [k, v.default])), {
      name: 'John Doe',
      age: 30,
      score: 95.5,
      status: 'active',
      verified: true,
    });
    assert.equal(defaults.age?.type, 'integer');
    const enums = seen[1]?.properties as Record<string, JsonObject>;
    assert.deepEqual(Object.keys(enums), [
      'untitledSingle',
      'titledSingle',
      'legacyEnum',
      'untitledMulti',
      'titledMulti',
    ]);
    await client.close();
  });
});

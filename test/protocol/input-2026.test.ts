/**
 * The input API on the 2026 wire (SEP-2322), in-process: a handler's round ends with an
 * input-required result whose `requestState` is sealed (HMAC, expiry, bound to the call);
 * the client's retry with `inputResponses` runs the handler again. Handlers from the
 * conformance plugin; every message checked against the 2026-07-28 schema.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import conformancePlugin from '../../plugins/conformance/index.ts';
import { buildMcpServer } from '../../src/assembly/server.ts';
import { parseSettings } from '../../src/config/settings.ts';
import { ErrorCode, type JsonObject } from '../../src/index.ts';
import { createStateCodec } from '../../src/protocol/state-codec.ts';
import type { TestClientError } from '../../src/testing/client/test-client.ts';
import { handleOf, startClient } from '../helpers/client.ts';

const accept = (content: JsonObject) => ({ action: 'accept', content });

function call(name: string, extra: JsonObject = {}): JsonObject {
  return { name, arguments: {}, ...extra };
}

const invalidParams = (e: TestClientError) => e.code === ErrorCode.InvalidParams;

describe('2026 input rounds', () => {
  test('state is carried across three rounds, resealed each round (R2 ≠ R1)', async () => {
    const client = await startClient({ plugins: [conformancePlugin], wire: '2026' });
    const name = 'test_input_required_result_multi_round';
    const r1 = await client.request('tools/call', call(name));
    assert.equal(r1.resultType, 'input_required');
    assert.deepEqual(Object.keys(r1.inputRequests as JsonObject), ['step1']);
    const r2 = await client.request(
      'tools/call',
      call(name, { inputResponses: { step1: accept({ name: 'Alice' }) }, requestState: r1.requestState }),
    );
    assert.equal(r2.resultType, 'input_required');
    assert.deepEqual(Object.keys(r2.inputRequests as JsonObject), ['step2']);
    assert.equal(typeof r2.requestState, 'string');
    assert.notEqual(r2.requestState, r1.requestState);
    const r3 = await client.request(
      'tools/call',
      call(name, { inputResponses: { step2: accept({ color: 'blue' }) }, requestState: r2.requestState }),
    );
    assert.equal(r3.resultType, 'complete');
    assert.deepEqual(r3.content, [{ type: 'text', text: 'Alice likes blue' }]);
    await client.close();
  });

  test('a tampered requestState is -32602', async () => {
    const client = await startClient({ plugins: [conformancePlugin], wire: '2026' });
    const name = 'test_input_required_result_tampered_state';
    const r1 = await client.request('tools/call', call(name));
    const sealed = String(r1.requestState);
    const inputResponses = { user_name: accept({ name: 'Alice' }) };
    const dot = sealed.indexOf('.');
    // Change the sealed body (not only the signature): the MAC must catch it.
    const flipped = `${sealed.slice(0, dot - 1)}${sealed[dot - 1] === 'A' ? 'B' : 'A'}${sealed.slice(dot)}`;
    for (const requestState of [`${sealed}-TAMPERED`, flipped, 'not-a-state', 42]) {
      await assert.rejects(
        client.request('tools/call', call(name, { inputResponses, requestState })),
        invalidParams,
      );
    }
    const ok = await client.request('tools/call', call(name, { inputResponses, requestState: sealed }));
    assert.equal(ok.resultType, 'complete');
    await client.close();
  });

  test('an expired requestState is -32602 (fake clock)', async () => {
    let now = 1_000_000;
    const settings = parseSettings({ MCP_LOG_LEVEL: 'silent' });
    const server = await buildMcpServer({
      settings,
      logger: pino({ level: 'silent' }),
      plugins: [{ definition: conformancePlugin as never, settings: {} }],
      stateCodec: createStateCodec({ ttlMs: 60_000, now: () => now }),
    });
    const client = await startClient({ server: handleOf(server), wire: '2026' });
    const name = 'test_input_required_result_request_state';
    const r1 = await client.request('tools/call', call(name));
    const retry = () =>
      client.request(
        'tools/call',
        call(name, { inputResponses: { confirm: accept({ ok: true }) }, requestState: r1.requestState }),
      );
    now += 59_999;
    const inTime = await retry();
    assert.match(String((inTime.content as JsonObject[])[0]?.text), /state-ok/);
    now += 2;
    await assert.rejects(retry(), invalidParams);
    await client.close();
    await server.close();
  });

  test('a requestState issued for one tool is refused by another', async () => {
    const client = await startClient({ plugins: [conformancePlugin], wire: '2026' });
    const r1 = await client.request('tools/call', call('test_input_required_result_tampered_state'));
    await assert.rejects(
      client.request(
        'tools/call',
        call('test_input_required_result_elicitation', {
          inputResponses: { user_name: accept({ name: 'Alice' }) },
          requestState: r1.requestState,
        }),
      ),
      invalidParams,
    );
    await client.close();
  });

  test('a missing capability is -32021 with requiredCapabilities as an object', async () => {
    const client = await startClient({ plugins: [conformancePlugin], wire: '2026', capabilities: {} });
    await assert.rejects(
      client.request('tools/call', call('test_missing_capability')),
      (e: TestClientError) => {
        assert.equal(e.code, ErrorCode.MissingRequiredClientCapability);
        assert.deepEqual((e.data as JsonObject).requiredCapabilities, { sampling: {} });
        return true;
      },
    );
    await client.close();
  });

  test('missing, foreign or malformed answers are asked again, never completed', async () => {
    const client = await startClient({ plugins: [conformancePlugin], wire: '2026' });
    const name = 'test_input_required_result_elicitation';
    for (const inputResponses of [
      { wrong_key: accept({ name: 'Alice' }) },
      { user_name: 12345 },
      { user_name: { action: 'maybe' } },
      null,
    ]) {
      const result = await client.request('tools/call', call(name, { inputResponses }));
      assert.equal(result.resultType, 'input_required', JSON.stringify(inputResponses));
      assert.deepEqual(Object.keys(result.inputRequests as JsonObject), ['user_name']);
    }
    const extra = await client.request(
      'tools/call',
      call(name, { inputResponses: { user_name: accept({ name: 'Alice' }), other: accept({}) } }),
    );
    assert.deepEqual(extra.content, [{ type: 'text', text: 'Hello, Alice!' }]);
    await client.close();
  });

  test('one round may mix elicitation, sampling and roots; prompts ask too', async () => {
    const client = await startClient({
      plugins: [conformancePlugin],
      wire: '2026',
      onElicit: () => accept({ name: 'Alice', context: 'tests' }),
      onSample: () => ({ role: 'assistant', content: { type: 'text', text: 'Hi' }, model: 'm' }),
      onRoots: () => ({ roots: [{ uri: 'file:///tmp/root', name: 'root' }] }),
    });
    const r1 = await client.request('tools/call', call('test_input_required_result_multiple_inputs'));
    const methods = Object.values(r1.inputRequests as Record<string, { method: string }>).map(
      (r) => r.method,
    );
    assert.deepEqual(methods.sort(), ['elicitation/create', 'roots/list', 'sampling/createMessage']);
    const text = await client.callText('test_input_required_result_multiple_inputs');
    assert.equal(text, 'name=Alice, greeting=Hi, roots=file:///tmp/root');
    const prompt = await client.getPrompt('test_input_required_result_prompt');
    assert.equal(prompt.resultType, 'complete');
    assert.ok(Array.isArray(prompt.messages));
    await client.close();
  });

  test('list methods never answer input_required', async () => {
    const client = await startClient({ plugins: [conformancePlugin], wire: '2026' });
    for (const method of ['tools/list', 'prompts/list', 'resources/list']) {
      assert.equal((await client.request(method)).resultType, 'complete');
    }
    await client.close();
  });
});

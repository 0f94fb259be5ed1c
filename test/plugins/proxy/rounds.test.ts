/**
 * The upstream's requests to the client as our input rounds, in-process (TestClient, every
 * message checked against the spec schema), with the everything server as the upstream: on
 * the 2026 wire an elicitation is an `input_required` result whose retry answers the upstream;
 * a retry without the answer is asked again; two retries at once both get the result; a held call not answered within
 * MCP_PROXY_INPUT_TIMEOUT_MS is given up (its retry is a tool error, and the next call is
 * routed again); on the 2025 wire a roots/list reaches our client as a request, and an
 * error answer ends the call and the upstream's. The upstream's log messages during a call
 * are the call's log.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { JsonObject } from '@mcp-toolkit/server';
import proxy from '../../../plugins/proxy/index.ts';
import { type CheckedClient, startClient } from '../../helpers/client.ts';
import { until } from '../../helpers/until.ts';
import { everythingUpstream } from './helpers.ts';

const ELICIT = 'trigger-elicitation-request';
const accept = { action: 'accept', content: { name: 'Grace' } };
const text = (r: JsonObject) =>
  ((r.content as { text?: string }[]) ?? []).map((c) => c.text ?? '').join('\n');

describe('2026 wire: an upstream elicitation is an input round', () => {
  let client: CheckedClient;
  before(async () => {
    client = await startClient({
      plugins: [proxy],
      wire: '2026',
      env: { ...everythingUpstream(), MCP_PROXY_INPUT_TIMEOUT_MS: '1500', MCP_TOOL_TIMEOUT_MS: '5000' },
      // No roots: the everything server's own roots/list soon after it starts is not ours to answer.
      capabilities: { elicitation: {}, sampling: {} },
      onElicit: () => accept,
    });
  });
  after(() => client?.close());

  test('input_required, then the retry with the answer completes the upstream call', async () => {
    const r1 = await client.request('tools/call', { name: ELICIT, arguments: {} });
    assert.equal(r1.resultType, 'input_required', JSON.stringify(r1));
    const requests = r1.inputRequests as Record<string, { method: string; params: JsonObject }>;
    const [key, request] = Object.entries(requests)[0] ?? [];
    assert.equal(request?.method, 'elicitation/create');
    assert.equal(request?.params.message, 'Please provide inputs for the following fields:');
    // A retry without the answer is asked the same again.
    const again = await client.request('tools/call', {
      name: ELICIT,
      arguments: {},
      inputResponses: {},
      requestState: r1.requestState,
    });
    assert.equal(again.resultType, 'input_required');
    assert.deepEqual(Object.keys(again.inputRequests as JsonObject), [key]);
    const r2 = await client.request('tools/call', {
      name: ELICIT,
      arguments: {},
      inputResponses: { [key as string]: accept },
      requestState: again.requestState,
    });
    assert.equal(r2.resultType, 'complete', JSON.stringify(r2));
    assert.match(text(r2), /Name: Grace/);
  });

  test('two retries of one round at once both get the result', async () => {
    const r1 = await client.request('tools/call', { name: ELICIT, arguments: {} });
    const key = Object.keys(r1.inputRequests as JsonObject)[0] as string;
    const retry = () =>
      client.request('tools/call', {
        name: ELICIT,
        arguments: {},
        inputResponses: { [key]: accept },
        requestState: r1.requestState,
      });
    const both = await Promise.all([retry(), retry()]);
    for (const r of both) assert.match(text(r), /Name: Grace/, JSON.stringify(r));
  });

  test('a held call not answered in time is given up: its retry is a tool error, and the next call is routed again', async () => {
    const r1 = await client.request('tools/call', { name: ELICIT, arguments: {} });
    assert.equal(r1.resultType, 'input_required');
    const key = Object.keys(r1.inputRequests as JsonObject)[0] as string;
    // While r1's call is held, a second call's elicitation cannot be told apart from it (the
    // upstream refuses to go on without an answer); once r1's is given up, it is routed.
    const fresh = await until(
      async () => {
        const r = await client.request('tools/call', { name: ELICIT, arguments: {} });
        return r.resultType === 'input_required' ? r : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 50, message: 'the held call to be given up' },
    );
    const late = await client.request('tools/call', {
      name: ELICIT,
      arguments: {},
      inputResponses: { [key]: accept },
      requestState: r1.requestState,
    });
    assert.equal(late.isError, true, JSON.stringify(late));
    assert.match(text(late), /no longer held/);
    const freshKey = Object.keys(fresh?.inputRequests as JsonObject)[0] as string;
    const done = await client.request('tools/call', {
      name: ELICIT,
      arguments: {},
      inputResponses: { [freshKey]: accept },
      requestState: fresh?.requestState,
    });
    assert.match(text(done), /Name: Grace/);
  });
});

describe('2025 wire: roots, an error answer, logs', () => {
  let client: CheckedClient;
  let elicit: () => unknown = () => accept;
  before(async () => {
    client = await startClient({
      plugins: [proxy],
      env: everythingUpstream(),
      onRoots: () => ({ roots: [{ uri: 'file:///work/project', name: 'project' }] }),
      onElicit: () => elicit(),
    });
  });
  after(() => client?.close());

  test('an error answer from our client ends the call with a tool error, and the upstream call with it', async () => {
    elicit = () => {
      throw new Error('the user closed the dialog');
    };
    const failed = await client.callTool(ELICIT);
    assert.equal(failed.isError, true, JSON.stringify(failed));
    // Were the upstream call still held, the next call's elicitation could not be routed.
    elicit = () => accept;
    assert.match(await client.callText(ELICIT), /Name: Grace/);
  });

  test("the upstream's roots/list during a call is answered by our client", async () => {
    const listed = await client.callText('get-roots-list');
    assert.match(listed, /file:\/\/\/work\/project/);
  });

  test("the upstream's log message during a call is the call's log", async () => {
    const seen = client.notifications.length;
    try {
      const started = await client.callText('toggle-simulated-logging');
      assert.match(started, /Started simulated/);
      const logs = client.notifications
        .slice(seen)
        .filter((n) => n.method === 'notifications/message')
        .map((n) => n.params as { level: string; data: unknown });
      assert.ok(logs.length >= 1, JSON.stringify(client.notifications.slice(seen)));
      assert.match(String(logs[0]?.data), /-level message|level-message/);
    } finally {
      assert.match(await client.callText('toggle-simulated-logging'), /Stopped simulated/);
    }
  });
});

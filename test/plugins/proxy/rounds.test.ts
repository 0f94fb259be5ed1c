/**
 * The upstream's requests to the client as our input rounds, in-process (TestClient, every
 * message checked against the spec schema), with the everything server as the upstream: on
 * the 2026 wire an elicitation is an `input_required` result whose retry answers the upstream;
 * a retry without the answer is asked again; two retries at once both get the result; a held
 * call not answered within MCP_PROXY_INPUT_TIMEOUT_MS is given up (logged, and its retry is a
 * tool error). An abandoned round does not hold up another caller's elicitation, and held calls
 * are bounded per client and overall: the caller past a bound gets a tool error naming it, the
 * others go on. On the 2025 wire a roots/list reaches our client as a request, and an error
 * answer ends the call and the upstream's. The upstream's log messages during a call are the
 * call's log.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { JsonObject, RunningServer } from '@mcp-toolkit/server';
import { pino } from 'pino';
import proxy from '../../../plugins/proxy/index.ts';
import { type CheckedClient, startClient, startServer } from '../../helpers/client.ts';
import { until } from '../../helpers/until.ts';
import { everythingUpstream } from './helpers.ts';

const ELICIT = 'trigger-elicitation-request';
const accept = { action: 'accept', content: { name: 'Grace' } };
const text = (r: JsonObject) =>
  ((r.content as { text?: string }[]) ?? []).map((c) => c.text ?? '').join('\n');

describe('2026 wire: an upstream elicitation is an input round', () => {
  let server: RunningServer;
  let client: CheckedClient;
  const logged: Record<string, unknown>[] = [];
  before(async () => {
    server = await startServer({
      plugins: [proxy],
      settings: { ...everythingUpstream(), MCP_PROXY_INPUT_TIMEOUT_MS: '1500', MCP_TOOL_TIMEOUT_MS: '5000' },
      logger: pino({ level: 'info' }, { write: (line: string) => logged.push(JSON.parse(line)) }),
    });
    client = await startClient({
      server,
      wire: '2026',
      // No roots: the everything server's own roots/list soon after it starts is not ours to answer.
      capabilities: { elicitation: {}, sampling: {} },
      onElicit: () => accept,
    });
  });
  after(async () => {
    await client?.close();
    await server?.close();
  });

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

  test('a held call not answered in time is given up: logged, and its retry is a tool error', async () => {
    const givenUp = () =>
      logged.filter((l) => String(l.msg).startsWith('upstream tool call given up')).length;
    const before = givenUp();
    const r1 = await client.request('tools/call', { name: ELICIT, arguments: {} });
    assert.equal(r1.resultType, 'input_required');
    const key = Object.keys(r1.inputRequests as JsonObject)[0] as string;
    await until(() => givenUp() > before, {
      timeoutMs: 20_000,
      message: 'the held call was never given up after MCP_PROXY_INPUT_TIMEOUT_MS',
    });
    const late = await client.request('tools/call', {
      name: ELICIT,
      arguments: {},
      inputResponses: { [key]: accept },
      requestState: r1.requestState,
    });
    assert.equal(late.isError, true, JSON.stringify(late));
    assert.match(text(late), /no longer held/);
  });
});

/** One round of ELICIT answered: the retry of `round` with the elicitation accepted. */
async function answer(client: CheckedClient, round: JsonObject): Promise<JsonObject> {
  const key = Object.keys(round.inputRequests as JsonObject)[0] as string;
  return client.request('tools/call', {
    name: ELICIT,
    arguments: {},
    inputResponses: { [key]: accept },
    requestState: round.requestState,
  });
}

describe('2026 wire: an abandoned round holds no one up, and held calls are bounded', () => {
  let server: RunningServer;
  const clients: CheckedClient[] = [];
  /** A caller of its own (an authenticated client id). */
  const caller = async (clientId: string) => {
    const client = await startClient({
      server,
      wire: '2026',
      identity: { clientId, scopes: [] },
      capabilities: { elicitation: {} },
      onElicit: () => accept,
    });
    clients.push(client);
    return client;
  };
  /** A call of `client` that the upstream holds for an answer. */
  const park = async (client: CheckedClient) => {
    const r = await client.request('tools/call', { name: ELICIT, arguments: {} });
    assert.equal(r.resultType, 'input_required', JSON.stringify(r));
    return r;
  };
  before(async () => {
    server = await startServer({
      plugins: [proxy],
      settings: {
        ...everythingUpstream(),
        // Long enough that nothing is given up during the test: what is held stays held.
        MCP_PROXY_INPUT_TIMEOUT_MS: '600000',
        MCP_TOOL_TIMEOUT_MS: '60000',
        MCP_PROXY_MAX_PARKED_PER_CLIENT: '2',
        MCP_PROXY_MAX_PARKED: '4',
      },
    });
  });
  after(async () => {
    for (const c of clients) await c.close();
    await server?.close();
  });

  test("another caller's elicitation is routed while an abandoned round is held", async () => {
    const alice = await caller('alice');
    const bob = await caller('bob');
    const abandoned = await park(alice);
    // Refused before (two calls in flight, the request names neither): bob's call asks at once.
    const asked = await park(bob);
    assert.match(text(await answer(bob, asked)), /Name: Grace/);
    // Alice's call was held all along: her late answer completes it.
    assert.match(text(await answer(alice, abandoned)), /Name: Grace/);
  });

  test('a caller past MCP_PROXY_MAX_PARKED_PER_CLIENT gets a tool error; the others go on', async () => {
    const carol = await caller('carol');
    const dave = await caller('dave');
    const held = [await park(carol), await park(carol)];
    const third = await carol.request('tools/call', { name: ELICIT, arguments: {} });
    assert.equal(third.isError, true, JSON.stringify(third));
    assert.match(text(third), /MCP_PROXY_MAX_PARKED_PER_CLIENT=2/);
    assert.equal(third.requestState, undefined);
    // Dave is not carol: his calls are held.
    const daves = [await park(dave), await park(dave)];
    // Four held in all: the server's bound refuses a fifth, whoever asks.
    const erin = await caller('erin');
    const fifth = await erin.request('tools/call', { name: ELICIT, arguments: {} });
    assert.equal(fifth.isError, true, JSON.stringify(fifth));
    assert.match(text(fifth), /MCP_PROXY_MAX_PARKED=4/);
    // Answered calls are let go, and make room.
    for (const r of held) assert.match(text(await answer(carol, r)), /Name: Grace/);
    assert.match(text(await answer(erin, await park(erin))), /Name: Grace/);
    for (const r of daves) assert.match(text(await answer(dave, r)), /Name: Grace/);
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

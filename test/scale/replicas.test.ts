/**
 * Any replica serves any request (docs/deployment.md, "Scaling out"): two real replicas of the CLI share
 * one real `redis-server` and `MCP_STATE_SECRET`, behind a round-robin proxy with no
 * affinity. The official v1 SDK client and raw HTTP show that sessions, server-to-client
 * answers, resumable streams, list changes, resource updates and 2026 input rounds all work
 * whichever replica each request reaches.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { post2026, type SseEvent, SseReader } from '../conformance/http-fixture.ts';
import { openSession, post, textOf, V2025, V2026 } from '../e2e/batteries/helpers.ts';
import { type Cluster, readyz, startCluster } from './cluster.ts';
import { postGatedCall, sessionHeaders } from './streams.ts';

let cluster: Cluster;
let dir: string;
before(async () => {
  cluster = await startCluster();
  dir = await mkdtemp(path.join(tmpdir(), 'mcp-scale-'));
});
after(async () => {
  await cluster?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const INFO = { name: 'scale-test', version: '1.0.0' };

function replicaUrl(i: number): string {
  return (cluster.replicas[i] as { url: string }).url;
}

/** Proxy log entries of JSON-RPC messages matching `pick`. */
function served(pick: (body: Record<string, unknown>) => boolean) {
  return cluster.proxy.log.filter(
    (e) => typeof e.body === 'object' && e.body !== null && pick(e.body as Record<string, unknown>),
  );
}

/** POSTs go to the replicas in turn among themselves (a GET stream opening meanwhile cannot shift them). */
function alternatePosts(): void {
  let posts = 0;
  cluster.proxy.route = (r) => (r.method === 'POST' ? posts++ % 2 : undefined);
}

function getStream(url: string, session: string, lastEventId?: string, signal?: AbortSignal) {
  const headers: Record<string, string> = { accept: 'text/event-stream', ...sessionHeaders(session) };
  if (lastEventId) headers['last-event-id'] = lastEventId;
  return fetch(url, { headers, signal });
}

/** Reads events until one matches, failing after `timeoutMs`. */
async function nextMatching(
  reader: SseReader,
  match: (e: SseEvent) => boolean,
  timeoutMs = 10_000,
): Promise<SseEvent> {
  const timeout = new Promise<never>((_, reject) => {
    const t = setTimeout(() => reject(new Error(`no matching event within ${timeoutMs} ms`)), timeoutMs);
    t.unref();
  });
  const read = (async () => {
    for (;;) {
      const e = await reader.next();
      if (e === undefined) throw new Error('the stream ended before a matching event');
      if (match(e)) return e;
    }
  })();
  return Promise.race([read, timeout]);
}

describe('two replicas behind a round-robin proxy', () => {
  test('both replicas are ready and report the shared state', async () => {
    for (const replica of cluster.replicas) {
      const r = await readyz(replica);
      assert.equal(r.status, 200);
      assert.equal(r.body.status, 'ready');
      assert.deepEqual(r.body.checks.sharedState, { ok: true });
    }
  });

  test('the v1 SDK client initialises, lists and calls tools, and ends its session across replicas', async () => {
    cluster.proxy.route = undefined;
    const transport = new StreamableHTTPClientTransport(new URL(cluster.url));
    const client = new Client(INFO);
    await client.connect(transport);
    try {
      const tools = await client.listTools();
      assert.ok(tools.tools.some((t) => t.name === 'whoami'));
      const pids = new Set<string>();
      for (let i = 0; i < 4; i++)
        pids.add(textOf(await client.callTool({ name: 'whoami', arguments: {} })) ?? '');
      assert.equal(pids.size, 2, 'calls of one session were served by both replicas');
      const session = transport.sessionId;
      assert.ok(session);
      const posts = cluster.proxy.log.filter((e) => e.headers['mcp-session-id'] === session);
      assert.deepEqual(new Set(posts.map((e) => e.upstream)), new Set([0, 1]));

      await transport.terminateSession();
      const deleted = cluster.proxy.log.find(
        (e) => e.method === 'DELETE' && e.headers['mcp-session-id'] === session,
      );
      assert.equal(deleted?.status, 200);
      // Gone on every replica, whichever took the DELETE.
      for (const i of [0, 1]) {
        const reply = await post(
          replicaUrl(i),
          { jsonrpc: '2.0', id: 1, method: 'tools/list' },
          sessionHeaders(session),
        );
        assert.equal(reply.status, 404, `replica ${i}`);
      }
    } finally {
      await client.close();
    }
  });

  test('2025 wire: elicitation and sampling go out on one replica, the answers land on the other', async () => {
    alternatePosts();
    const client = new Client(INFO, { capabilities: { elicitation: {}, sampling: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { username: 'ada', email: 'ada@example.com' },
    }));
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant',
      content: { type: 'text', text: 'sampled on the other side' },
      model: 'test-model',
    }));
    const transport = new StreamableHTTPClientTransport(new URL(cluster.url));
    await client.connect(transport);
    try {
      const elicited = await client.callTool({
        name: 'test_elicitation',
        arguments: { message: 'Who are you?' },
      });
      assert.equal(
        textOf(elicited),
        'User response: action=accept, content={"username":"ada","email":"ada@example.com"}',
      );
      const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Hi' } });
      assert.equal(textOf(sampled), 'LLM response: sampled on the other side');

      for (const tool of ['test_elicitation', 'test_sampling']) {
        const call = served(
          (b) => b.method === 'tools/call' && (b.params as { name?: string }).name === tool,
        ).at(-1);
        assert.ok(call);
        const index = cluster.proxy.log.indexOf(call);
        const answer = cluster.proxy.log
          .slice(index + 1)
          .find((e) => typeof e.body === 'object' && e.body !== null && 'result' in (e.body as object));
        assert.ok(answer, `the client's answer for ${tool} was posted`);
        assert.notEqual(answer.upstream, call.upstream, `${tool}: the answer reached the other replica`);
        // The proxy logs a status when the upstream's reply completes, which may come after the
        // result the answer unblocked has reached the client: wait for it, boundedly.
        for (let i = 0; i < 100 && answer.status === undefined; i++)
          await new Promise((r) => setTimeout(r, 20));
        assert.equal(answer.status, 202);
      }
    } finally {
      cluster.proxy.route = undefined;
      await client.close();
    }
  });

  test('the v1 SDK client resumes a dropped call stream on the other replica (Last-Event-ID)', async () => {
    let callUpstream: number | undefined;
    let posts = 0;
    cluster.proxy.route = (r) => {
      if (r.method === 'POST') {
        const index = posts++ % 2;
        const body = r.body as { method?: string; params?: { name?: string } } | undefined;
        if (body?.params?.name === 'test_reconnection') callUpstream = index;
        return index;
      }
      if (r.method === 'GET' && r.headers['last-event-id'] && callUpstream !== undefined)
        return 1 - callUpstream;
      return undefined;
    };
    // Only this test's requests: earlier tests' resumed streams went to other replicas.
    const logged = cluster.proxy.log.length;
    const client = new Client(INFO);
    const transport = new StreamableHTTPClientTransport(new URL(cluster.url));
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: 'test_reconnection', arguments: {} });
      assert.match(textOf(result) ?? '', /^Reconnection test completed/);
      const resumed = cluster.proxy.log
        .slice(logged)
        .filter((e) => e.method === 'GET' && e.headers['last-event-id']);
      assert.ok(resumed.length >= 1, 'the client reconnected with Last-Event-ID');
      assert.ok(
        resumed.every((e) => e.upstream !== callUpstream && e.status === 200),
        JSON.stringify({ callUpstream, resumed: resumed.map((e) => [e.upstream, e.status]) }),
      );
    } finally {
      cluster.proxy.route = undefined;
      await client.close();
    }
  });

  test('a cancellation that reaches replica B aborts the call running on A', async () => {
    const [a, b] = [replicaUrl(0), replicaUrl(1)];
    const session = await openSession(a);
    // The gate never opens: without the cancellation the call would wait 20 s.
    const gate = path.join(dir, 'gate-never');
    const stop = new AbortController();
    const started = Date.now();
    const res = await postGatedCall(a, session, gate, stop.signal);
    const stream = new SseReader(res, V2025, 'tools/call');
    const progress1 = await nextMatching(stream, (e) => e.message?.method === 'notifications/progress');
    assert.ok(progress1, 'the call is running on A');

    const cancel = await post(
      b,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'user' } },
      sessionHeaders(session),
    );
    assert.equal(cancel.status, 202);
    const answer = await nextMatching(stream, (e) => e.message !== undefined && 'error' in e.message);
    const error = (answer.message as { error: { code: number; message: string } }).error;
    assert.equal(error.code, -32603);
    assert.match(error.message, /cancel/);
    assert.ok(Date.now() - started < 10_000, 'aborted by the relayed cancellation, not by the gate');
    await stream.cancel();
  });

  test('raw SSE: a call running on A, dropped and resumed on B, delivers the rest exactly once', async () => {
    const [a, b] = [replicaUrl(0), replicaUrl(1)];
    const session = await openSession(a);
    const gate = path.join(dir, 'gate-1');
    const dropped = new AbortController();
    const res = await postGatedCall(a, session, gate, dropped.signal);
    const first = new SseReader(res, V2025, 'tools/call');
    const priming = await first.next();
    assert.ok(priming?.id);
    const progress1 = await first.next();
    assert.equal(progress1?.message?.method, 'notifications/progress');
    assert.ok(progress1.id);
    dropped.abort();
    await first.cancel();

    // Resume on B while the call still waits at its gate on A.
    const resumed = await getStream(b, session, progress1.id);
    assert.equal(resumed.status, 200);
    const rest = new SseReader(resumed, V2025, 'tools/call');
    await writeFile(gate, '');
    const events = await rest.rest();
    const all = [priming, progress1, ...events];
    const ids = all.map((e) => e.id);
    assert.equal(new Set(ids).size, ids.length, `no event twice: ${ids.join(', ')}`);
    const messages = all.flatMap((e) => (e.message ? [e.message] : []));
    const progress = messages
      .filter((m) => m.method === 'notifications/progress')
      .map((m) => (m.params as { progress: number }).progress);
    assert.deepEqual(progress, [1, 2, 3]);
    const results = messages.filter((m) => 'result' in m);
    assert.equal(results.length, 1, 'the final result arrives once');
    assert.equal(messages.at(-1), results[0], 'the result comes last');
    const pidA = cluster.replicas[0]?.child.pid;
    assert.equal(textOf(results[0]?.result), `stepped on ${pidA}`, 'the call ran on A throughout');

    // After the end, a late reconnect on either replica replays the stored rest and ends.
    for (const url of [a, b]) {
      const late = await getStream(url, session, priming.id);
      const replay = await new SseReader(late, V2025, 'tools/call').rest();
      assert.deepEqual(
        replay.map((e) => e.id),
        [progress1.id, ...events.map((e) => e.id)],
      );
    }
  });

  test('2025 sessions: state set on one replica holds on the other; notifications reach the GET stream', async () => {
    const [a, b] = [replicaUrl(0), replicaUrl(1)];
    const session = await openSession(a);
    const stream = new AbortController();
    const get = await getStream(a, session, undefined, stream.signal);
    assert.equal(get.status, 200);
    const reader = new SseReader(get, V2025);
    try {
      const sub = await post(
        b,
        { jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: 'test://watched-resource' } },
        sessionHeaders(session),
      );
      assert.equal(sub.status, 200);
      // Announced on B; A holds the stream and finds the subscription B saved.
      const touched = await post(
        b,
        {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'touch_resource', arguments: { uri: 'test://watched-resource' } },
        },
        sessionHeaders(session),
      );
      assert.match(textOf((touched.body as { result: unknown }).result) ?? '', /^announced/);
      const updated = await nextMatching(
        reader,
        (e) => e.message?.method === 'notifications/resources/updated',
      );
      assert.deepEqual(updated.message?.params, { uri: 'test://watched-resource' });

      await post(
        b,
        {
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/call',
          params: { name: 'test_trigger_prompt_change', arguments: {} },
        },
        sessionHeaders(session),
      );
      await nextMatching(reader, (e) => e.message?.method === 'notifications/prompts/list_changed');

      // A log level set through A silences logging on B.
      const level = await post(
        a,
        { jsonrpc: '2.0', id: 4, method: 'logging/setLevel', params: { level: 'error' } },
        sessionHeaders(session),
      );
      assert.equal(level.status, 200);
      const res = await fetch(b, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...sessionHeaders(session),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 5,
          method: 'tools/call',
          params: { name: 'test_tool_with_logging', arguments: {} },
        }),
      });
      const text = await res.text();
      assert.match(text, /Tool with logging executed successfully/);
      assert.doesNotMatch(text, /notifications\/message/);
    } finally {
      stream.abort();
      await reader.cancel();
    }
  });

  test('2026 wire: a subscriptions/listen stream on A receives the list change triggered through B', async () => {
    const [a, b] = [replicaUrl(0), replicaUrl(1)];
    const stop = new AbortController();
    const res = await post2026(
      a,
      'listen-1',
      'subscriptions/listen',
      { notifications: { toolsListChanged: true } },
      { signal: stop.signal },
    );
    assert.equal(res.status, 200);
    const reader = new SseReader(res, V2026, 'subscriptions/listen');
    try {
      await nextMatching(reader, (e) => e.message?.method === 'notifications/subscriptions/acknowledged');
      const trigger = await post2026(b, 1, 'tools/call', { name: 'test_trigger_tool_change', arguments: {} });
      assert.equal(trigger.status, 200);
      await trigger.text();
      const changed = await nextMatching(
        reader,
        (e) => e.message?.method === 'notifications/tools/list_changed',
      );
      const meta = (changed.message?.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
      assert.equal(meta?.['io.modelcontextprotocol/subscriptionId'], 'listen-1');
    } finally {
      stop.abort();
      await reader.cancel();
    }
  });

  test('2026 wire: an input-required round started on A completes on B (shared MCP_STATE_SECRET)', async () => {
    const [a, b] = [replicaUrl(0), replicaUrl(1)];
    const first = await post2026(a, 1, 'tools/call', { name: 'ask_name', arguments: {} });
    assert.equal(first.status, 200);
    const round = ((await first.json()) as { result: Record<string, unknown> }).result;
    assert.equal(round.resultType, 'input_required');
    assert.equal(typeof round.requestState, 'string');
    const second = await post2026(b, 2, 'tools/call', {
      name: 'ask_name',
      arguments: {},
      requestState: round.requestState,
      inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
    });
    assert.equal(second.status, 200);
    const done = ((await second.json()) as { result: Record<string, unknown> }).result;
    assert.equal(done.resultType, 'complete');
    assert.equal(textOf(done), 'Hello, Ada (state {"round":1})');
  });
});

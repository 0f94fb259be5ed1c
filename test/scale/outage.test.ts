/**
 * Redis stopped and restarted under two replicas (docs/deployment.md, "Scaling out",
 * outage table): while it is away, 2025-wire session requests answer 503 with -32039 and
 * Retry-After, a running call's stream keeps flowing live (without event ids), the 2026 wire
 * is unaffected and /readyz says what is degraded; once it is back, both replicas are ready
 * and reach each other again. Redis here keeps no data across the restart (no persistence),
 * so sessions opened before it are gone (404) and clients initialise again.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ErrorCode } from '../../src/base/errors.ts';
import { post2026, type SseEvent, SseReader } from '../conformance/http-fixture.ts';
import { callTool2026, openSession, post, rpcError, V2025, V2026 } from '../e2e/batteries/helpers.ts';
import { type Cluster, readyz, startCluster, until } from './cluster.ts';
import { postGatedCall, sessionHeaders } from './streams.ts';

let cluster: Cluster;
let dir: string;
before(async () => {
  cluster = await startCluster();
  dir = await mkdtemp(path.join(tmpdir(), 'mcp-outage-'));
});
after(async () => {
  await cluster?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const url = (i: number) => (cluster.replicas[i] as { url: string }).url;
const INIT = {
  jsonrpc: '2.0',
  id: 'init-1',
  method: 'initialize',
  params: { protocolVersion: V2025, capabilities: {}, clientInfo: { name: 'outage', version: '1' } },
};

function assertUnavailable(reply: { status: number; headers: Headers; body: unknown }, id: unknown = null) {
  assert.equal(reply.status, 503, JSON.stringify(reply.body));
  assert.equal(rpcError(reply.body)?.code, ErrorCode.ServiceUnavailable);
  assert.equal((reply.body as { id: unknown }).id, id);
  assert.equal(reply.headers.get('retry-after'), '1');
}

describe('Redis outage under two replicas', () => {
  let session: string;
  let live: { reader: SseReader; seen: SseEvent[]; gate: string } | undefined;

  before(async () => {
    session = await openSession(url(0));
    // A call that is running on A when Redis goes away.
    const gate = path.join(dir, 'gate');
    const res = await postGatedCall(url(0), session, gate, undefined, 9);
    const reader = new SseReader(res, V2025, 'tools/call');
    const seen = [(await reader.next()) as SseEvent, (await reader.next()) as SseEvent];
    assert.equal(seen[1]?.message?.method, 'notifications/progress');
    live = { reader, seen, gate };
  });

  test('Redis away: 2025-wire sessions answer 503 (-32039, Retry-After); /readyz says degraded', async () => {
    await cluster.redis.stop();
    for (const replica of cluster.replicas) {
      await until(async () => (await readyz(replica)).body.status === 'degraded', 5000, 'the outage to show');
      const r = await readyz(replica);
      assert.equal(r.status, 200, 'still ready: every replica shares this Redis, and the 2026 wire works');
      assert.equal(r.body.checks.sharedState?.ok, true);
      assert.match(
        r.body.checks.sharedState?.detail ?? '',
        /Redis unreachable.*2025-wire sessions answer 503/,
      );
    }
    for (const i of [0, 1]) {
      assertUnavailable(await post(url(i), INIT), 'init-1');
      assertUnavailable(
        await post(url(i), { jsonrpc: '2.0', id: 5, method: 'tools/list' }, sessionHeaders(session)),
        5,
      );
      const resume = await fetch(url(i), {
        headers: {
          accept: 'text/event-stream',
          'last-event-id': live?.seen[1]?.id ?? '',
          ...sessionHeaders(session),
        },
      });
      assertUnavailable({ status: resume.status, headers: resume.headers, body: await resume.json() });
      const del = await fetch(url(i), { method: 'DELETE', headers: sessionHeaders(session) });
      assertUnavailable({ status: del.status, headers: del.headers, body: await del.json() });
    }
  });

  test('Redis away: the 2026 wire is unaffected', async () => {
    for (const i of [0, 1]) {
      const reply = await callTool2026(url(i), 1, 'echo', { text: 'still here' });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.equal(
        (reply.body as { result: { content: { text: string }[] } }).result.content[0]?.text,
        'still here',
      );
    }
  });

  test('Redis away: a running call keeps streaming live; its later events carry no id', async () => {
    assert.ok(live);
    await writeFile(live.gate, '');
    const rest = await live.reader.rest();
    const messages = rest.flatMap((e) => (e.message ? [e] : []));
    assert.deepEqual(
      messages.map((e) => e.message?.method ?? 'result'),
      ['notifications/progress', 'notifications/progress', 'result'],
    );
    assert.ok(
      messages.every((e) => e.id === undefined),
      'events Redis could not store are not resumable',
    );
  });

  test('Redis back: both replicas are ready, new sessions work across replicas, old ones are gone', async () => {
    await cluster.redis.restart();
    for (const replica of cluster.replicas) {
      await until(
        async () => (await readyz(replica)).body.status === 'ready',
        15_000,
        'the replicas to reconnect',
      );
      assert.deepEqual((await readyz(replica)).body.checks.sharedState, { ok: true });
    }
    // Redis kept no data (no persistence): the old session is unknown, as after expiry.
    const stale = await post(
      url(1),
      { jsonrpc: '2.0', id: 6, method: 'tools/list' },
      sessionHeaders(session),
    );
    assert.equal(stale.status, 404);
    assert.equal(rpcError(stale.body)?.code, ErrorCode.SessionNotFound);

    const fresh = await openSession(url(0));
    const listed = await post(url(1), { jsonrpc: '2.0', id: 7, method: 'tools/list' }, sessionHeaders(fresh));
    assert.equal(listed.status, 200);
  });

  test('Redis back: replicas reach each other again (pub/sub re-subscribed)', async () => {
    const stop = new AbortController();
    const res = await post2026(
      url(0),
      'listen-after',
      'subscriptions/listen',
      { notifications: { promptsListChanged: true } },
      { signal: stop.signal },
    );
    const reader = new SseReader(res, V2026, 'subscriptions/listen');
    try {
      const ack = await reader.next();
      assert.equal(ack?.message?.method, 'notifications/subscriptions/acknowledged');
      const trigger = await post2026(url(1), 2, 'tools/call', {
        name: 'test_trigger_prompt_change',
        arguments: {},
      });
      await trigger.text();
      const changed = await reader.next();
      assert.equal(changed?.message?.method, 'notifications/prompts/list_changed');
    } finally {
      stop.abort();
      await reader.cancel();
    }
  });
});

/**
 * Two hubs (two replicas) relayed over a real Redis: a client's answer that reaches the wrong
 * replica still resolves the call waiting on the other, a message for a session reaches the
 * replica holding its stream, a cancellation reaches the replica running the request, and
 * announcements run once on every replica. Without a relay
 * (one replica) the hub behaves as before: nothing leaves the process.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Redis } from 'ioredis';
import { ClientAnswerError, ErrorCode } from '../../src/base/errors.ts';
import type { JsonRpcMessage, RequestId } from '../../src/base/jsonrpc.ts';
import type { OutboundChannel } from '../../src/protocol/hub/channel.ts';
import { Hub } from '../../src/protocol/hub/hub.ts';
import type { Announcement } from '../../src/protocol/hub/relay.ts';
import { createRedisClient } from '../../src/redis/client.ts';
import { createPubSub, createSubscriberClient, type PubSub } from '../../src/redis/pubsub.ts';
import { createHubRelay } from '../../src/scale/hub-relay.ts';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.ts';
import { until } from '../helpers/until.ts';

let redis: RedisServer;
const clients: Redis[] = [];
const pubsubs: PubSub[] = [];

interface Replica {
  hub: Hub;
  announced: Announcement[];
}

async function replica(id: string): Promise<Replica> {
  const command = createRedisClient(redis.url);
  await command.connect();
  clients.push(command);
  const pubsub = createPubSub(command, createSubscriberClient(redis.url));
  pubsubs.push(pubsub);
  const relay = createHubRelay({ pubsub, channel: 'test:hub', replicaId: id });
  const hub = new Hub({ relay, requestIdPrefix: `s2c-${id}-` });
  await relay.listen(hub);
  const announced: Announcement[] = [];
  hub.announcements.onAnnounce((a) => {
    announced.push(a);
  });
  return { hub, announced };
}

/** A channel that records what it is sent and resolves `next()` with the next message. */
function recorder(): OutboundChannel & { sent: JsonRpcMessage[]; next(): Promise<JsonRpcMessage> } {
  const sent: JsonRpcMessage[] = [];
  let waiting: ((m: JsonRpcMessage) => void) | undefined;
  return {
    sent,
    send(message) {
      sent.push(message);
      waiting?.(message);
      waiting = undefined;
    },
    next() {
      return new Promise((resolve) => {
        waiting = resolve;
      });
    },
  };
}

let a: Replica;
let b: Replica;
before(async () => {
  redis = await startRedisServer();
  a = await replica('a');
  b = await replica('b');
});
after(async () => {
  for (const p of pubsubs) await p.close();
  for (const c of clients) c.disconnect();
  await redis?.stop();
});

describe('the hub relayed between replicas', () => {
  test("a client's answer delivered on B resolves the call waiting on A", async () => {
    const channel = recorder();
    const asked = channel.next();
    const answer = a.hub.clientRequests.request(
      'session-1',
      channel,
      'elicitation/create',
      { message: 'Name?' },
      { timeoutMs: 5000 },
    );
    const request = (await asked) as { id: string };
    assert.match(request.id, /^s2c-a-\d+$/, 'ids name the replica, so no other call can take the answer');
    assert.equal(
      b.hub.clientRequests.deliver('session-1', {
        jsonrpc: '2.0',
        id: request.id,
        result: { action: 'accept' },
      }),
      false,
    );
    assert.deepEqual(await answer, { action: 'accept' });
  });

  test('an error answer on B rejects the call on A; an answer for another session is ignored', async () => {
    const channel = recorder();
    const asked = channel.next();
    const answer = a.hub.clientRequests.request(
      'session-2',
      channel,
      'sampling/createMessage',
      {},
      { timeoutMs: 5000 },
    );
    const request = (await asked) as { id: string };
    b.hub.clientRequests.deliver('other-session', {
      jsonrpc: '2.0',
      id: request.id,
      result: { wrong: true },
    });
    b.hub.clientRequests.deliver('session-2', {
      jsonrpc: '2.0',
      id: request.id,
      error: { code: ErrorCode.InvalidRequest, message: 'user declined' },
    });
    await assert.rejects(
      answer,
      (err) =>
        err instanceof ClientAnswerError &&
        err.code === ErrorCode.InvalidRequest &&
        /user declined/.test(err.message),
    );
  });

  test('a cancellation is handled where the request runs: here first, else on the other replica', async () => {
    const a = await replica('a4');
    const b = await replica('b4');
    const cancelledOnA: [string, RequestId][] = [];
    const cancelledOnB: [string, RequestId][] = [];
    a.hub.cancels.setCanceller((scope, id) => {
      cancelledOnA.push([scope, id]);
      return id === 'running-on-a';
    });
    b.hub.cancels.setCanceller((scope, id) => {
      cancelledOnB.push([scope, id]);
      return false;
    });
    // Running on A, cancelled through A: handled there, nothing relayed.
    a.hub.cancels.cancel('s1', 'running-on-a');
    // Running on A, cancelled through B: B finds nothing and relays it to A.
    b.hub.cancels.cancel('s1', 7);
    await until(() => cancelledOnA.length >= 2, { message: "B's relayed cancellation never reached A" });
    assert.deepEqual(cancelledOnA, [
      ['s1', 'running-on-a'],
      ['s1', 7],
    ]);
    // B tried locally once; A's local hit never reached B. A barrier A cannot handle goes over
    // the same channel after it: once B has it, anything A relayed before has arrived too.
    a.hub.cancels.cancel('s1', 'barrier');
    await until(() => cancelledOnB.length >= 2, { message: "A's relayed barrier never reached B" });
    assert.deepEqual(cancelledOnB, [
      ['s1', 7],
      ['s1', 'barrier'],
    ]);
  });

  test('a message for a session reaches the replica holding its stream', async () => {
    const stream = recorder();
    const detach = a.hub.sessionStreams.attach('session-3', stream);
    try {
      const arrived = stream.next();
      const message: JsonRpcMessage = {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: 'hi' },
      };
      assert.equal(b.hub.sessionStreams.send('session-3', message), true, 'handed to the other replicas');
      assert.deepEqual(await arrived, message);
    } finally {
      detach();
    }
  });

  test('an announcement runs once on every replica, at once where it was made', async () => {
    const before = { a: a.announced.length, b: b.announced.length };
    const made = b.hub.announcements.announce({ type: 'list_changed', kind: 'tools' });
    assert.equal(b.announced.length, before.b + 1, 'the announcing replica fans out synchronously');
    await made;
    await until(() => a.announced.length > before.a, { message: 'the announcement never reached A' });
    assert.deepEqual(a.announced.slice(before.a), [{ type: 'list_changed', kind: 'tools' }]);
    // A barrier from A, on the same channel after B's own: once B has it, B's echo (if it
    // were not ignored) would have arrived before it.
    await a.hub.announcements.announce({ type: 'list_changed', kind: 'prompts' });
    await until(() => b.announced.length >= before.b + 2, {
      message: "A's barrier announcement never reached B",
    });
    assert.deepEqual(
      b.announced.slice(before.b),
      [
        { type: 'list_changed', kind: 'tools' },
        { type: 'list_changed', kind: 'prompts' },
      ],
      'a replica ignores its own relayed announcement',
    );
  });
});

describe('the hub without a relay (one replica)', () => {
  test('nothing leaves: no stream means not sent, and answers nobody waits for are dropped', () => {
    const hub = new Hub();
    assert.equal(hub.sessionStreams.send('nobody', { jsonrpc: '2.0', method: 'x' }), false);
    assert.equal(hub.clientRequests.deliver('nobody', { jsonrpc: '2.0', id: 's2c-1', result: {} }), false);
  });

  test('server-to-client request ids keep their single-replica form', async () => {
    const hub = new Hub();
    const channel = recorder();
    const asked = channel.next();
    const answer = hub.clientRequests.request('s', channel, 'roots/list', {}, { timeoutMs: 5000 });
    const request = (await asked) as { id: string };
    assert.equal(request.id, 's2c-1');
    hub.clientRequests.deliver('s', { jsonrpc: '2.0', id: 's2c-1', result: { roots: [] } });
    assert.deepEqual(await answer, { roots: [] });
  });
});

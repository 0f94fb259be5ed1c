/**
 * The client through Sentinel follows a failover whatever moment it comes at
 * (src/redis/client.ts, `reconnectWhenAbandoned`). ioredis ends a client for good when the
 * failover detector of its previous connection disconnects it while a reconnect attempt is
 * asking a sentinel for the master: the replicas of a failover under load then never became
 * ready again. Here that moment is made with real processes: the client's connection is
 * killed, its reconnect waits on a frozen sentinel (SIGSTOP), a failover is forced through
 * another sentinel (whose +switch-master reaches the detector), then the frozen sentinel is
 * thawed. The client must end up connected to the new master.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { createRedisClient } from '../../src/redis/client.ts';
import { startRedisSentinelSet } from '../helpers/redis-topologies.ts';
import { until } from './cluster.ts';

const WAIT_MS = 60_000;

test('a reconnect abandoned by the failover detector mid-lookup: the client connects to the new master', async () => {
  const sentinels = await startRedisSentinelSet();
  const client = createRedisClient(sentinels.url);
  client.on('error', () => {}); // the failover under test
  const watcher = new Redis({ host: '127.0.0.1', port: sentinels.sentinelPorts[1], lazyConnect: true });
  try {
    const [first, second] = sentinels.sentinelPorts as [number, number];
    const subscribed = once(client, 'failoverSubscribed');
    await client.connect();
    await subscribed;
    await client.set('before', 'the failover');
    // What the detector hears, heard here too: +switch-master on the second sentinel.
    await watcher.connect();
    const switched = once(watcher, 'message');
    await watcher.subscribe('+switch-master');

    const master = await sentinels.master();
    // The next lookup asks the first sentinel (the one that answered last); it answers nothing.
    sentinels.pauseSentinel(first, true);
    const reconnecting = once(client, 'connecting');
    spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(master), 'CLIENT', 'KILL', 'TYPE', 'normal'], {
      timeout: 10_000,
    });
    await reconnecting;
    // The lookup is waiting on the frozen sentinel: the failover is announced meanwhile.
    const { now } = await sentinels.failover(second);
    await switched;
    sentinels.pauseSentinel(first, false);

    await until(() => client.status === 'ready', WAIT_MS, 'the client ready again (not left ended)');
    await client.set('after', 'the failover');
    assert.equal(await client.get('before'), 'the failover');
    const role = (await client.call('ROLE')) as unknown[];
    assert.equal(role[0], 'master');
    await until(async () => (await sentinels.master()) === now, WAIT_MS, 'the first sentinel to agree');
  } finally {
    sentinels.pauseSentinel(sentinels.sentinelPorts[0] as number, false);
    client.disconnect();
    watcher.disconnect();
    await sentinels.stop();
  }
});

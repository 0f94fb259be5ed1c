/**
 * Redis as a distributed engine, on loopback, for the scale-out tests: a Redis Cluster of
 * three masters (`redis-server --cluster-enabled yes`, joined with `redis-cli --cluster
 * create`), with a replica each when asked, whose masters a test can kill; and a Sentinel set (a master, a replica and three sentinels, `redis-server
 * --sentinel`) whose master a test can kill. Real processes on free ports, in a folder of
 * their own that is removed at the end; the same Debian package as the single server
 * (`apt-get install -y redis-server`) provides everything.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  cleanupOnExit,
  cli,
  freePort,
  type Node,
  requireRedis,
  start,
  stopAll,
  waitFor,
} from './redis-processes.ts';

export interface RedisCluster {
  /** `redis+cluster://127.0.0.1:<p1>,127.0.0.1:<p2>,127.0.0.1:<p3>` (the masters at start) */
  readonly url: string;
  /** The masters' ports at start. */
  readonly ports: readonly number[];
  /** The port of the master that serves `key`'s slot now. */
  masterOf(key: string): number;
  /** Resolves once every master's replica has every write the master had when called. */
  synced(): Promise<void>;
  /**
   * SIGKILLs the master on `port`; resolves once the cluster has promoted its replica and
   * every slot is served again (`cluster_state:ok`).
   */
  killMaster(port: number): Promise<{ now: number }>;
  stop(): Promise<void>;
}

export interface RedisClusterOptions {
  /** Replicas per master (`--cluster-replicas`); default 0. With 1, a killed master fails over. */
  readonly replicas?: 0 | 1;
}

/** `CLUSTER NODES` of `port`, one entry per node: its port, whether it is a master, its id and master's id. */
function clusterNodes(port: number) {
  return cli(port, 'CLUSTER', 'NODES')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [id, address, flags, master, , , , state, ...slots] = line.split(' ');
      return {
        id: id ?? '',
        port: Number(/:(\d+)@/.exec(address ?? '')?.[1]),
        master: (flags ?? '').includes('master'),
        failed: (flags ?? '').includes('fail') || state !== 'connected',
        masterId: master ?? '-',
        slots,
      };
    });
}

export interface RedisSentinelSet {
  /** `redis+sentinel://127.0.0.1:<s1>,.../<master name>` */
  readonly url: string;
  readonly masterName: string;
  /** The port of the data node that is master now (asked of a sentinel). */
  master(): Promise<number>;
  /** Resolves once the replica has every write the master had when called. */
  synced(): Promise<void>;
  /** SIGKILLs the master now; resolves once the sentinels have promoted the replica. */
  killMaster(): Promise<{ was: number; now: number }>;
  /** The sentinels' ports, in the order the URL lists them. */
  readonly sentinelPorts: readonly number[];
  /** Freezes (SIGSTOP) or thaws (SIGCONT) the sentinel on `port`: it accepts connections and answers nothing. */
  pauseSentinel(port: number, paused: boolean): void;
  /**
   * `SENTINEL FAILOVER` through the sentinel on `via` (the master stays up and becomes a
   * replica); resolves once the promoted replica acts as master.
   */
  failover(via: number): Promise<{ was: number; now: number }>;
  stop(): Promise<void>;
}

/**
 * Three masters, every slot assigned, and a replica per master when asked (then a master that
 * stops answering for 2 s is failed over to its replica).
 *
 * @example
 * const cluster = await startRedisCluster({ replicas: 1 });
 * after(() => cluster.stop());
 */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  requireRedis();
  const replicas = options.replicas ?? 0;
  const dir = mkdtempSync(path.join(tmpdir(), 'redis-cluster-'));
  const nodes: Node[] = [];
  cleanupOnExit(nodes, dir);
  try {
    for (let i = 0; i < 3 * (1 + replicas); i++) {
      const port = await freePort();
      // The cluster bus on a port of its own that is free too: by default it is the port
      // + 10000, which another process (a connection's ephemeral port) may hold.
      const busPort = await freePort();
      nodes.push(
        start(
          [
            '--port',
            String(port),
            '--cluster-port',
            String(busPort),
            '--bind',
            '127.0.0.1',
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            path.join(dir, `nodes-${port}.conf`),
            '--cluster-node-timeout',
            '2000',
            '--save',
            '',
            '--appendonly',
            'no',
            '--dir',
            dir,
          ],
          port,
        ),
      );
    }
    for (const n of nodes) await waitFor(() => cli(n.port, 'PING') === 'PONG', `cluster node ${n.port}`, n);
    const created = spawnSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...nodes.map((n) => `127.0.0.1:${n.port}`),
        '--cluster-replicas',
        String(replicas),
        '--cluster-yes',
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    if (created.status !== 0)
      throw new Error(`redis-cli --cluster create failed:\n${created.stdout}${created.stderr}`);
    for (const n of nodes) {
      await waitFor(
        () => cli(n.port, 'CLUSTER', 'INFO').includes('cluster_state:ok'),
        `cluster state on ${n.port}`,
        n,
      );
    }
    if (replicas > 0) {
      // Each replica attached and in sync before anything is written.
      for (const n of nodes) {
        await waitFor(
          () =>
            !/role:slave/.test(cli(n.port, 'INFO', 'replication')) ||
            /master_link_status:up/.test(cli(n.port, 'INFO', 'replication')),
          `replica ${n.port} in sync`,
          n,
        );
      }
    }
  } catch (err) {
    await stopAll(nodes, dir);
    throw err;
  }
  const alive = () => nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);
  const anyPort = () => (alive()[0] as Node).port;
  const ports = clusterNodes(anyPort())
    .filter((n) => n.master)
    .map((n) => n.port);
  const offset = (port: number, field: string) =>
    Number(new RegExp(`${field}:(\\d+)`).exec(cli(port, 'INFO', 'replication'))?.[1] ?? Number.NaN);
  return {
    url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    ports,
    masterOf(key) {
      const slot = Number(cli(anyPort(), 'CLUSTER', 'KEYSLOT', key));
      const serving = clusterNodes(anyPort()).find(
        (n) =>
          n.master &&
          !n.failed &&
          n.slots.some((range) => {
            const [from, to] = range.split('-').map(Number);
            return (from as number) <= slot && slot <= (to ?? (from as number));
          }),
      );
      if (!serving) throw new Error(`no master serves slot ${slot}`);
      return serving.port;
    },
    async synced() {
      const view = clusterNodes(anyPort()).filter((n) => !n.failed);
      for (const master of view.filter((n) => n.master)) {
        const target = offset(master.port, 'master_repl_offset');
        for (const replica of view.filter((n) => n.masterId === master.id)) {
          const node = nodes.find((n) => n.port === replica.port);
          await waitFor(() => offset(replica.port, 'slave_repl_offset') >= target, 'a replica in sync', node);
        }
      }
    },
    async killMaster(port) {
      const node = nodes.find((n) => n.port === port);
      if (!node) throw new Error(`no cluster node on ${port}`);
      const replica = clusterNodes(port).find(
        (n) => n.masterId === clusterNodes(port).find((m) => m.port === port)?.id,
      );
      if (!replica) throw new Error(`the master on ${port} has no replica to fail over to`);
      const exited = once(node.child, 'exit');
      node.child.kill('SIGKILL');
      await exited;
      // Promoted in every surviving node's view, not only its own: the others learn of it by
      // gossip, and `masterOf` asks any of them.
      await waitFor(
        () =>
          alive().every((a) => clusterNodes(a.port).find((n) => n.port === replica.port)?.master === true) &&
          cli(replica.port, 'CLUSTER', 'INFO').includes('cluster_state:ok'),
        'the cluster promoting the replica, in every node view',
      );
      return { now: replica.port };
    },
    stop: () => stopAll(nodes, dir),
  };
}

/**
 * A master, one replica and three sentinels (quorum 2) watching them; a master that stops
 * answering for 1 s is failed over.
 *
 * @example
 * const sentinels = await startRedisSentinelSet();
 * after(() => sentinels.stop());
 */
export async function startRedisSentinelSet(): Promise<RedisSentinelSet> {
  requireRedis();
  const dir = mkdtempSync(path.join(tmpdir(), 'redis-sentinel-'));
  const masterName = 'mcp-master';
  const nodes: Node[] = [];
  cleanupOnExit(nodes, dir);
  const dataArgs = (port: number) => [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--dbfilename',
    `dump-${port}.rdb`,
  ];
  const sentinelPorts: number[] = [];
  try {
    const masterPort = await freePort();
    const replicaPort = await freePort();
    nodes.push(start(dataArgs(masterPort), masterPort));
    await waitFor(() => cli(masterPort, 'PING') === 'PONG', 'the master', nodes[0]);
    nodes.push(
      start([...dataArgs(replicaPort), '--replicaof', '127.0.0.1', String(masterPort)], replicaPort),
    );
    await waitFor(
      () => cli(replicaPort, 'INFO', 'replication').includes('master_link_status:up'),
      'the replica in sync',
      nodes[1],
    );
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      sentinelPorts.push(port);
      // A sentinel rewrites its own file: each gets one it may write.
      const conf = path.join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${masterName} 127.0.0.1 ${masterPort} 2`,
          `sentinel down-after-milliseconds ${masterName} 1000`,
          `sentinel failover-timeout ${masterName} 5000`,
          `sentinel parallel-syncs ${masterName} 1`,
          '',
        ].join('\n'),
      );
      nodes.push(start([conf, '--sentinel'], port));
    }
    for (const port of sentinelPorts) {
      await waitFor(
        () => cli(port, 'SENTINEL', 'REPLICAS', masterName).includes(String(replicaPort)),
        `sentinel ${port} knows the replica`,
      );
    }
  } catch (err) {
    await stopAll(nodes, dir);
    throw err;
  }
  const askMaster = () =>
    Number(cli(sentinelPorts[0] as number, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName).split('\n')[1]);
  return {
    url: `redis+sentinel://${sentinelPorts.map((p) => `127.0.0.1:${p}`).join(',')}/${masterName}`,
    masterName,
    master: async () => askMaster(),
    async synced() {
      const master = askMaster();
      const info = (port: number, field: string) =>
        Number(new RegExp(`${field}:(\\d+)`).exec(cli(port, 'INFO', 'replication'))?.[1] ?? Number.NaN);
      const target = info(master, 'master_repl_offset');
      const replica = nodes.find((n) => n.port !== master && !sentinelPorts.includes(n.port));
      if (!replica) throw new Error('no replica');
      await waitFor(() => info(replica.port, 'slave_repl_offset') >= target, 'the replica in sync', replica);
    },
    async killMaster() {
      const was = askMaster();
      const node = nodes.find((n) => n.port === was);
      if (!node) throw new Error(`no data node on ${was}`);
      const exited = once(node.child, 'exit');
      node.child.kill('SIGKILL');
      await exited;
      await waitFor(() => {
        const now = askMaster();
        return Number.isInteger(now) && now !== was;
      }, 'the sentinels promoting the replica');
      const now = askMaster();
      await waitFor(() => cli(now, 'ROLE').startsWith('master'), 'the promoted replica acting as master');
      return { was, now };
    },
    sentinelPorts,
    pauseSentinel(port, paused) {
      const node = nodes.find((n) => n.port === port && sentinelPorts.includes(port));
      if (!node) throw new Error(`no sentinel on ${port}`);
      node.child.kill(paused ? 'SIGSTOP' : 'SIGCONT');
    },
    async failover(via) {
      const was = Number(cli(via, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName).split('\n')[1]);
      const answer = cli(via, 'SENTINEL', 'FAILOVER', masterName);
      if (answer !== 'OK') throw new Error(`SENTINEL FAILOVER: ${answer}`);
      await waitFor(() => {
        const now = Number(cli(via, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName).split('\n')[1]);
        return Number.isInteger(now) && now !== was && cli(now, 'ROLE').startsWith('master');
      }, 'the sentinels promoting the replica');
      const now = Number(cli(via, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName).split('\n')[1]);
      return { was, now };
    },
    stop: () => stopAll(nodes, dir),
  };
}

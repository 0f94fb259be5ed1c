/**
 * A managed-style Redis: TLS only, a password, a certificate from a private CA
 * (docs/deployment.md, "Redis with TLS and a password"). Two real replicas of the CLI reach a
 * real `redis-server` started with `--port 0 --tls-port --requirepass` through
 * `rediss://:<password>@127.0.0.1:<port>` and MCP_REDIS_TLS_CA, behind a round-robin proxy:
 * sessions, rate limits and tasks are shared through it. A wrong password, a missing one, a
 * wrong CA and no CA stop start-up (exit 2) with the setting named, quickly; a password Redis
 * stops accepting while the replicas run is named on /readyz. MCP_REDIS_PASSWORD and
 * NODE_EXTRA_CA_CERTS, the documented alternatives, work too.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { ErrorCode } from '../../src/base/errors.ts';
import {
  callTool2026,
  openSession,
  post,
  rpcError,
  rpcResult,
  V2025,
  V2026,
} from '../e2e/batteries/helpers.ts';
import { makeTestCertificates } from '../helpers/redis-server.ts';
import { spawnCli, spawnHttpServer } from '../helpers/spawn-server.ts';
import { type Cluster, readyz, SCALE_PLUGINS, startCluster, until } from './cluster.ts';

const PASSWORD = randomBytes(12).toString('hex');
/** Calls a client may make at once; refilled at one a second. */
const BURST = 6;

let cluster: Cluster;
let caFile: string;
before(async () => {
  cluster = await startCluster(
    // Each test below calls as its own client (X-Forwarded-For behind the trusted proxy), so
    // one test's calls do not spend another's tokens.
    { MCP_RATE_LIMIT_RPS: '1', MCP_RATE_LIMIT_BURST: String(BURST), MCP_TRUST_PROXY: '127.0.0.1' },
    2,
    { tls: true, password: PASSWORD },
  );
  caFile = cluster.redis.caFile as string;
});
after(() => cluster?.stop());

const replica = (i: number) => (cluster.replicas[i] as { url: string }).url;
const as = (client: string) => ({ 'x-forwarded-for': client });

/** A replica of the CLI started on these settings must stop at start-up: its exit code and stderr. */
async function refusedStart(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const proc = spawnCli(['run', '--transport', 'http', '--host', '127.0.0.1', '--port', '0'], {
    MCP_STATE_SECRET: randomBytes(32).toString('hex'),
    MCP_PLUGINS: 'conformance',
    MCP_LOG_FORMAT: 'json',
    ...env,
  });
  // Start-up (importing the sources) is slow on a loaded machine; the refusal itself is one
  // connection attempt (ioredis's connectTimeout is 2 s), never a wait for Redis.
  const timer = setTimeout(() => void proc.stop(), 60_000);
  const code = await proc.exited;
  clearTimeout(timer);
  assert.doesNotMatch(proc.stderr(), /listening on/, 'it never served');
  return { code, stderr: proc.stderr() };
}

describe('two replicas on a TLS-only Redis with a password', () => {
  test('the URL is rediss:// with the password, and both replicas report the shared state ready', async () => {
    assert.match(cluster.redis.url, /^rediss:\/\/:[0-9a-f]+@127\.0\.0\.1:\d+$/);
    for (const i of [0, 1]) {
      const r = await readyz(cluster.replicas[i]!);
      assert.equal(r.status, 200);
      assert.equal(r.body.status, 'ready', JSON.stringify(r.body));
      assert.equal(r.body.checks.sharedState?.ok, true);
      assert.equal(r.body.checks.rateLimit?.ok, true);
    }
  });

  test('a 2025-wire session opened on one replica serves its calls on the other', async () => {
    const client = as('192.0.2.1');
    const session = await openSession(replica(0), client);
    const headers = { ...client, 'mcp-session-id': session, 'mcp-protocol-version': V2025 };
    const call = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'tls' } },
    };
    for (const i of [1, 0]) {
      const reply = await post(replica(i), call, headers);
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.deepEqual(rpcResult(reply.body)?.content, [{ type: 'text', text: 'tls' }]);
    }
    const ended = await fetch(replica(1), { method: 'DELETE', headers });
    assert.equal(ended.status, 200);
    const after = await post(replica(0), call, headers);
    assert.equal(after.status, 404, 'the session ended on both replicas');
  });

  test("a client's rate limit is one bucket across both replicas", async () => {
    const client = as('192.0.2.2');
    const statuses: number[] = [];
    const started = Date.now();
    // Alternating over the replicas: a bucket per replica would let all 2 × BURST through.
    for (let id = 1; id <= 2 * BURST; id++) {
      const reply = await callTool2026(replica(id % 2), id, 'echo', { text: String(id) }, client);
      statuses.push(reply.status);
      if (reply.status === 429) assert.equal(rpcError(reply.body)?.code, ErrorCode.RateLimited);
      else assert.equal(reply.status, 200, JSON.stringify(reply.body));
    }
    // One bucket of BURST, plus what refilled at one a second meanwhile.
    const refilled = Math.ceil((Date.now() - started) / 1000);
    const allowed = statuses.filter((s) => s === 200).length;
    assert.ok(allowed >= BURST && allowed <= BURST + refilled, `statuses: ${statuses.join(', ')}`);
    if (refilled < BURST) assert.ok(allowed < 2 * BURST, 'the shared bucket ran out');
  });

  test('a task started on one replica is read to completion on the other', async () => {
    const client = as('192.0.2.3');
    const meta = {
      'io.modelcontextprotocol/protocolVersion': V2026,
      'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
    };
    const rpc = (url: string, id: number, method: string, params: Record<string, unknown>) => {
      const headers: Record<string, string> = {
        ...client,
        'mcp-protocol-version': V2026,
        'mcp-method': method,
      };
      const name = params.taskId ?? params.name;
      if (typeof name === 'string') headers['mcp-name'] = name;
      return post(url, { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }, headers);
    };
    const created = await rpc(replica(0), 1, 'tools/call', {
      name: 'slow_compute',
      arguments: { seconds: 0.5, label: 'over TLS' },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal(rpcResult(created.body)?.resultType, 'task');
    const taskId = String(rpcResult(created.body)?.taskId);
    let task: Record<string, unknown> | undefined;
    let id = 2;
    await until(
      async () => {
        const reply = await rpc(replica(1), id++, 'tasks/get', { taskId });
        task = rpcResult(reply.body);
        return task?.status === 'completed';
      },
      20_000,
      'the task to complete, read on the other replica',
    );
    assert.deepEqual((task?.result as { content?: unknown } | undefined)?.content, [
      { type: 'text', text: 'Computed over TLS in 0.5 s' },
    ]);
  });
});

describe('Redis settings that are wrong stop start-up with the setting named', () => {
  test('a wrong password: exit 2, WRONGPASS, MCP_REDIS_PASSWORD and MCP_REDIS_URL named', async () => {
    const url = cluster.redis.url.replace(PASSWORD, 'not-the-password');
    const { code, stderr } = await refusedStart({ MCP_REDIS_URL: url, MCP_REDIS_TLS_CA: caFile });
    assert.equal(code, 2, stderr);
    assert.match(stderr, /Redis refused the password \(WRONGPASS/);
    assert.match(stderr, /MCP_REDIS_PASSWORD/);
    assert.match(stderr, /MCP_REDIS_URL/);
    assert.doesNotMatch(stderr, /not-the-password/, 'the password is not printed');
  });

  test('no password: exit 2, NOAUTH, the settings that give one named', async () => {
    const url = cluster.redis.url.replace(`:${PASSWORD}@`, '');
    const { code, stderr } = await refusedStart({ MCP_REDIS_URL: url, MCP_REDIS_TLS_CA: caFile });
    assert.equal(code, 2, stderr);
    assert.match(stderr, /Redis requires a password and none was given \(NOAUTH/);
    assert.match(stderr, /set MCP_REDIS_PASSWORD/);
  });

  test('a CA that did not sign the certificate: exit 2, MCP_REDIS_TLS_CA named', async () => {
    const other = makeTestCertificates().caFile;
    const { code, stderr } = await refusedStart({
      MCP_REDIS_URL: cluster.redis.url,
      MCP_REDIS_TLS_CA: other,
    });
    assert.equal(code, 2, stderr);
    assert.match(stderr, /Redis's TLS certificate is not trusted \([A-Z_]+: /);
    assert.match(stderr, /set MCP_REDIS_TLS_CA to the PEM file of the CA that signed it/);
    assert.doesNotMatch(stderr, new RegExp(PASSWORD), 'the password is not printed');
  });

  test("no CA (Node's built-in list): exit 2, MCP_REDIS_TLS_CA named", async () => {
    const { code, stderr } = await refusedStart({ MCP_REDIS_URL: cluster.redis.url });
    assert.equal(code, 2, stderr);
    assert.match(stderr, /MCP_REDIS_TLS_CA/);
  });

  test('an MCP_REDIS_TLS_CA file that holds no certificate: exit 2 before connecting', async () => {
    const { code, stderr } = await refusedStart({
      MCP_REDIS_URL: cluster.redis.url,
      // A PEM file, but a key: the mistake of pointing at the wrong file of a pair.
      MCP_REDIS_TLS_CA: makeTestCertificates().keyFile,
    });
    assert.equal(code, 2, stderr);
    assert.match(stderr, /MCP_REDIS_TLS_CA=.* holds no PEM certificate/);
  });
});

test('MCP_REDIS_PASSWORD beside a URL without one, and the CA from NODE_EXTRA_CA_CERTS, serve a session', async (t) => {
  const url = cluster.redis.url.replace(`:${PASSWORD}@`, '');
  const server = await spawnHttpServer({
    MCP_REDIS_URL: url,
    MCP_REDIS_PASSWORD: PASSWORD,
    MCP_STATE_SECRET: randomBytes(32).toString('hex'),
    MCP_PLUGINS: SCALE_PLUGINS,
    MCP_LOG_FORMAT: 'json',
    // Process-wide: Node adds these to its built-in CAs for every TLS connection it makes.
    NODE_EXTRA_CA_CERTS: caFile,
  });
  t.after(() => server.stop());
  const r = await readyz(server);
  assert.equal(r.body.status, 'ready', JSON.stringify(r.body));
  // The session opened here is served by a replica that reaches Redis with the URL's password.
  const session = await openSession(server.url, as('192.0.2.4'));
  const reply = await post(
    replica(0),
    { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    { ...as('192.0.2.4'), 'mcp-session-id': session, 'mcp-protocol-version': V2025 },
  );
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
});

test('a password Redis stops accepting while the replicas run: /readyz names the setting', async (t) => {
  const admin = new Redis(cluster.redis.url, {
    tls: { ca: readFileSync(caFile, 'utf8') },
    lazyConnect: true,
  });
  t.after(() => admin.disconnect());
  await admin.connect();
  // The replicas' connections stay authenticated until they reconnect: drop them.
  await admin.config('SET', 'requirepass', 'rotated-elsewhere');
  await admin.client('KILL', 'TYPE', 'normal');
  await admin.client('KILL', 'TYPE', 'pubsub');
  for (const i of [0, 1]) {
    let detail = '';
    await until(
      async () => {
        const r = await readyz(cluster.replicas[i]!);
        detail = JSON.stringify(r.body.checks);
        // Both parts learn it from their own connection's error: wait for the two.
        return (
          /WRONGPASS/.test(r.body.checks.sharedState?.detail ?? '') &&
          /WRONGPASS/.test(r.body.checks.rateLimit?.detail ?? '')
        );
      },
      20_000,
      `replica ${i} to report the refused password on /readyz`,
    );
    assert.match(detail, /Redis refused the password \(WRONGPASS[^)]*\): check MCP_REDIS_PASSWORD/);
    assert.match(
      detail,
      /rate-limit store \(Redis\) unreachable, limits not enforced: Redis refused the password/,
    );
  }
});

/**
 * `list_changed` by caller: with auth on, a registry change reaches only the callers who could
 * see a touched item before or can see it now; without auth everyone is told. Through the
 * official v1 SDK client over streamable HTTP (its GET stream) with real OAuth tokens, a
 * 2026 `subscriptions/listen` stream, two replicas relayed over a real Redis, and the
 * in-process connection (the stdio path).
 *
 * An absence is bounded by a marker: after the change under test, a change everyone can see
 * to another list (a prompt added). Both go out on the same stream in order, so once a client
 * has the marker's `prompts/list_changed`, a `tools/list_changed` meant for it has arrived.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  PromptListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '../../src/assembly/server.ts';
import type { Identity } from '../../src/base/types.ts';
import { definePlugin, definePrompt, defineTool, type PluginApp } from '../../src/index.ts';
import { TestClient } from '../../src/testing/client/test-client.ts';
import { type IssuedKey, startTokenIssuer, type TokenIssuer } from '../auth/token-issuer.ts';
import {
  BATTERIES_PLUGIN,
  connectSdk,
  ECHO_PLUGIN,
  type InProcessServer,
  request2026,
  startServer,
  until,
} from '../e2e/batteries/helpers.ts';
import { startServer as startInProcess } from '../helpers/client.ts';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.ts';

const PUBLIC_URL = 'https://mcp.example.test';
const WAIT_MS = 10_000;

let issuer: TokenIssuer;
let key: IssuedKey;
before(async () => {
  issuer = await startTokenIssuer();
  key = await issuer.addKey('ES256');
});
after(() => issuer?.close());

const oauth = {
  MCP_AUTH: 'oauth',
  MCP_PUBLIC_URL: PUBLIC_URL,
  MCP_PLUGINS: `${ECHO_PLUGIN},${BATTERIES_PLUGIN}`,
};

async function bearer(sub: string, scope: string): Promise<Record<string, string>> {
  const token = await issuer.sign(key, { aud: `${PUBLIC_URL}/mcp`, sub, client_id: sub, scope });
  return { authorization: `Bearer ${token}` };
}

let made = 0;
const tool = (spec: { scopes?: string[]; visible?: (id: Identity) => boolean } = {}) =>
  defineTool({ name: `t${++made}`, description: 'Added at run time', ...spec }, async () => 'ok');
const marker = () => definePrompt({ name: `p${++made}`, description: 'A marker' }, async () => 'ok');

/** Counts of the list_changed notifications one client got. */
interface Seen {
  tools: number;
  prompts: number;
}

/** An official SDK client on `server`, counting its list_changed notifications. */
async function sdkClient(server: InProcessServer, headers: Record<string, string> = {}) {
  const client = await connectSdk(server.url, headers);
  const seen: Seen = { tools: 0, prompts: 0 };
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void seen.tools++);
  client.setNotificationHandler(PromptListChangedNotificationSchema, async () => void seen.prompts++);
  // The SDK opens its GET stream after the handshake: wait until the server holds it.
  const id = (client.transport as { sessionId?: string } | undefined)?.sessionId;
  assert.ok(id, 'the SDK client has a session');
  const streams = server.running.server.hub.sessionStreams;
  // Across replicas a GET stream reads the session's feed, which it opens.
  const held = async () =>
    streams.feed
      ? (await streams.feed.sessions()).some((s) => s.sessionId === id)
      : streams.ids().includes(id);
  await until(held, WAIT_MS, 'the GET stream');
  return { client, seen };
}

/** Adds a marker prompt and waits until every client has its prompts/list_changed. */
async function mark(server: McpServer, clients: readonly { seen: Seen }[]): Promise<void> {
  const expected = clients.map((c) => c.seen.prompts + 1);
  server.registry.add(marker());
  await until(() => clients.every((c, i) => c.seen.prompts >= (expected[i] ?? 0)), WAIT_MS, 'the marker');
}

async function closeAll(clients: readonly { client: Client }[]): Promise<void> {
  await Promise.all(clients.map((c) => c.client.close()));
}

describe('list_changed by caller over streamable HTTP (OAuth, official SDK)', () => {
  let server: InProcessServer;
  before(async () => {
    server = await startServer({ ...oauth, MCP_OAUTH_ISSUER: issuer.issuer });
  });
  after(() => server?.stop());

  test('a tool only one caller may see notifies that caller only; one both see notifies both', async () => {
    const limited = await sdkClient(server, await bearer('bob', 'mcp:read'));
    const full = await sdkClient(server, await bearer('ada', 'mcp:read files:write'));
    const registry = server.running.server.registry;
    try {
      const scoped = tool({ scopes: ['files:write'] });
      registry.add(scoped);
      await mark(server.running.server, [limited, full]);
      assert.deepEqual([limited.seen.tools, full.seen.tools], [0, 1]);
      const listed = (await limited.client.listTools()).tools.map((t) => t.name);
      assert.ok(!listed.includes(scoped.name), 'and it is not listed to the limited caller');

      // A visible(identity) rule decides the same way, for the caller it admits.
      registry.add(tool({ visible: (id) => id.subject === 'bob' }));
      await mark(server.running.server, [limited, full]);
      assert.deepEqual([limited.seen.tools, full.seen.tools], [1, 1]);

      registry.add(tool());
      await until(() => limited.seen.tools === 2 && full.seen.tools === 2, WAIT_MS, 'both told');

      // A removal tells those who could see the item.
      registry.remove('tool', scoped.name);
      await mark(server.running.server, [limited, full]);
      assert.deepEqual([limited.seen.tools, full.seen.tools], [2, 3]);
    } finally {
      await closeAll([limited, full]);
    }
  });

  test('a 2026 subscriptions/listen stream is told only of what its caller may see', async () => {
    const headers = await bearer('bob', 'mcp:read');
    const stop = new AbortController();
    const r = request2026('listen-1', 'subscriptions/listen', {
      notifications: { toolsListChanged: true, promptsListChanged: true },
    });
    const res = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...r.headers,
        ...headers,
      },
      body: JSON.stringify(r.message),
      signal: stop.signal,
    });
    assert.equal(res.status, 200);
    const methods: string[] = [];
    const reading = (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      const body = res.body?.getReader();
      for (let chunk = await body?.read(); chunk && !chunk.done; chunk = await body?.read()) {
        buffer += decoder.decode(chunk.value, { stream: true });
        for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
          const line = buffer.slice(0, i).trim();
          buffer = buffer.slice(i + 1);
          if (line.startsWith('data:') && line.length > 5)
            methods.push(String(JSON.parse(line.slice(5)).method));
        }
      }
    })().catch(() => {});
    try {
      await until(() => methods.includes('notifications/subscriptions/acknowledged'), WAIT_MS, 'the ack');
      const registry = server.running.server.registry;
      registry.add(tool({ scopes: ['files:write'] }));
      registry.add(marker());
      await until(() => methods.includes('notifications/prompts/list_changed'), WAIT_MS, 'the marker');
      assert.ok(!methods.includes('notifications/tools/list_changed'), methods.join(', '));
      registry.add(tool());
      await until(() => methods.includes('notifications/tools/list_changed'), WAIT_MS, 'the open tool');
    } finally {
      stop.abort();
      await reading;
    }
  });
});

describe('list_changed without auth', () => {
  test('every caller is told, scoped items or not (everything is listed to everyone)', async () => {
    const server = await startServer({ MCP_PLUGINS: ECHO_PLUGIN });
    const clients = [await sdkClient(server), await sdkClient(server)];
    try {
      server.running.server.registry.add(tool({ scopes: ['files:write'] }));
      server.running.server.registry.add(tool({ visible: () => false }));
      await until(() => clients.every((c) => c.seen.tools === 2), WAIT_MS, 'everyone told');
    } finally {
      await closeAll(clients);
      await server.stop();
    }
  });
});

describe('list_changed by caller across replicas (Redis)', () => {
  let redis: RedisServer;
  let a: InProcessServer;
  let b: InProcessServer;
  const rule = (id: Identity) => id.subject === 'ada';
  before(async () => {
    redis = await startRedisServer();
    const shared = {
      ...oauth,
      MCP_OAUTH_ISSUER: issuer.issuer,
      MCP_REDIS_URL: redis.url,
      MCP_STATE_SECRET: randomBytes(32).toString('hex'),
    };
    a = await startServer(shared);
    b = await startServer(shared);
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    await redis?.stop();
  });

  test('a change made on B reaches, on A, only the callers it concerns', async () => {
    // The same rule-guarded tool on both replicas, as the same plugin would add it.
    const ruled = { name: 'ruled', description: 'For ada only', visible: rule };
    a.running.server.registry.add(defineTool(ruled, async () => 'ok'));
    b.running.server.registry.add(defineTool(ruled, async () => 'ok'));
    const limited = await sdkClient(a, await bearer('bob', 'mcp:read'));
    const full = await sdkClient(a, await bearer('ada', 'mcp:read files:write'));
    let base: [number, number] = [0, 0];
    const told = (): [number, number] => [limited.seen.tools - base[0], full.seen.tools - base[1]];
    try {
      // B's own announcement of `ruled` may still be on its way: once B's marker is here, it is.
      await mark(b.running.server, [limited, full]);
      base = [limited.seen.tools, full.seen.tools];
      // B, where the change is made, decides for every session's feed, A's clients' included.
      b.running.server.registry.add(tool({ scopes: ['files:write'] }));
      await mark(b.running.server, [limited, full]);
      assert.deepEqual(told(), [0, 1]);
      // A rule is B's own definition of the item (the same on every replica).
      b.running.server.registry.remove('tool', 'ruled');
      await mark(b.running.server, [limited, full]);
      assert.deepEqual(told(), [0, 2]);
      b.running.server.registry.add(tool());
      await until(() => told()[0] === 1 && told()[1] === 3, WAIT_MS, 'both told');
    } finally {
      await closeAll([limited, full]);
    }
  });
});

describe('list_changed by caller on a message-stream connection (stdio, in-process)', () => {
  test('each connection is told by its own identity; one without an identity hears everything', async () => {
    let pluginApp: PluginApp | undefined;
    const later = definePlugin({
      name: 'later',
      register(app) {
        pluginApp = app;
      },
    });
    const server = await startInProcess({ plugins: [later] });
    const admin = await TestClient.start({
      server,
      identity: { clientId: 'admin', scopes: ['files:write'] },
    });
    const user = await TestClient.start({ server, identity: { clientId: 'user', scopes: [] } });
    const anonymous = await TestClient.start({ server });
    const toolsSeen = (c: TestClient) =>
      c.notifications.filter((n) => n.method === 'notifications/tools/list_changed').length;
    try {
      pluginApp?.add(tool({ scopes: ['files:write'] }));
      pluginApp?.add(tool({ visible: (id) => id.clientId === 'user' }));
      pluginApp?.add(marker());
      await Promise.all([admin, user, anonymous].map((c) => c.request('ping')));
      assert.deepEqual([admin, user, anonymous].map(toolsSeen), [1, 1, 2]);
    } finally {
      await user.close();
      await anonymous.close();
      await admin.close();
      await server.close();
    }
  });
});

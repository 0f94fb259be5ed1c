/**
 * The proxy plugin forwarding the caller's upstream token (`MCP_PROXY_FORWARD_UPSTREAM_TOKEN`):
 * behind `MCP_AUTH=oauth-proxy`, an upstream MCP server over streamable HTTP that accepts the
 * identity provider's tokens is called as each user, on the upstream connection of that user's
 * session (`MCP_PROXY_ISOLATION=per-session`), while the shared connection (the lists) carries
 * the proxy's own MCP_PROXY_BEARER_TOKEN and never a caller's. A guard in front of the upstream
 * records which token came on which upstream session, and checks each token at the provider
 * (401 when it is not valid there). A 401 is retried once with a refreshed token; a request
 * without a session (the 2026 wire) is refused; an ended sign-in is a tool error. And the unsafe
 * settings (a shared connection, a stdio upstream) stop start-up with exit code 2.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { pino } from 'pino';
import { z } from 'zod';
import { proxyPlugin } from '../../../plugins/proxy/index.ts';
import {
  createServer,
  definePlugin,
  defineTool,
  type PluginDefinition,
  type RunningServer,
} from '../../../src/index.ts';
import { parsePluginSettings } from '../../../src/plugin/loader.ts';
import { freePort } from '../../e2e/batteries/helpers.ts';
import { cimdHostMissing } from '../../helpers/cimd-host.ts';
import { CLI, childEnv, REPO_ROOT } from '../../helpers/spawn-server.ts';
import { callTool, type ProxySetup, signInAs, startProxy } from './harness.ts';

const skip = cimdHostMissing();
const SERVICE_TOKEN = 'proxy-service-token-0123456789';

/** The upstream MCP server's one tool: who the guard says the request's token belongs to. */
const whoPlugin = definePlugin({
  name: 'who',
  settings: z.object({}),
  register(app) {
    app.add(
      defineTool(
        { name: 'whoami', description: 'The user the upstream token belongs to' },
        async (_args, ctx) => `user=${ctx.http?.headers['x-upstream-user'] ?? '(none)'}`,
      ),
    );
  },
});

interface Seen {
  /** The upstream session the request was on (or was given, for an initialize). */
  session: string;
  user: string;
  status: number;
}

/**
 * A guard in front of the upstream MCP server, as an API gateway would be: the proxy's service
 * token or a token the provider accepts (its user goes on as `x-upstream-user`), else 401.
 */
async function startGuard(upstreamUrl: string, whoIs: (token: string) => Promise<string | undefined>) {
  const seen: Seen[] = [];
  const target = new URL(upstreamUrl);
  const server: Server = createHttpServer((req, res) => {
    void (async () => {
      const token = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
      const user = token === undefined ? undefined : token === SERVICE_TOKEN ? 'service' : await whoIs(token);
      const requested = String(req.headers['mcp-session-id'] ?? '');
      if (user === undefined) {
        seen.push({ session: requested, user: token === undefined ? '(none)' : '(refused)', status: 401 });
        req.resume();
        res.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"' }).end();
        return;
      }
      const headers = { ...req.headers, host: target.host, 'x-upstream-user': user };
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers },
        (answer) => {
          seen.push({
            session: requested || String(answer.headers['mcp-session-id'] ?? ''),
            user,
            status: answer.statusCode ?? 0,
          });
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.writeHead(502).end());
      req.pipe(upstream);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${target.pathname}`;
  return {
    url,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A 2025-wire client with a session of its own, as `token`'s holder. */
async function connect(mcpUrl: string, token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'proxy-forward-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const textOf = (result: unknown) => JSON.stringify((result as { content?: unknown }).content);

describe("proxy: the caller's upstream token, per session", { skip }, () => {
  let upstream: RunningServer;
  let guard: Awaited<ReturnType<typeof startGuard>>;
  let setup: ProxySetup;
  const logLines: string[] = [];
  const refreshes = () => setup.idp.tokenGrants.filter((g) => g === 'refresh_token').length;

  before(async () => {
    const port = await freePort();
    upstream = await createServer({
      plugins: [whoPlugin as PluginDefinition<never>],
      settings: { MCP_HTTP_HOST: '127.0.0.1', MCP_HTTP_PORT: String(port), MCP_LOG_LEVEL: 'silent' },
      transport: 'http',
      logger: pino({ level: 'silent' }),
    });
    // The guard asks the provider's API whose token it is (the provider starts with the proxy).
    guard = await startGuard(`http://127.0.0.1:${port}/mcp`, async (token) => {
      const res = await fetch(setup.idp.apiUrl, { headers: { authorization: `Bearer ${token}` } });
      return res.ok ? ((await res.json()) as { login: string }).login : undefined;
    });
    setup = await startProxy({
      shape: 'github',
      plugins: [proxyPlugin as PluginDefinition<never>],
      // Everything the server logs, down to trace, to look for tokens in.
      logger: pino(
        { level: 'trace' },
        new Writable({
          write(chunk: Buffer, _enc, done) {
            logLines.push(chunk.toString());
            done();
          },
        }),
      ),
      env: {
        MCP_PROXY_URL: guard.url,
        MCP_PROXY_BEARER_TOKEN: SERVICE_TOKEN,
        MCP_PROXY_ISOLATION: 'per-session',
        MCP_PROXY_FORWARD_UPSTREAM_TOKEN: 'true',
        MCP_PROXY_PREFIX: 'up.',
      },
    });
  });
  after(async () => {
    await setup?.close();
    await guard?.close();
    await upstream?.close();
  });

  it("calls the upstream as each user, on their session's connection; the shared one carries none", async () => {
    const ada = await signInAs(setup, 'ada');
    const bob = await signInAs(setup, 'bob');
    const clients = [
      await connect(setup.mcpUrl, ada.tokens.access_token),
      await connect(setup.mcpUrl, bob.tokens.access_token),
    ];
    try {
      // Interleaved, twice each: every call answers its own caller.
      for (let round = 0; round < 2; round++) {
        for (const [i, login] of ['ada', 'bob'].entries()) {
          const result = await clients[i]?.callTool({ name: 'up.whoami', arguments: {} });
          assert.equal(result?.isError, undefined, JSON.stringify(result));
          assert.match(textOf(result), new RegExp(`user=${login}`));
        }
      }
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
    // Which users' tokens each upstream session carried: one user per session, the service's apart.
    const bySession = new Map<string, Set<string>>();
    for (const { session, user, status } of guard.seen) {
      if (session === '' || status === 401) continue;
      bySession.set(session, (bySession.get(session) ?? new Set()).add(user));
    }
    const users = [...bySession.values()].map((s) => [...s].sort().join('+')).sort();
    assert.deepEqual(users, ['ada', 'bob', 'service'], JSON.stringify(guard.seen));
  });

  it('retries a 401 once with a refreshed token, on the same session', async () => {
    const { tokens } = await signInAs(setup, 'ada');
    const client = await connect(setup.mcpUrl, tokens.access_token);
    try {
      assert.match(textOf(await client.callTool({ name: 'up.whoami', arguments: {} })), /user=ada/);
      // The provider revokes its access tokens early: the guard says 401 until a refresh.
      await setup.idp.revokeAccessTokens();
      const before = refreshes();
      const refused = guard.seen.length;
      const result = await client.callTool({ name: 'up.whoami', arguments: {} });
      assert.equal(result.isError, undefined, JSON.stringify(result));
      assert.match(textOf(result), /user=ada/);
      assert.equal(refreshes(), before + 1, 'one refresh after the 401');
      assert.deepEqual(
        guard.seen.slice(refused).map((s) => s.status),
        [401, 200],
        'the refused request, then the same one with the refreshed token',
      );
    } finally {
      await client.close();
    }
  });

  it('refuses a request without a session (the 2026 wire): the shared connection carries no caller', async () => {
    const { tokens } = await signInAs(setup, 'bob');
    const before = guard.seen.length;
    const { result } = await callTool(setup.mcpUrl, tokens.access_token, '2026', 'up.whoami');
    assert.equal(result.isError, true);
    assert.match(
      textOf(result),
      /MCP_PROXY_FORWARD_UPSTREAM_TOKEN.*this request has no session \(the 2026-07-28 wire\).*Call over the 2025-11-25 wire/,
    );
    assert.equal(guard.seen.length, before, 'nothing was sent upstream');
  });

  it('writes no upstream token to any log line', () => {
    const logs = logLines.join('');
    assert.match(logs, /per-session upstream started/, 'the sessions were logged at all');
    const tokens = setup.idp.issued
      .flatMap((t) => [t.access_token, t.refresh_token])
      .filter((t): t is string => !!t);
    assert.ok(tokens.length >= 4);
    for (const token of tokens) assert.ok(!logs.includes(token), 'an upstream token in the logs');
  });

  it('an ended sign-in is a tool error that says to sign in again', async () => {
    const { tokens } = await signInAs(setup, 'bob');
    const client = await connect(setup.mcpUrl, tokens.access_token);
    try {
      assert.match(textOf(await client.callTool({ name: 'up.whoami', arguments: {} })), /user=bob/);
      await setup.idp.endSessions();
      const result = await client.callTool({ name: 'up.whoami', arguments: {} });
      assert.equal(result.isError, true, JSON.stringify(result));
      assert.match(
        textOf(result),
        /each caller's own upstream token \(MCP_PROXY_FORWARD_UPSTREAM_TOKEN\), and there is none: The sign-in at 127\.0\.0\.1:\d+ has ended \(the provider refused the refresh\): sign in to this server again/,
      );
    } finally {
      await client.close().catch(() => {});
    }
  });
});

describe('proxy: MCP_PROXY_FORWARD_UPSTREAM_TOKEN refuses the unsafe settings', () => {
  const parse = (env: Record<string, string>) =>
    parsePluginSettings(proxyPlugin as PluginDefinition<Record<string, unknown>>, env);
  const url = 'http://127.0.0.1:1/mcp';

  it('needs per-session isolation and an HTTP upstream', () => {
    assert.throws(
      () => parse({ MCP_PROXY_URL: url, MCP_PROXY_FORWARD_UPSTREAM_TOKEN: 'true' }),
      /MCP_PROXY_FORWARD_UPSTREAM_TOKEN=true needs MCP_PROXY_ISOLATION=per-session: with MCP_PROXY_ISOLATION=shared one upstream connection serves every caller/,
    );
    assert.throws(
      () =>
        parse({
          MCP_PROXY_COMMAND: 'node',
          MCP_PROXY_ISOLATION: 'per-session',
          MCP_PROXY_FORWARD_UPSTREAM_TOKEN: 'true',
        }),
      /MCP_PROXY_FORWARD_UPSTREAM_TOKEN=true sends each caller's upstream token to MCP_PROXY_URL; a stdio upstream \(MCP_PROXY_COMMAND\) has no HTTP connection/,
    );
    assert.throws(
      () => parse({ MCP_PROXY_URL: url, MCP_PROXY_FORWARD_UPSTREAM_TOKEN: 'maybe' }),
      /true or false/,
    );
    const ok = parse({
      MCP_PROXY_URL: url,
      MCP_PROXY_ISOLATION: 'per-session',
      MCP_PROXY_FORWARD_UPSTREAM_TOKEN: 'true',
    });
    assert.equal(ok.forwardUpstreamToken, true);
  });

  it('the CLI stops with exit 2 naming both settings, before it connects to anything', () => {
    const r = spawnSync(process.execPath, [CLI, 'run', '--transport', 'http', '--port', '0'], {
      cwd: REPO_ROOT,
      env: childEnv({
        MCP_PLUGINS: 'proxy',
        MCP_PROXY_URL: url,
        MCP_PROXY_FORWARD_UPSTREAM_TOKEN: 'true',
        MCP_LOG_FORMAT: 'pretty',
      }),
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /MCP_PROXY_FORWARD_UPSTREAM_TOKEN=true needs MCP_PROXY_ISOLATION=per-session/);
    assert.doesNotMatch(r.stderr, /listening/);
  });
});

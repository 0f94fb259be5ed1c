/**
 * `MCP_AUTH=oauth-proxy` on three replicas sharing a real redis-server, behind a round-robin
 * balancer without affinity: every step of a sign-in (the authorization request, the consent
 * page, its form, the provider's callback, the resume, the token request, a refresh, the MCP
 * requests) lands on a different replica than the step before, and the sign-in works, on both
 * wires, with the tool calling the provider's API as the user. The replicas publish the same
 * keys; a code redeemed on two replicas at once is given once; the users' upstream tokens are
 * sealed in Redis; Redis going away mid-flow answers an error, and the flow works again once it
 * is back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { createServer, type RunningServer } from '../../../src/index.ts';
import { freePort } from '../../e2e/batteries/helpers.ts';
import { upstreamApiPlugin } from '../../fixtures/upstream-api-plugin.ts';
import { type CimdHost, cimdHostMissing, startCimdHost } from '../../helpers/cimd-host.ts';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.ts';
import { type RoundRobin, startRoundRobin } from '../../helpers/round-robin.ts';
import { until } from '../../helpers/until.ts';
import { startUpstreamIdp, type UpstreamIdp } from '../../helpers/upstream-idp.ts';
import {
  ACCOUNTS,
  authorizeUrl,
  callTool,
  getJson,
  pkce,
  proxyEnv,
  scriptedSignIn,
  tokenRequest,
} from './harness.ts';

const skip = cimdHostMissing();

describe('oauth-proxy on three replicas sharing Redis', { skip }, () => {
  let redis: RedisServer;
  let lb: RoundRobin;
  let idp: UpstreamIdp;
  let cimd: CimdHost;
  const replicas: RunningServer[] = [];
  let base: string;

  before(async () => {
    redis = await startRedisServer();
    lb = await startRoundRobin();
    base = lb.url;
    idp = await startUpstreamIdp({
      shape: 'oidc',
      redirectUri: `${base}/oauth/callback`,
      accounts: ACCOUNTS,
      accessTokenTtlSec: 20,
    });
    cimd = await startCimdHost();
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      // Each replica binds its own port; all of them are the one public URL behind the balancer.
      const env = proxyEnv(base, idp, {
        MCP_HTTP_PORT: String(port),
        MCP_REDIS_URL: redis.url,
        MCP_STATE_SECRET: 'replicas-share-this-secret-0123456789',
      });
      replicas.push(
        await createServer({
          plugins: [upstreamApiPlugin],
          settings: env,
          transport: 'http',
          logger: pino({ level: 'silent' }),
        }),
      );
      lb.targets.push(`http://127.0.0.1:${port}`);
    }
  });
  after(async () => {
    for (const r of replicas) await r.close();
    await cimd?.close();
    await idp?.close();
    await lb?.close();
    await redis?.stop();
  });

  const redirectUri = 'http://127.0.0.1:1/callback';
  const client = () =>
    cimd.document('/replica-client.json', {
      client_name: 'Replica Client',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
    });

  async function code(): Promise<{ code: string; verifier: string; clientId: string }> {
    const clientId = client();
    const { verifier, challenge } = pkce();
    const { redirect } = await scriptedSignIn(
      authorizeUrl(base, { clientId, redirectUri, challenge, scope: 'api:read api:admin offline_access' }),
      {
        login: 'ada',
        redirectUri,
      },
    );
    const value = redirect.searchParams.get('code');
    assert.ok(value, redirect.href);
    return { code: value, verifier, clientId };
  }

  it('signs in with every step on another replica, and the tool works on both wires', async () => {
    const first = lb.log.length;
    const c = await code();
    const steps = lb.log.slice(first);
    assert.ok(steps.length >= 5, `the sign-in took ${steps.length} requests`);
    for (let i = 1; i < steps.length; i++) {
      assert.notEqual(
        steps[i]?.replica,
        steps[i - 1]?.replica,
        `${steps[i - 1]?.path} and ${steps[i]?.path} on one replica`,
      );
    }
    assert.ok(steps.some((s) => s.path === '/oauth/callback'));
    const tokens = await tokenRequest(base, {
      grant_type: 'authorization_code',
      code: c.code,
      code_verifier: c.verifier,
      client_id: c.clientId,
      redirect_uri: redirectUri,
    });
    assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
    for (const wire of ['2025', '2026'] as const) {
      const { result } = await callTool(
        `${base}/mcp`,
        String(tokens.body.access_token),
        wire,
        'whoami_upstream',
      );
      assert.deepEqual(result.structuredContent, { login: 'ada', status: 200 }, JSON.stringify(result));
    }
    const refreshed = await tokenRequest(base, {
      grant_type: 'refresh_token',
      refresh_token: String(tokens.body.refresh_token),
      client_id: c.clientId,
    });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    const reuse = await tokenRequest(base, {
      grant_type: 'refresh_token',
      refresh_token: String(tokens.body.refresh_token),
      client_id: c.clientId,
    });
    assert.equal(reuse.body.error, 'invalid_grant', 'reuse is seen by whichever replica gets it');
  });

  it('publishes the same keys on every replica', async () => {
    const sets = await Promise.all(lb.targets.map((t) => getJson(`${t}/oauth/jwks`)));
    const kids = sets.map((s) => JSON.stringify((s.body.keys as { kid: string }[]).map((k) => k.kid).sort()));
    assert.equal(new Set(kids).size, 1, kids.join(' / '));
  });

  it('gives a code redeemed on three replicas at once exactly once', async () => {
    const c = await code();
    const results = await Promise.all(
      lb.targets.map((t) =>
        tokenRequest(t, {
          grant_type: 'authorization_code',
          code: c.code,
          code_verifier: c.verifier,
          client_id: c.clientId,
          redirect_uri: redirectUri,
        }),
      ),
    );
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 400, 400]);
  });

  it('refreshes an expired upstream token once for calls on every replica at once, and keeps it sealed in Redis', async () => {
    const c = await code();
    const tokens = await tokenRequest(base, {
      grant_type: 'authorization_code',
      code: c.code,
      code_verifier: c.verifier,
      client_id: c.clientId,
      redirect_uri: redirectUri,
    });
    const token = String(tokens.body.access_token);
    const before = idp.tokenGrants.filter((g) => g === 'refresh_token').length;
    const calls = await Promise.all(
      lb.targets.flatMap((t) => [
        callTool(`${t}/mcp`, token, '2026', 'whoami_upstream'),
        callTool(`${t}/mcp`, token, '2026', 'whoami_upstream'),
      ]),
    );
    for (const { result } of calls) assert.deepEqual(result.structuredContent, { login: 'ada', status: 200 });
    // The upstream token lives 20 s, under the 30 s margin: it was stale; one refresh served all six.
    assert.equal(idp.tokenGrants.filter((g) => g === 'refresh_token').length - before, 1);

    const raw = new Redis(redis.url);
    try {
      const keys = await raw.keys('mcp-toolkit:oauth:*UpstreamTokens*');
      assert.ok(keys.length > 0);
      for (const key of keys) {
        const value = (await raw.get(key)) ?? '';
        for (const issued of idp.issued) {
          if (issued.access_token)
            assert.ok(!value.includes(issued.access_token), 'no upstream token in the clear');
          if (issued.refresh_token) assert.ok(!value.includes(issued.refresh_token));
        }
      }
    } finally {
      raw.disconnect();
    }
  });

  it('answers an error while Redis is away and signs in again once it is back', async () => {
    const c = await code();
    await redis.stop();
    const down = await tokenRequest(base, {
      grant_type: 'authorization_code',
      code: c.code,
      code_verifier: c.verifier,
      client_id: c.clientId,
      redirect_uri: redirectUri,
    });
    assert.ok(down.status >= 500, `status ${down.status}`);
    assert.equal(down.body.error, 'server_error');
    const mcp = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { authorization: 'Bearer x.y.z', 'content-type': 'application/json' },
      body: '{}',
    });
    assert.ok(mcp.status === 401 || mcp.status === 503, `the MCP endpoint answers (${mcp.status})`);
    await redis.restart();
    // Redis came back empty (no persistence): once the replicas have reconnected (they fail fast
    // meanwhile), a new sign-in works, with new keys, on any replica.
    const token = await until(
      async () => {
        const again = await code();
        const tokens = await tokenRequest(base, {
          grant_type: 'authorization_code',
          code: again.code,
          code_verifier: again.verifier,
          client_id: again.clientId,
          redirect_uri: redirectUri,
        });
        return tokens.status === 200 ? String(tokens.body.access_token) : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, message: 'no sign-in succeeded after Redis came back' },
    );
    const { result } = await until(
      async () => {
        const call = await callTool(`${base}/mcp`, token, '2026', 'whoami_upstream');
        return call.result.isError ? undefined : call;
      },
      { timeoutMs: 60_000, intervalMs: 500, message: 'the new token never worked on every replica' },
    );
    assert.deepEqual(result.structuredContent, { login: 'ada', status: 200 });
  });
});

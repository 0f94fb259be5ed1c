/**
 * Probes and browsers on the real server (serve(), api_key auth on): /healthz and /readyz
 * answer without credentials and with a foreign Host header (container probes send the pod
 * IP), while the MCP endpoint keeps both checks; with `MCP_CORS_ORIGINS` a preflight is
 * answered and responses expose `Mcp-Session-Id` and `WWW-Authenticate` to the page.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { ErrorCode } from '../../../src/base/errors.ts';
import { ECHO_PLUGIN, type InProcessServer, post, rpcError, startServer, V2025 } from './helpers.ts';

const KEY = `cors-${randomBytes(16).toString('hex')}`;
const APP = 'http://app.example';

let server: InProcessServer;

before(async () => {
  server = await startServer({
    MCP_AUTH: 'api_key',
    MCP_API_KEYS: `web:${KEY}`,
    MCP_CORS_ORIGINS: APP,
    // The Origin check (DNS-rebinding protection) is on for a loopback bind: allow the app too.
    MCP_ALLOWED_ORIGINS: APP,
    MCP_PLUGINS: ECHO_PLUGIN,
  });
});
after(() => server?.stop());

/** A raw request with any Host header (fetch does not let a caller set Host). */
function rawRequest(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(path, server.origin);
  return new Promise((resolve, reject) => {
    const r = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers ?? {}, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    r.on('error', reject);
    r.end(options.body);
  });
}

describe('health probes', () => {
  test('/healthz and /readyz answer 200 without credentials', async () => {
    const health = await fetch(`${server.origin}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });
    const ready = await fetch(`${server.origin}/readyz`);
    assert.equal(ready.status, 200);
    const body = (await ready.json()) as { status: string; checks: Record<string, { ok: boolean }> };
    assert.equal(body.status, 'ready');
    assert.equal(body.checks.auth?.ok, true);
  });

  test('they answer a foreign Host header too, which the MCP endpoint refuses', async () => {
    const headers = { host: '10.1.2.3:8000' };
    assert.equal((await rawRequest('/healthz', { headers })).status, 200);
    const ready = await rawRequest('/readyz', { headers });
    assert.equal(ready.status, 200);
    assert.equal((JSON.parse(ready.body) as { status: string }).status, 'ready');

    const mcp = await rawRequest('/mcp', {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'x-api-key': KEY },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    assert.equal(mcp.status, 403);
    assert.equal(rpcError(JSON.parse(mcp.body))?.code, ErrorCode.HostNotAllowed);
  });
});

describe('CORS (MCP_CORS_ORIGINS)', () => {
  test('a preflight from a listed origin is answered with the allow headers', async () => {
    const res = await fetch(server.url, {
      method: 'OPTIONS',
      headers: {
        origin: APP,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, x-api-key, mcp-session-id, mcp-protocol-version',
      },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), APP);
    assert.match(res.headers.get('access-control-allow-methods') ?? '', /POST/);
    const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    for (const h of [
      'content-type',
      'x-api-key',
      'authorization',
      'mcp-session-id',
      'mcp-protocol-version',
    ]) {
      assert.ok(allowed.includes(h), `${h} is allowed`);
    }
  });

  test('a preflight from another origin gets no allow-origin', async () => {
    const res = await fetch(server.url, {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(res.headers.get('access-control-allow-origin'), null);
  });

  test('responses expose Mcp-Session-Id and WWW-Authenticate to the page', async () => {
    const init = await post(
      server.url,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: V2025, capabilities: {}, clientInfo: { name: 'browser', version: '1' } },
      },
      { origin: APP, 'x-api-key': KEY },
    );
    assert.equal(init.status, 200, JSON.stringify(init.body));
    assert.equal(init.headers.get('access-control-allow-origin'), APP);
    const exposed = (init.headers.get('access-control-expose-headers') ?? '').toLowerCase();
    for (const h of ['mcp-session-id', 'mcp-protocol-version', 'www-authenticate']) {
      assert.ok(exposed.includes(h), `${h} is exposed`);
    }
    assert.ok(init.headers.get('mcp-session-id'));

    // A refusal is readable by the page too: it can see the challenge and start a sign-in.
    const refused = await post(server.url, { jsonrpc: '2.0', id: 2, method: 'ping' }, { origin: APP });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('access-control-allow-origin'), APP);
    assert.ok(
      (refused.headers.get('access-control-expose-headers') ?? '').toLowerCase().includes('www-authenticate'),
    );
    assert.ok(refused.headers.get('www-authenticate'));
  });
});

/**
 * What a 401 or 403 at the handshake refused, and the advice for it: a foreign Host refused by
 * the DNS-rebinding guard (403, no WWW-Authenticate, a body naming the Host) is not a credentials
 * problem; a 401, or a 403 with an `insufficient_scope` challenge, is. Each is exit 3 (nothing
 * could be judged), from `check` and from `test`.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { refusalKind } from '../../src/testing/client/connect.ts';
import { startHttpFixture } from '../fixtures/broken-servers/http-server.ts';
import { runCli } from './helpers/fixtures.ts';

/** A server that refuses every request with `status`, `headers` and a JSON-RPC error `message`. */
async function refusing(status: number, headers: Record<string, string>, message: string): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res
        .writeHead(status, { 'content-type': 'application/json', ...headers })
        .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return server;
}
const urlOf = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}/mcp`;

describe('refusals at the handshake', { concurrency: 2 }, () => {
  test('a foreign Host refused with 403 is reported as a Host refusal, with the allowed-hosts advice, exit 3', async () => {
    // The SDK fixture allows loopback names only; 127.0.0.2 is loopback but not on its list.
    const fixture = await startHttpFixture('none', { listen: '127.0.0.2' });
    try {
      const host = new URL(fixture.url).host;
      for (const command of ['check', 'test']) {
        const r = await runCli([command, '--request-timeout', '3', fixture.url]);
        assert.equal(r.code, 3, `${command}: ${r.stdout}${r.stderr}`);
        assert.match(r.stdout, new RegExp(`refused the Host header ${host.replace(/\./g, '\\.')}`), command);
        assert.match(r.stdout, /allowed-hosts setting \(MCP_ALLOWED_HOSTS/, command);
        // Before: "HTTP 403: the credentials were refused", with advice to pass --token.
        assert.doesNotMatch(r.stdout, /credentials were refused|give --token|give credentials/, command);
        if (command === 'check')
          assert.match(r.stdout, /fix: add the host clients use to the server's allowed hosts/);
      }
    } finally {
      await fixture.close();
    }
  });

  test('a 403 with an insufficient_scope challenge is a scope refusal; a 401 wants credentials; both exit 3', async () => {
    const scope = await refusing(
      403,
      { 'www-authenticate': 'Bearer error="insufficient_scope", scope="mcp:tools"' },
      'insufficient scope',
    );
    const unauthorized = await refusing(
      401,
      {
        'www-authenticate':
          'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"',
      },
      'Unauthorized',
    );
    try {
      const a = await runCli(['check', '--request-timeout', '3', urlOf(scope)]);
      assert.equal(a.code, 3, a.stdout);
      assert.match(a.stdout, /HTTP 403: the token lacks a scope/);
      assert.match(a.stdout, /WWW-Authenticate: Bearer error="insufficient_scope"/);
      assert.doesNotMatch(a.stdout, /Host header/);
      const b = await runCli(['test', '--request-timeout', '3', urlOf(unauthorized)]);
      assert.equal(b.code, 3, b.stdout);
      assert.match(b.stdout, /HTTP 401: the server wants credentials/);
      assert.match(b.stdout, /give --token TOKEN/);
    } finally {
      await new Promise((r) => scope.close(r));
      await new Promise((r) => unauthorized.close(r));
    }
  });

  test('refusalKind: the challenge, then the body, decide', () => {
    assert.equal(refusalKind({ status: 401, challenge: undefined }), 'credentials');
    assert.equal(refusalKind({ status: 403, challenge: 'Bearer error="insufficient_scope"' }), 'scope');
    assert.equal(refusalKind({ status: 403, challenge: 'Bearer error="invalid_token"' }), 'credentials');
    assert.equal(refusalKind({ status: 403, challenge: undefined, body: 'Origin not allowed: x' }), 'origin');
    assert.equal(refusalKind({ status: 403, challenge: undefined, body: 'Invalid Host header' }), 'host');
    assert.equal(refusalKind({ status: 403, challenge: undefined, body: 'invalid API key' }), 'credentials');
    assert.equal(refusalKind({ status: 403, challenge: undefined, body: '' }), 'host');
  });
});

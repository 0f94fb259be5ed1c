/**
 * `login` end to end: a real authorisation server (oidc-provider) on loopback, OUR real server
 * with `MCP_AUTH=oauth` trusting it, and `login()` finding the issuer from the server's
 * protected resource metadata, registering dynamically, driving the authorize and consent
 * pages with an HTTP client, and storing the token; the stored token then opens the server
 * for the official SDK client, and the server's challenges send a token-less client back to
 * the same issuer.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { getStoredToken, login } from '../../../src/cli/login.ts';
import { browse, startOidcProvider, type TestAuthServer } from '../../helpers/oidc-provider.ts';
import {
  BATTERIES_PLUGIN,
  connectSdk,
  ECHO_PLUGIN,
  freePort,
  type InProcessServer,
  post,
  startServer,
  textOf,
} from './helpers.ts';

let as: TestAuthServer;
let server: InProcessServer;
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-batteries-login-'));
  // The authorisation server must know the resource (our URL) and our server the issuer:
  // reserve our port first so each can be told about the other.
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  as = await startOidcProvider({ resource, scopes: ['mcp:read', 'files:write'] });
  server = await startServer({
    MCP_HTTP_PORT: String(port),
    MCP_AUTH: 'oauth',
    MCP_OAUTH_ISSUER: as.issuer,
    MCP_OAUTH_SCOPES: 'mcp:read',
    MCP_PLUGINS: `${ECHO_PLUGIN},${BATTERIES_PLUGIN}`,
  });
  assert.equal(server.url, resource);
});
after(async () => {
  await server?.stop();
  await as?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('mcp-toolkit login against oidc-provider, then our server', () => {
  test('the challenge leads to the issuer; login obtains a token; the token opens the server', async () => {
    const refused = await post(server.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    assert.equal(refused.status, 401);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(
      refused.headers.get('www-authenticate') ?? '',
    )?.[1];
    assert.ok(metadataUrl);
    const metadata = (await (await fetch(metadataUrl)).json()) as { authorization_servers: string[] };
    assert.deepEqual(metadata.authorization_servers, [as.issuer]);

    const tokenFile = join(dir, 'tokens.json');
    const shown: string[] = [];
    const result = await login({
      serverUrl: server.url,
      noBrowser: true,
      tokenFile,
      openBrowser: () => assert.fail('--no-browser must not open a browser'),
      onUrl: async (url) => {
        shown.push(url);
        // The user's browser: follows the redirects, signs in and consents.
        const page = await browse(url);
        assert.equal(page.status, 200, page.body);
      },
    });
    assert.equal(shown.length, 1);
    assert.equal(new URL(shown[0] ?? '').searchParams.get('resource'), server.url);
    assert.equal(result.issuer, as.issuer);
    assert.ok(as.requests.includes('POST /reg'), 'registered dynamically (RFC 7591)');

    const token = await getStoredToken(server.url, { tokenFile });
    assert.ok(token, 'a token was stored');
    const client = await connectSdk(server.url, { authorization: `Bearer ${token}` });
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'write_note'));
      assert.equal(
        textOf(await client.callTool({ name: 'echo', arguments: { text: 'signed in' } })),
        'signed in',
      );
      // The scopes login asked for (the server's scopes_supported) include the tool's own.
      assert.equal(
        textOf(await client.callTool({ name: 'write_note', arguments: { text: 'n' } })),
        'saved: n',
      );
      const me = await client.callTool({ name: 'whoami', arguments: {} });
      const identity = me.structuredContent as { clientId: string; subject: string; scopes: string[] };
      assert.equal(identity.subject, 'user-1');
      assert.equal(identity.clientId, result.clientId);
      assert.deepEqual([...identity.scopes].sort(), ['files:write', 'mcp:read']);
    } finally {
      await client.close();
    }
  });
});

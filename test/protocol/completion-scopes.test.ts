/**
 * Completion goes through the same guard as a call of its prompt or template: with
 * `MCP_SCOPE_VISIBILITY=challenge` a listed prompt whose scopes the token lacks answers
 * `completion/complete` with 403 `insufficient_scope`, as `prompts/get` does, and only a token
 * with the scope gets its values. Real OAuth tokens (a local issuer and its JWKS) over HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { definePrompt } from '../../src/index.ts';
import { type IssuedKey, startTokenIssuer, type TokenIssuer } from '../auth/token-issuer.ts';
import { ECHO_PLUGIN, type InProcessServer, post, rpcResult, startServer } from '../e2e/batteries/helpers.ts';

const PUBLIC_URL = 'https://mcp.example.test';
const V2026 = '2026-07-28';

let issuer: TokenIssuer;
let key: IssuedKey;
let server: InProcessServer;
before(async () => {
  issuer = await startTokenIssuer();
  key = await issuer.addKey('ES256');
  server = await startServer({
    MCP_AUTH: 'oauth',
    MCP_PUBLIC_URL: PUBLIC_URL,
    MCP_OAUTH_ISSUER: issuer.issuer,
    MCP_SCOPE_VISIBILITY: 'challenge',
    MCP_PLUGINS: ECHO_PLUGIN,
  });
  server.running.server.registry.add(
    definePrompt(
      {
        name: 'payroll',
        description: 'Needs the admin scope',
        scopes: ['admin'],
        arguments: [{ name: 'month', complete: async () => ['january', 'february'] }],
      },
      async () => 'ok',
    ),
  );
});
after(async () => {
  await server?.stop();
  await issuer?.close();
});

async function complete(scope: string) {
  const token = await issuer.sign(key, { aud: `${PUBLIC_URL}/mcp`, sub: 'u1', client_id: 'c1', scope });
  return post(
    server.url,
    {
      jsonrpc: '2.0',
      id: 7,
      method: 'completion/complete',
      params: {
        ref: { type: 'ref/prompt', name: 'payroll' },
        argument: { name: 'month', value: '' },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': V2026,
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    },
    { authorization: `Bearer ${token}`, 'mcp-protocol-version': V2026, 'mcp-method': 'completion/complete' },
  );
}

test('completion of a listed prompt without its scope: 403 insufficient_scope; with it: the values', async () => {
  const refused = await complete('mcp:read');
  assert.equal(refused.status, 403, JSON.stringify(refused.body));
  assert.match(refused.headers.get('www-authenticate') ?? '', /insufficient_scope/);
  const served = await complete('mcp:read admin');
  assert.equal(served.status, 200, JSON.stringify(served.body));
  const completion = rpcResult(served.body)?.completion as { values?: string[] } | undefined;
  assert.deepEqual(completion?.values, ['january', 'february']);
});

/**
 * `MCP_AUTH=oauth-proxy`, a whole sign-in with a Client ID Metadata Document client, as a
 * script (the Chromium version is test/browser/oauth-proxy.test.ts): our consent page, the
 * upstream provider's sign-in (OpenID Connect, then GitHub-shaped), the code exchanged with
 * PKCE, and the access token used on both wires by the official SDK v2 client, for a tool that
 * calls the provider's API with the user's upstream token. Scopes come from the scope map
 * (`groups=admins` only for ada), and a refresh rotates the refresh token.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { cimdHostMissing } from '../../helpers/cimd-host.ts';
import { callTool, type ProxySetup, signInAs, startProxy, tokenRequest } from './harness.ts';

const skip = cimdHostMissing();

for (const shape of ['oidc', 'github'] as const) {
  describe(`oauth-proxy in front of a${shape === 'oidc' ? 'n OpenID Connect' : ' GitHub-shaped OAuth 2.0'} provider`, {
    skip,
  }, () => {
    let setup: ProxySetup;
    before(async () => {
      setup = await startProxy({ shape });
    });
    after(() => setup?.close());

    it('signs a user in and the tool calls the upstream API as that user, on both wires', async () => {
      const { clientId, tokens } = await signInAs(setup, 'ada');
      const claims = decodeJwt(tokens.access_token);
      assert.equal(claims.iss, setup.base);
      assert.equal(claims.aud, setup.mcpUrl, 'the token is for our MCP endpoint only');
      assert.equal(claims.sub, '1001', "the user's id at the provider");
      assert.equal(claims.client_id, clientId);
      assert.deepEqual(String(claims.scope).split(' ').sort(), ['api:admin', 'api:read']);
      assert.ok(tokens.refresh_token, 'a refresh token');
      for (const wire of ['2025', '2026'] as const) {
        const { names, result, version } = await callTool(
          setup.mcpUrl,
          tokens.access_token,
          wire,
          'whoami_upstream',
        );
        assert.equal(version, wire === '2026' ? '2026-07-28' : '2025-11-25');
        assert.ok(names.includes('admin_only'), 'an admin sees the admin tool');
        assert.deepEqual(result.structuredContent, { login: 'ada', status: 200 }, JSON.stringify(result));
        // The upstream token never reaches the client.
        assert.doesNotMatch(JSON.stringify(result), /Bearer|access_token/);
      }
    });

    it('grants only what the scope map allows: bob is no admin', async () => {
      const { tokens } = await signInAs(setup, 'bob');
      assert.equal(decodeJwt(tokens.access_token).scope, 'api:read');
      const { names, result } = await callTool(setup.mcpUrl, tokens.access_token, '2026', 'whoami_upstream');
      assert.ok(!names.includes('admin_only'), 'hidden: bob lacks api:admin (MCP_SCOPE_VISIBILITY=hide)');
      assert.deepEqual(result.structuredContent, { login: 'bob', status: 200 });
    });

    it('rotates the refresh token on every use; the new access token works', async () => {
      const { clientId, tokens } = await signInAs(setup, 'ada');
      const refreshed = await tokenRequest(setup.base, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: clientId,
      });
      assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
      assert.notEqual(refreshed.body.refresh_token, tokens.refresh_token);
      const { result } = await callTool(
        setup.mcpUrl,
        String(refreshed.body.access_token),
        '2025',
        'whoami_upstream',
      );
      assert.deepEqual(result.structuredContent, { login: 'ada', status: 200 });
    });
  });
}

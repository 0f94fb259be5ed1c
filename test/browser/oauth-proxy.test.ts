/**
 * `MCP_AUTH=oauth-proxy` as a person goes through it, in headless Chromium: an MCP client with
 * a Client ID Metadata Document sends the user to /oauth/authorize; our consent page names the
 * client (its name, website, logo host and the host the code goes to) with no script errors and
 * a CSP that forbids framing; Allow leads to the provider's sign-in page (OpenID Connect, then
 * GitHub-shaped), and back to the client's redirect URI with a code. The client exchanges it,
 * and the official SDK v2 client calls a scoped tool with the token on both wires; the tool
 * calls the provider's API with the user's upstream token. Screenshots under test-artifacts/.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import {
  authorizeUrl,
  callTool,
  type ProxySetup,
  pkce,
  startProxy,
  tokenRequest,
} from '../auth/oauth-proxy/harness.ts';
import { cimdHostMissing } from '../helpers/cimd-host.ts';
import { artifact, type Browser, chromiumMissing, launchChromium } from './chromium.ts';

const skip = chromiumMissing() ?? cimdHostMissing();

for (const shape of ['oidc', 'github'] as const) {
  describe(`oauth-proxy sign-in in Chromium (${shape})`, { skip }, () => {
    let setup: ProxySetup;
    let browser: Browser;
    let clientApp: Server;
    let redirectUri: string;
    before(async () => {
      setup = await startProxy({ shape });
      browser = await launchChromium();
      // The MCP client's loopback redirect URI (a desktop client's, RFC 8252 §7.3).
      clientApp = createServer((_req, res) =>
        res.writeHead(200, { 'content-type': 'text/html' }).end('<p id="done">Signed in</p>'),
      );
      await new Promise<void>((resolve) => clientApp.listen(0, '127.0.0.1', resolve));
      redirectUri = `http://127.0.0.1:${(clientApp.address() as AddressInfo).port}/callback`;
    });
    after(async () => {
      await browser?.close();
      clientApp?.closeAllConnections();
      await new Promise((resolve) => clientApp?.close(resolve));
      await setup?.close();
    });

    test('consent page, upstream sign-in, code, token, tool on both wires with the upstream token', async () => {
      const clientId = setup.cimd.document('/chromium-client.json', {
        client_name: 'Chromium Test Client',
        client_uri: 'https://client.example.com',
        logo_uri: 'https://cdn.example.com/logo.png',
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
      });
      const { verifier, challenge } = pkce();
      const page = await browser.context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      // Failed loads of our pages' resources (the browser's own /favicon.ico probe aside).
      page.on('response', (r) => {
        const url = new URL(r.url());
        if (r.status() >= 400 && url.origin === setup.base && url.pathname !== '/favicon.ico') {
          errors.push(`${r.status()} ${url.pathname}`);
        }
      });

      const consent = await page.goto(
        authorizeUrl(setup.base, {
          clientId,
          redirectUri,
          challenge,
          scope: 'api:read api:admin',
          state: 'xyz',
        }),
      );
      assert.equal(consent?.status(), 200);
      const headers = consent?.headers() ?? {};
      assert.match(headers['content-security-policy'] ?? '', /frame-ancestors 'none'/);
      assert.equal(headers['x-frame-options'], 'DENY');
      await page.locator('h1').waitFor();
      assert.match(
        (await page.locator('h1').textContent()) ?? '',
        /Chromium Test Client wants to use mcp-toolkit as you/,
      );
      const details = (await page.locator('main').textContent()) ?? '';
      for (const shown of [
        clientId,
        'https://client.example.com',
        'cdn.example.com',
        new URL(redirectUri).host,
        'api:read',
        'api:admin',
        new URL(setup.idp.issuer).host,
      ]) {
        assert.ok(details.includes(shown), `the consent page shows ${shown}`);
      }
      assert.ok(details.includes('differ'), 'it warns that the website and the redirect host differ');
      await page.screenshot({ path: artifact(`oauth-proxy-consent-${shape}.png`), fullPage: true });

      await page.getByRole('button', { name: 'Allow and sign in' }).click();
      await page.locator('#login').waitFor();
      assert.ok(page.url().startsWith(setup.idp.issuer), `at the provider: ${page.url()}`);
      await page.locator('#login').fill('ada');
      await page.locator('#sign-in').click();
      await page.waitForURL((url) => url.href.startsWith(redirectUri), { timeout: 30_000 });
      await page.locator('#done').waitFor();
      const back = new URL(page.url());
      assert.equal(back.searchParams.get('state'), 'xyz');
      const code = back.searchParams.get('code');
      assert.ok(code);
      assert.deepEqual(errors, [], 'no script errors on our pages');

      const tokens = await tokenRequest(setup.base, {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        client_id: clientId,
        redirect_uri: redirectUri,
        resource: setup.mcpUrl,
      });
      assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
      const token = String(tokens.body.access_token);
      assert.equal(decodeJwt(token).aud, setup.mcpUrl);
      for (const wire of ['2025', '2026'] as const) {
        const { result } = await callTool(setup.mcpUrl, token, wire, 'whoami_upstream');
        assert.deepEqual(
          result.structuredContent,
          { login: 'ada', status: 200 },
          `${wire}: ${JSON.stringify(result)}`,
        );
      }
      assert.ok(setup.idp.requests.includes('GET /api/whoami'), 'the tool called the loopback API');
    });
  });
}

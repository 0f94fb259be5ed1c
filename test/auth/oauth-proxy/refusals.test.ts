/**
 * `MCP_AUTH=oauth-proxy` under bad input, each refusal with the RFC's error code and a message
 * that says what to do, and nothing issued that should not be: a missing or wrong PKCE
 * verifier; a code used twice (the tokens it issued revoked), and twice at once; a refresh
 * token reused after rotation (the whole family revoked); revocation; a consent forged (no
 * token, another browser) or skipped (straight to the callback, a callback finished in another
 * browser); a denial; the provider's own token replayed to us; our token replayed to another
 * resource; the upstream session ending.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { createServer, type RunningServer } from '../../../src/index.ts';
import { freePort } from '../../e2e/batteries/helpers.ts';
import { upstreamApiPlugin } from '../../fixtures/upstream-api-plugin.ts';
import { cimdHostMissing } from '../../helpers/cimd-host.ts';
import {
  authorizeUrl,
  callTool,
  consentForm,
  type ProxySetup,
  pageError,
  pkce,
  ScriptedBrowser,
  scriptedSignIn,
  signInAs,
  startProxy,
  tokenRequest,
} from './harness.ts';

const skip = cimdHostMissing();

/** POSTs tools/list with a bearer token; the status and the challenge. */
async function listWith(mcpUrl: string, token: string): Promise<{ status: number; challenge: string }> {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
  await res.body?.cancel();
  return { status: res.status, challenge: res.headers.get('www-authenticate') ?? '' };
}

describe('oauth-proxy refusals', { skip }, () => {
  let setup: ProxySetup;
  before(async () => {
    // Upstream access tokens live 20 s, under the 30 s margin: every upstream use refreshes first.
    setup = await startProxy({ shape: 'oidc', upstreamTokenTtlSec: 20 });
  });
  after(() => setup?.close());

  /** A client that got as far as a code. */
  async function codeFor(login = 'ada') {
    const redirectUri = 'http://127.0.0.1:1/callback';
    const clientId = setup.cimd.document('/refusals-client.json', {
      client_name: 'Refusals',
      redirect_uris: [redirectUri],
    });
    const { verifier, challenge } = pkce();
    const { redirect } = await scriptedSignIn(
      authorizeUrl(setup.base, { clientId, redirectUri, challenge, scope: 'api:read offline_access' }),
      { login, redirectUri },
    );
    const code = redirect.searchParams.get('code');
    assert.ok(code, redirect.href);
    return { clientId, redirectUri, verifier, code };
  }

  /** The code exchanged with the client's verifier, another one, or none (`null`). */
  const exchange = (c: Awaited<ReturnType<typeof codeFor>>, verifier: string | null = c.verifier) =>
    tokenRequest(setup.base, {
      grant_type: 'authorization_code',
      code: c.code,
      client_id: c.clientId,
      redirect_uri: c.redirectUri,
      ...(verifier === null ? {} : { code_verifier: verifier }),
    });

  it('refuses a missing or wrong PKCE verifier (invalid_grant)', async () => {
    const missing = await exchange(await codeFor(), null);
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error, 'invalid_grant');
    assert.match(String(missing.body.error_description), /PKCE failed: code_verifier must be provided/);
    const wrong = await exchange(await codeFor(), pkce().verifier);
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error, 'invalid_grant');
    assert.match(
      String(wrong.body.error_description),
      /PKCE failed: code_verifier does not match code_challenge/,
    );
  });

  it('refuses a code used twice and revokes what it issued (invalid_grant, then invalid_token)', async () => {
    const c = await codeFor();
    const first = await exchange(c);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal((await listWith(setup.mcpUrl, String(first.body.access_token))).status, 200);
    const second = await exchange(c);
    assert.equal(second.status, 400);
    assert.equal(second.body.error, 'invalid_grant');
    const refresh = await tokenRequest(setup.base, {
      grant_type: 'refresh_token',
      refresh_token: String(first.body.refresh_token),
      client_id: c.clientId,
    });
    assert.equal(refresh.body.error, 'invalid_grant', 'the refresh token of the first exchange is revoked');
    const replay = await listWith(setup.mcpUrl, String(first.body.access_token));
    assert.equal(replay.status, 401, 'its access token is refused at once');
    assert.match(
      replay.challenge,
      /error="invalid_token", error_description="the grant behind the token was revoked"/,
    );
  });

  it('of two redemptions of one code at once, exactly one wins', async () => {
    const c = await codeFor();
    const results = await Promise.all([exchange(c), exchange(c), exchange(c)]);
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 400, 400]);
    for (const r of results.filter((r) => r.status === 400)) assert.equal(r.body.error, 'invalid_grant');
  });

  it('revokes the whole family when a rotated refresh token is used again (invalid_grant)', async () => {
    const c = await codeFor();
    const first = await exchange(c);
    const rt1 = String(first.body.refresh_token);
    const second = await tokenRequest(setup.base, {
      grant_type: 'refresh_token',
      refresh_token: rt1,
      client_id: c.clientId,
    });
    assert.equal(second.status, 200);
    const reuse = await tokenRequest(setup.base, {
      grant_type: 'refresh_token',
      refresh_token: rt1,
      client_id: c.clientId,
    });
    assert.equal(reuse.status, 400);
    assert.equal(reuse.body.error, 'invalid_grant');
    const rt2 = await tokenRequest(setup.base, {
      grant_type: 'refresh_token',
      refresh_token: String(second.body.refresh_token),
      client_id: c.clientId,
    });
    assert.equal(rt2.body.error, 'invalid_grant', 'the rotated-to token went with the family');
    assert.equal((await listWith(setup.mcpUrl, String(second.body.access_token))).status, 401);
  });

  it('revocation (RFC 7009) ends the grant: its access tokens are refused at once', async () => {
    const c = await codeFor();
    const tokens = await exchange(c);
    const res = await fetch(`${setup.base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: String(tokens.body.refresh_token), client_id: c.clientId }),
    });
    assert.equal(res.status, 200);
    assert.equal((await listWith(setup.mcpUrl, String(tokens.body.access_token))).status, 401);
  });

  describe('consent', () => {
    const redirectUri = 'http://127.0.0.1:1/callback';
    const start = () => {
      const clientId = setup.cimd.document('/consent-client.json', {
        client_name: 'Consent',
        redirect_uris: [redirectUri],
      });
      return authorizeUrl(setup.base, { clientId, redirectUri, challenge: pkce().challenge });
    };

    it('refuses a consent form without its token or with another one (invalid_request)', async () => {
      const browser = new ScriptedBrowser();
      const page = await browser.follow(start());
      const form = consentForm(page.body, page.url);
      for (const csrf of ['', 'forged-token', `${form.csrf}x`]) {
        const res = await browser.request(form.action, { form: { csrf, decision: 'approve' } });
        assert.equal(res.status, 403);
        assert.equal(res.location, undefined, 'nothing sent upstream');
        assert.equal(pageError(res.body).error, 'invalid_request');
      }
      // The real token still works once, then never again.
      const ok = await browser.request(form.action, { form: { csrf: form.csrf, decision: 'approve' } });
      assert.equal(ok.status, 303);
      assert.ok(ok.location?.startsWith(setup.idp.issuer), 'sent to the provider');
      const again = await browser.request(form.action, { form: { csrf: form.csrf, decision: 'approve' } });
      assert.equal(again.status, 403);
    });

    it('refuses a consent posted from another browser, as a cross-site form would be (invalid_request)', async () => {
      const victim = new ScriptedBrowser();
      const page = await victim.follow(start());
      const form = consentForm(page.body, page.url);
      // The attacker has the page's token but not the victim's SameSite interaction cookie.
      const res = await new ScriptedBrowser().request(form.action, {
        form: { csrf: form.csrf, decision: 'approve' },
      });
      assert.equal(res.status, 400);
      assert.equal(pageError(res.body).error, 'invalid_request');
    });

    it('refuses a callback nobody consented to, and one finished in another browser (invalid_request)', async () => {
      const forged = await new ScriptedBrowser().request(`${setup.base}/oauth/callback?code=x&state=made-up`);
      assert.equal(forged.status, 400);
      assert.match(String(pageError(forged.body).error_description), /unknown here/);
      // The victim approves; the attacker's browser finishes the provider's part with that state.
      const victim = new ScriptedBrowser();
      const page = await victim.follow(start());
      const form = consentForm(page.body, page.url);
      const toUpstream = await victim.request(form.action, {
        form: { csrf: form.csrf, decision: 'approve' },
      });
      const attacker = new ScriptedBrowser();
      const upstreamPage = await attacker.follow(String(toUpstream.location));
      const action = /<form method="post" action="([^"]+)">/.exec(upstreamPage.body)?.[1] ?? '';
      const signedIn = await attacker.request(new URL(action, upstreamPage.url).href, {
        form: { login: 'bob' },
      });
      const landed = await attacker.follow(String(signedIn.location), (u) =>
        u.startsWith(`${setup.base}/oauth/callback`),
      );
      const res = await attacker.request(landed.url);
      assert.equal(res.status, 400);
      assert.equal(pageError(res.body).error, 'invalid_request');
      assert.match(String(pageError(res.body).error_description), /did not start it/);
    });

    it('sends a denial to the client as access_denied, with no code', async () => {
      const { redirect } = await scriptedSignIn(start(), {
        login: 'ada',
        decision: 'deny',
        redirectUri,
      });
      assert.equal(redirect.searchParams.get('error'), 'access_denied');
      assert.equal(redirect.searchParams.get('code'), null);
    });
  });

  it("refuses the provider's own token replayed as ours (invalid_token)", async () => {
    await signInAs(setup, 'ada');
    const upstream = setup.idp.issued.findLast((t) => t.id_token !== undefined);
    assert.ok(upstream?.id_token && upstream.access_token);
    for (const token of [upstream.id_token, upstream.access_token]) {
      const res = await listWith(setup.mcpUrl, token);
      assert.equal(res.status, 401);
      assert.match(res.challenge, /error="invalid_token"/);
    }
  });

  it('our token is refused by another resource (audience), and not issued for one (invalid_target)', async () => {
    const { clientId, tokens } = await signInAs(setup, 'ada');
    const port = await freePort();
    let other: RunningServer | undefined;
    try {
      other = await createServer({
        plugins: [upstreamApiPlugin],
        settings: {
          MCP_HTTP_HOST: '127.0.0.1',
          MCP_HTTP_PORT: port,
          MCP_PUBLIC_URL: `http://127.0.0.1:${port}`,
          MCP_AUTH: 'oauth',
          MCP_OAUTH_ISSUER: setup.base,
          MCP_UPSTREAM_API_URL: setup.idp.apiUrl,
          MCP_LOG_LEVEL: 'silent',
        },
        transport: 'http',
        logger: pino({ level: 'silent' }),
      });
      const res = await listWith(`http://127.0.0.1:${port}/mcp`, tokens.access_token);
      assert.equal(res.status, 401);
      assert.match(res.challenge, /meant for another resource \(audience\)/);
    } finally {
      await other?.close();
    }
    const refresh = await tokenRequest(setup.base, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
      resource: 'https://other.example.com/mcp',
    });
    assert.equal(refresh.body.error, 'invalid_target');
  });

  it('refreshes an expired upstream token before use; an ended upstream session signs the user out', async () => {
    const { clientId, tokens } = await signInAs(setup, 'ada');
    const before = setup.idp.tokenGrants.filter((g) => g === 'refresh_token').length;
    const calls = await Promise.all(
      [1, 2, 3].map(() => callTool(setup.mcpUrl, tokens.access_token, '2026', 'whoami_upstream')),
    );
    for (const { result } of calls) assert.deepEqual(result.structuredContent, { login: 'ada', status: 200 });
    const refreshes = setup.idp.tokenGrants.filter((g) => g === 'refresh_token').length - before;
    assert.ok(refreshes >= 1, 'the expired upstream token was refreshed before use');

    await setup.idp.endSessions();
    const { result } = await callTool(setup.mcpUrl, tokens.access_token, '2026', 'whoami_upstream');
    assert.equal(result.isError, true);
    assert.match(JSON.stringify(result.content), /has ended.*sign in to this server again/);
    const next = await listWith(setup.mcpUrl, tokens.access_token);
    assert.equal(next.status, 401, 'the grant went with the upstream session');
    const refresh = await tokenRequest(setup.base, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    assert.equal(refresh.body.error, 'invalid_grant');
  });
});

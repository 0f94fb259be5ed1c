/**
 * `MCP_AUTH=oauth-proxy`, what a client sees before anyone signs in: our RFC 8414 metadata
 * (CIMD supported, S256 only, no registration unless MCP_OAUTH_DCR), the RFC 9728 document
 * naming us as the authorisation server, the JWKS, and the Client ID Metadata Document fetch
 * under attack: not https, a private address, a redirect, too large, too slow, a document that
 * names another client, a redirect_uri it does not list. Each refusal carries the RFC's error
 * code and says what to fix; the server keeps serving.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cimdHostMissing } from '../../helpers/cimd-host.ts';
import {
  authorizeHop,
  authorizeUrl,
  getJson,
  type ProxySetup,
  pkce,
  ScriptedBrowser,
  startProxy,
} from './harness.ts';

const skip = cimdHostMissing();
/**
 * The document fetch's bound: long enough for a loopback fetch on a loaded two-core machine
 * (400 ms was not, at a load average of 30), short enough to wait out for the slow ones.
 */
const CIMD_TIMEOUT_MS = 3000;
/** How long the slow documents take: far past the bound, cleared when their test ends. */
const NEVER_MS = 60_000;

describe('oauth-proxy: metadata and Client ID Metadata Documents', { skip }, () => {
  let setup: ProxySetup;
  let strict: ProxySetup;
  const redirectUri = 'http://127.0.0.1:1/callback';

  before(async () => {
    setup = await startProxy({
      env: { MCP_OAUTH_CIMD_TIMEOUT_MS: String(CIMD_TIMEOUT_MS), MCP_OAUTH_CIMD_MAX_BYTES: '2048' },
    });
    // The default: private and loopback addresses refused.
    strict = await startProxy({
      idp: setup.idp,
      cimd: setup.cimd,
      env: { MCP_OAUTH_CIMD_ALLOW_PRIVATE: 'false' },
    });
  });
  after(async () => {
    await strict?.close();
    await setup?.close();
  });

  it('publishes RFC 8414 metadata: our issuer, S256 only, CIMD supported, no registration', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const { status, body } = await getJson(`${setup.base}${path}`);
      assert.equal(status, 200, path);
      assert.equal(body.issuer, setup.base);
      assert.equal(body.authorization_endpoint, `${setup.base}/oauth/authorize`);
      assert.equal(body.token_endpoint, `${setup.base}/oauth/token`);
      assert.equal(body.revocation_endpoint, `${setup.base}/oauth/revoke`);
      assert.equal(body.jwks_uri, `${setup.base}/oauth/jwks`);
      assert.deepEqual(body.code_challenge_methods_supported, ['S256']);
      assert.deepEqual(body.response_types_supported, ['code']);
      assert.equal(body.client_id_metadata_document_supported, true);
      assert.equal(body.registration_endpoint, undefined, 'DCR is off unless MCP_OAUTH_DCR=true');
    }
    const reg = await fetch(`${setup.base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(reg.status, 404);
  });

  it('names itself as the authorization server in its RFC 9728 document and challenges', async () => {
    const { body } = await getJson(`${setup.base}/.well-known/oauth-protected-resource/mcp`);
    assert.equal(body.resource, setup.mcpUrl);
    assert.deepEqual(body.authorization_servers, [setup.base]);
    assert.ok((body.scopes_supported as string[]).includes('api:read'));
    const res = await fetch(setup.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(res.status, 401);
    assert.match(
      res.headers.get('www-authenticate') ?? '',
      /resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
  });

  it('publishes its signing keys, public parts only', async () => {
    const { body } = await getJson(`${setup.base}/oauth/jwks`);
    const keys = body.keys as Record<string, unknown>[];
    assert.ok(keys.length >= 1);
    for (const key of keys) {
      assert.equal(key.alg, 'ES256');
      assert.equal(key.d, undefined, 'no private key material');
      assert.equal(typeof key.kid, 'string');
    }
  });

  it('fetches a client document and sends the user to our consent page; caches it by its headers', async () => {
    const clientId = setup.cimd.document(
      '/good.json',
      { client_name: 'Good Client', redirect_uris: [redirectUri] },
      { 'cache-control': 'max-age=300' },
    );
    for (let i = 0; i < 2; i++) {
      const hop = await authorizeHop(
        authorizeUrl(setup.base, { clientId, redirectUri, challenge: pkce().challenge }),
      );
      assert.equal(hop.status, 303, JSON.stringify(hop.body));
      assert.match(hop.location ?? '', /\/oauth\/interaction\/[A-Za-z0-9_-]+$/);
    }
    assert.equal(setup.cimd.hits('/good.json'), 1, 'the second authorization used the cached document');
  });

  /** An authorization with this client id is refused with `error`, its description matching `why`. */
  async function refused(
    server: ProxySetup,
    clientId: string,
    error: string,
    why: RegExp,
    uri = redirectUri,
  ) {
    const hop = await authorizeHop(
      authorizeUrl(server.base, { clientId, redirectUri: uri, challenge: pkce().challenge }),
    );
    assert.equal(hop.status, 400, String(hop.body.error_description));
    assert.equal(hop.location, null, 'never redirected to an unverified redirect_uri');
    assert.equal(hop.body.error, error);
    assert.match(String(hop.body.error_description), why);
  }

  it('refuses a client id that is not an https URL (invalid_client)', async () => {
    const http = `http://127.0.0.1:${new URL(setup.cimd.origin).port}/good.json`;
    await refused(setup, http, 'invalid_client', /must be an https URL/);
  });

  it('refuses a document on a private or loopback address unless allowed (invalid_client)', async () => {
    const clientId = setup.cimd.document('/private.json', {
      client_name: 'Private',
      redirect_uris: [redirectUri],
    });
    await refused(
      strict,
      clientId,
      'invalid_client',
      /private, loopback or other special-use address.*MCP_OAUTH_CIMD_ALLOW_PRIVATE/,
    );
    // A name that resolves to loopback is caught when the socket connects, too.
    const byName = `${setup.cimd.localhostOrigin}/by-name.json`;
    setup.cimd.route('/by-name.json', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ client_id: byName, redirect_uris: [redirectUri] }));
    });
    await refused(strict, byName, 'invalid_client', /special-use address/);
    assert.equal(setup.cimd.hits('/private.json'), 0, 'nothing was sent to the private address');
  });

  it('refuses a document that redirects elsewhere (invalid_client)', async () => {
    const target = setup.cimd.document('/target.json', { redirect_uris: [redirectUri] });
    setup.cimd.route('/moved.json', (_req, res) => res.writeHead(302, { location: target }).end());
    await refused(
      setup,
      `${setup.cimd.origin}/moved.json`,
      'invalid_client',
      /redirect \(HTTP 302\).*refused/,
    );
    assert.equal(setup.cimd.hits('/target.json'), 0, 'the redirect was not followed');
  });

  it('refuses a document over the size limit (invalid_client)', async () => {
    const clientId = setup.cimd.document('/large.json', {
      client_name: 'x'.repeat(4000),
      redirect_uris: [redirectUri],
    });
    await refused(setup, clientId, 'invalid_client', /larger than 2048 bytes/);
    // Without Content-Length too: the body is counted as it arrives.
    setup.cimd.route('/chunked.json', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"client_id":"${setup.cimd.origin}/chunked.json","client_name":"`);
      res.write('y'.repeat(3000));
      res.end('"}');
    });
    await refused(setup, `${setup.cimd.origin}/chunked.json`, 'invalid_client', /larger than 2048 bytes/);
  });

  it('refuses a document that is too slow, headers or body (invalid_client)', async () => {
    const slowUrl = `${setup.cimd.origin}/slow.json`;
    const timers: NodeJS.Timeout[] = [];
    setup.cimd.route('/slow.json', (_req, res) => {
      timers.push(
        setTimeout(
          () => res.writeHead(200).end(JSON.stringify({ client_id: slowUrl, redirect_uris: [redirectUri] })),
          NEVER_MS,
        ),
      );
    });
    const dripUrl = `${setup.cimd.origin}/drip.json`;
    setup.cimd.route('/drip.json', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"client_id":"${dripUrl}",`);
      timers.push(setTimeout(() => res.end('"redirect_uris":[]}'), NEVER_MS));
    });
    try {
      const late = new RegExp(`did not arrive within ${CIMD_TIMEOUT_MS} ms`);
      await Promise.all([
        refused(setup, slowUrl, 'invalid_client', late),
        refused(setup, dripUrl, 'invalid_client', late),
      ]);
    } finally {
      for (const t of timers) clearTimeout(t);
    }
  });

  it('refuses a document that names another client id (invalid_client_metadata)', async () => {
    setup.cimd.route('/imposter.json', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ client_id: 'https://claude.ai/oauth/client.json', redirect_uris: [redirectUri] }),
      );
    });
    await refused(
      setup,
      `${setup.cimd.origin}/imposter.json`,
      'invalid_client_metadata',
      /client_id does not match/,
    );
  });

  it('refuses a redirect_uri the document does not list, exactly (invalid_redirect_uri)', async () => {
    const clientId = setup.cimd.document('/strict.json', {
      client_name: 'Strict',
      redirect_uris: ['https://app.example.com/callback'],
    });
    for (const uri of [
      'https://evil.example.com/callback',
      'https://app.example.com/callback/',
      'https://app.example.com/callback?x=1',
    ]) {
      await refused(setup, clientId, 'invalid_redirect_uri', /redirect_uri did not match/, uri);
    }
  });

  it('needs PKCE with S256 at /authorize (invalid_request, on the client redirect)', async () => {
    const clientId = setup.cimd.document('/pkce.json', {
      client_name: 'No PKCE',
      redirect_uris: [redirectUri],
    });
    const hop = await authorizeHop(authorizeUrl(setup.base, { clientId, redirectUri }));
    assert.equal(hop.status, 303);
    const location = new URL(hop.location ?? '');
    assert.equal(location.origin + location.pathname, redirectUri);
    assert.equal(location.searchParams.get('error'), 'invalid_request');
    assert.match(location.searchParams.get('error_description') ?? '', /PKCE/);
  });

  it('refuses a resource other than its own (invalid_target)', async () => {
    const clientId = setup.cimd.document('/target-client.json', { redirect_uris: [redirectUri] });
    const hop = await authorizeHop(
      authorizeUrl(setup.base, {
        clientId,
        redirectUri,
        challenge: pkce().challenge,
        resource: 'https://other.example.com/mcp',
      }),
    );
    const location = new URL(hop.location ?? '');
    assert.equal(location.searchParams.get('error'), 'invalid_target');
  });
});

describe('oauth-proxy: dynamic registration, when asked for', { skip }, () => {
  let setup: ProxySetup;
  before(async () => {
    setup = await startProxy({ env: { MCP_OAUTH_DCR: 'true' } });
  });
  after(() => setup?.close());

  it('advertises and accepts RFC 7591 registration; the consent page says nothing vouches for the name', async () => {
    const { body } = await getJson(`${setup.base}/.well-known/oauth-authorization-server`);
    assert.equal(body.registration_endpoint, `${setup.base}/oauth/register`);
    assert.equal(body.client_id_metadata_document_supported, true, 'documents still work beside it');
    const redirectUri = 'http://127.0.0.1:1/callback';
    const res = await fetch(`${setup.base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Claude',
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: 'none',
      }),
    });
    assert.equal(res.status, 201);
    const client = (await res.json()) as { client_id: string };
    const page = await new ScriptedBrowser().follow(
      authorizeUrl(setup.base, { clientId: client.client_id, redirectUri, challenge: pkce().challenge }),
    );
    assert.equal(page.status, 200);
    assert.match(page.body, /This application registered itself: nothing vouches for its name/);
  });
});

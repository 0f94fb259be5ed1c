/**
 * `mcp-toolkit check --auth` against our own server with `MCP_AUTH=oauth`, trusting a real
 * authorisation server (oidc-provider on loopback): set up correctly, every auth check passes
 * (dynamic registration done twice, PKCE S256, both metadata URLs, a sign-in page before any
 * code) but the CIMD one, a warning; misconfigured (an audience
 * that is not the URL clients use, an issuer without metadata), the checks name what is wrong.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { runCheck } from '../../src/cli/check.ts';
import { authReadinessReport } from '../../src/testing/conformance/auth-readiness.ts';
import type { ConformanceReport } from '../../src/testing/conformance/report.ts';
import { freePort, type InProcessServer, startServer } from '../e2e/batteries/helpers.ts';
import { startOidcProvider, type TestAuthServer } from '../helpers/oidc-provider.ts';

const statuses = (r: ConformanceReport) => Object.fromEntries(r.checks.map((c) => [c.id, c.status]));

describe('check --auth against our server and oidc-provider', () => {
  let as: TestAuthServer;
  let good: InProcessServer;
  let bad: InProcessServer;
  before(async () => {
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    as = await startOidcProvider({ resource, scopes: ['mcp:read'] });
    good = await startServer({ MCP_HTTP_PORT: String(port), MCP_AUTH: 'oauth', MCP_OAUTH_ISSUER: as.issuer });
    const badPort = await freePort();
    bad = await startServer({
      MCP_HTTP_PORT: String(badPort),
      MCP_AUTH: 'oauth',
      // An issuer path where nothing publishes metadata, and a public URL (so a resource and a
      // token audience) that is not the URL clients connect to.
      MCP_OAUTH_ISSUER: `${as.issuer}/tenant-a`,
      MCP_OAUTH_JWKS_URL: `${as.issuer}/jwks`,
      MCP_PUBLIC_URL: `http://localhost:${badPort}`,
    });
  });
  after(async () => {
    await good?.stop();
    await bad?.stop();
    await as?.close();
  });

  test('set up correctly: every check passes but CIMD, the client is registered twice and meets a page', async () => {
    const before = as.requests.filter((r) => r === 'POST /reg').length;
    const report = await authReadinessReport(good.url, { requestTimeoutMs: 5_000 });
    assert.deepEqual(statuses(report), {
      'auth.no-redirect': 'pass',
      'auth.challenge': 'pass',
      'auth.resource-metadata': 'pass',
      'auth.resource-metadata-root': 'pass',
      'auth.audience': 'pass',
      'auth.as-metadata': 'pass',
      'auth.pkce-s256': 'pass',
      // This oidc-provider offers dynamic registration only, which 2026-07-28 deprecates.
      'auth.cimd': 'warn',
      'auth.client-registration': 'pass',
      'auth.consent': 'pass',
    });
    assert.equal(report.ok, true);
    assert.equal(as.requests.filter((r) => r === 'POST /reg').length - before, 2);
    const find = (id: string) => report.checks.find((c) => c.id === id)?.reason ?? '';
    assert.match(find('auth.as-metadata'), /RFC 8414 and OpenID discovery/);
    assert.equal(find('auth.audience'), `tokens must carry aud ${good.url}`);
  });

  test('misconfigured: the audience and the issuer are named, what depends on them is not run', async () => {
    const report = await authReadinessReport(bad.url, { requestTimeoutMs: 5_000 });
    const s = statuses(report);
    assert.deepEqual(
      [s['auth.challenge'], s['auth.resource-metadata'], s['auth.audience'], s['auth.as-metadata']],
      ['pass', 'pass', 'fail', 'fail'],
    );
    assert.deepEqual(
      [s['auth.pkce-s256'], s['auth.client-registration'], s['auth.cimd'], s['auth.consent']],
      ['not-run', 'not-run', 'not-run', 'not-run'],
    );
    const find = (id: string) => report.checks.find((c) => c.id === id)?.reason ?? '';
    assert.match(
      find('auth.audience'),
      /resource http:\/\/localhost:\d+\/mcp, but the client connects to http:\/\/127/,
    );
    assert.match(find('auth.as-metadata'), /tenant-a: .*oauth-authorization-server\/tenant-a: HTTP 404/);
  });

  test('through the CLI: a text report and exit 1 for the misconfigured server; exit 2 for a command target', async () => {
    let out = '';
    const io = {
      out: (t: string) => {
        out += t;
      },
      err: (t: string) => {
        out += t;
      },
      env: {},
    };
    assert.equal(await runCheck(['--auth', bad.url], io), 1, out);
    assert.match(
      out,
      /^✗ auth\.audience: the metadata names the MCP URL as its resource \(the token audience\) \[MUST\]$/m,
    );
    assert.match(out, /^ {4}fix: make resource the public URL clients use/m);
    assert.match(out, /^\d+ passed, 2 failed, \d+ warnings, 4 not run$/m);
    out = '';
    assert.equal(await runCheck(['--auth', good.url, '--json'], io), 0, out);
    assert.equal((JSON.parse(out) as { failed: number }).failed, 0);
    out = '';
    assert.equal(await runCheck(['--auth', '--', 'node', 'server.js'], io), 2);
    assert.match(out, /--auth checks a remote endpoint/);
  });
});

describe('check --auth against stand-ins for what hosted connectors trip on', () => {
  let stand: Server;
  let base: string;
  before(async () => {
    stand = createServer((req, res) => {
      if (req.url === '/slash') res.writeHead(307, { location: '/slash/' }).end();
      else if (req.url === '/bare') res.writeHead(401, { 'www-authenticate': 'Bearer realm="mcp"' }).end();
      else if (req.url === '/open') res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => stand.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(stand.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => stand.close(() => r())));

  test('a redirect of the MCP URL, a challenge without resource_metadata, an open server', async () => {
    const redirect = statuses(await authReadinessReport(`${base}/slash`, { requestTimeoutMs: 2_000 }));
    assert.equal(redirect['auth.no-redirect'], 'warn');
    const bare = await authReadinessReport(`${base}/bare`, { requestTimeoutMs: 2_000 });
    assert.match(bare.checks.find((c) => c.id === 'auth.challenge')?.reason ?? '', /no resource_metadata/);
    assert.equal(statuses(bare)['auth.resource-metadata'], 'fail');
    const open = statuses(await authReadinessReport(`${base}/open`, { requestTimeoutMs: 2_000 }));
    assert.equal(open['auth.challenge'], 'not-run');
  });
});

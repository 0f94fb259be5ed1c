/**
 * `check --auth` on Client ID Metadata Documents and consent: our server (`MCP_AUTH=oauth`) in
 * front of an oidc-provider that accepts CIMD passes `auth.cimd` and registers nothing; and
 * stand-ins for what a real server cannot be made to do: an authorisation server that issues a
 * code before anyone signs in (`auth.consent` fails), and one that sends the user on to another
 * identity provider (a proxy: the consent requirement is reported, not judged).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { runCheck } from '../../src/cli/check.ts';
import { cliClientMetadata } from '../../src/cli/login-client.ts';
import { authReadinessReport } from '../../src/testing/conformance/auth-readiness.ts';
import type { ConformanceReport } from '../../src/testing/conformance/report.ts';
import { freePort, type InProcessServer, startServer } from '../e2e/batteries/helpers.ts';
import { cimdHostMissing, startCimdHost } from '../helpers/cimd-host.ts';
import { startOidcProvider, type TestAuthServer } from '../helpers/oidc-provider.ts';

const check = (r: ConformanceReport, id: string) => r.checks.find((c) => c.id === id);

describe('check --auth against a server that accepts Client ID Metadata Documents', () => {
  let as: TestAuthServer;
  let server: InProcessServer;
  before(async () => {
    const port = await freePort();
    as = await startOidcProvider({
      resource: `http://127.0.0.1:${port}/mcp`,
      scopes: ['mcp:read'],
      cimd: true,
    });
    server = await startServer({
      MCP_HTTP_PORT: String(port),
      MCP_AUTH: 'oauth',
      MCP_OAUTH_ISSUER: as.issuer,
    });
  });
  after(async () => {
    await server?.stop();
    await as?.close();
  });

  test('auth.cimd passes, nothing is registered, and consent is left to a sign-in', async () => {
    const report = await authReadinessReport(server.url, { requestTimeoutMs: 5_000 });
    assert.equal(check(report, 'auth.cimd')?.status, 'pass');
    assert.equal(check(report, 'auth.client-registration')?.reason, 'Client ID Metadata Documents');
    assert.equal(check(report, 'auth.consent')?.status, 'not-run');
    assert.match(
      check(report, 'auth.consent')?.reason ?? '',
      /Client ID Metadata Documents.*consent page naming the client/,
    );
    assert.equal(as.requests.filter((r) => r === 'POST /reg').length, 0);
    assert.equal(report.ok, true);
  });

  test('with --client-metadata-url the authorisation request is made, and meets a page first', {
    skip: cimdHostMissing(),
  }, async () => {
    const host = await startCimdHost();
    try {
      const doc = host.document('/client.json', cliClientMetadata(`${host.origin}/client.json`));
      let out = '';
      const write = (t: string) => {
        out += t;
      };
      const io = { out: write, err: write, env: {} };
      assert.equal(
        await runCheck(['--auth', server.url, '--client-metadata-url', doc, '--json'], io),
        0,
        out,
      );
      const report = JSON.parse(out) as ConformanceReport;
      assert.equal(
        check(report, 'auth.consent')?.status,
        'pass',
        JSON.stringify(check(report, 'auth.consent')),
      );
      assert.match(
        check(report, 'auth.consent')?.reason ?? '',
        /asks the user first \(a page at \/interaction\//,
      );
      assert.ok(host.hits('/client.json') >= 1, 'the authorisation server fetched the document');
      out = '';
      assert.equal(await runCheck([server.url, '--client-metadata-url', doc], io), 2);
      assert.match(out, /--client-metadata-url goes with --auth/);
    } finally {
      await host.close();
    }
  });
});

/**
 * An MCP endpoint that is its own authorisation server (as an OAuth proxy is): the 401, both
 * metadata documents, registration, and an authorisation endpoint that behaves as `mode` says.
 */
function standIn(mode: 'code' | 'upstream' | 'cookie'): Promise<Server> {
  const server = createServer((req, res) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const url = new URL(req.url ?? '/', base);
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/mcp')
      res
        .writeHead(401, {
          'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
        })
        .end();
    else if (url.pathname.startsWith('/.well-known/oauth-protected-resource'))
      json(200, { resource: `${base}/mcp`, authorization_servers: [base] });
    else if (url.pathname === '/.well-known/oauth-authorization-server')
      json(200, {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        registration_endpoint: `${base}/register`,
        code_challenge_methods_supported: ['S256'],
      });
    else if (url.pathname === '/register' && req.method === 'POST') json(201, { client_id: 'c-1' });
    else if (url.pathname === '/authorize') {
      const back = new URL(url.searchParams.get('redirect_uri') ?? '');
      if (mode === 'cookie')
        res
          .writeHead(303, { location: '/interaction/1', 'set-cookie': '_interaction=1; path=/; httponly' })
          .end();
      else if (mode === 'code') {
        back.searchParams.set('code', 'issued-without-asking');
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        res.writeHead(302, { location: back.href }).end();
      } else res.writeHead(302, { location: `/oauth/upstream?next=1` }).end();
    } else if (url.pathname === '/interaction/1')
      // An interaction is tied to the cookie that started it, as oidc-provider's is.
      res
        .writeHead(req.headers.cookie === '_interaction=1' ? 200 : 400, { 'content-type': 'text/html' })
        .end('<form></form>');
    else if (url.pathname === '/oauth/upstream')
      res
        .writeHead(302, { location: 'https://idp.example.test/login/oauth/authorize?client_id=static' })
        .end();
    else res.writeHead(404).end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('check --auth: what the authorisation server does before anyone signs in', () => {
  const servers: Server[] = [];
  after(() => Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r())))));
  const start = async (mode: 'code' | 'upstream' | 'cookie') => {
    const s = await standIn(mode);
    servers.push(s);
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}/mcp`;
  };

  test("a sign-in page behind the server's cookie passes: the probe keeps the cookies a browser would", async () => {
    const report = await authReadinessReport(await start('cookie'), { requestTimeoutMs: 5_000 });
    assert.equal(
      check(report, 'auth.consent')?.status,
      'pass',
      JSON.stringify(check(report, 'auth.consent')),
    );
    assert.match(
      check(report, 'auth.consent')?.reason ?? '',
      /asks the user first \(a page at \/interaction\/1\)/,
    );
  });

  test('a code issued at once fails auth.consent (MUST)', async () => {
    const report = await authReadinessReport(await start('code'), { requestTimeoutMs: 5_000 });
    const consent = check(report, 'auth.consent');
    assert.equal(consent?.status, 'fail');
    assert.equal(consent?.level, 'MUST');
    assert.match(
      consent?.reason ?? '',
      /issued an authorisation code to c-1 without anyone signing in or consenting/,
    );
    assert.equal(check(report, 'auth.cimd')?.status, 'warn');
    assert.equal(report.ok, false);
  });

  test('a server that sends the user to another identity provider is told it must ask consent per client', async () => {
    const report = await authReadinessReport(await start('upstream'), { requestTimeoutMs: 5_000 });
    const consent = check(report, 'auth.consent');
    assert.equal(consent?.status, 'not-run');
    assert.match(
      consent?.reason ?? '',
      /sends the user on to https:\/\/idp\.example\.test to sign in: .* MUST show its own consent page naming each client/,
    );
    assert.equal(report.ok, true);
  });
});

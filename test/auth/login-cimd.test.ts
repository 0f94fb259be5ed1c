/**
 * `login` choosing its client against real authorisation servers (oidc-provider on loopback):
 * its Client ID Metadata Document, served over https on loopback, where the server advertises
 * `client_id_metadata_document_supported`; dynamic registration where it does not (or when no
 * document URL is given); a given client id always; and what to pass when nothing is open. The
 * document is read back before the browser opens, and each way it can be wrong is named.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createOAuthAuthenticator } from '../../src/auth/oauth.ts';
import { getStoredToken, type LoginOptions, login } from '../../src/cli/login.ts';
import { checkClientMetadataUrl, cliClientMetadata } from '../../src/cli/login-client.ts';
import { freePort } from '../e2e/batteries/helpers.ts';
import { type CimdHost, cimdHostMissing, startCimdHost } from '../helpers/cimd-host.ts';
import { browse, startOidcProvider, type TestAuthServer } from '../helpers/oidc-provider.ts';
import { CLI, childEnv, REPO_ROOT } from '../helpers/spawn-server.ts';

const RESOURCE = 'http://127.0.0.1:9/mcp';
const SCOPES = ['mcp:read'];
const skip = cimdHostMissing();

let host: CimdHost;
let cimdAs: TestAuthServer;
let dcrAs: TestAuthServer;
let cimdOnly: TestAuthServer;
let neither: TestAuthServer;
let dir: string;

before(async () => {
  if (skip) return;
  dir = await mkdtemp(join(tmpdir(), 'mcp-login-cimd-'));
  host = await startCimdHost();
  [cimdAs, dcrAs, cimdOnly, neither] = await Promise.all([
    startOidcProvider({ resource: RESOURCE, scopes: SCOPES, cimd: true }),
    startOidcProvider({ resource: RESOURCE, scopes: SCOPES }),
    startOidcProvider({ resource: RESOURCE, scopes: SCOPES, cimd: true, registration: false }),
    startOidcProvider({ resource: RESOURCE, scopes: SCOPES, registration: false }),
  ]);
});
after(async () => {
  await Promise.all([host?.close(), cimdAs?.close(), dcrAs?.close(), cimdOnly?.close(), neither?.close()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

let files = 0;
/** Signs in at `as`, the "user" approving in `browse`; collects the URL shown and the notices. */
async function signIn(as: TestAuthServer, extra: Partial<LoginOptions> = {}) {
  const shown: URL[] = [];
  const notices: string[] = [];
  const tokenFile = join(dir, `tokens-${files++}.json`);
  const result = await login({
    issuer: as.issuer,
    scopes: SCOPES,
    noBrowser: true,
    tokenFile,
    onNotice: (text) => notices.push(text),
    onUrl: async (url) => {
      shown.push(new URL(url));
      const page = await browse(url);
      assert.equal(page.status, 200, page.body);
    },
    ...extra,
  });
  return { result, shown, notices, tokenFile };
}

const registrations = (as: TestAuthServer) => as.requests.filter((r) => r === 'POST /reg').length;

/** The client a token names, verified as the resource server would. */
async function tokenClient(as: TestAuthServer, tokenFile: string): Promise<string> {
  const token = await getStoredToken(as.issuer, { tokenFile });
  assert.ok(token);
  const auth = createOAuthAuthenticator({
    issuer: as.issuer,
    audience: RESOURCE,
    resourceMetadataUrl: `${RESOURCE}/meta`,
  });
  return (await auth.authenticate({ headers: { authorization: `Bearer ${token}` } })).clientId;
}

describe('login presents its Client ID Metadata Document', { skip }, () => {
  it('where the server supports them: the URL is the client id, the redirect any loopback port', async () => {
    const url = host.document(
      '/mcp-toolkit/client.json',
      cliClientMetadata(`${host.origin}/mcp-toolkit/client.json`),
    );
    const before = registrations(cimdAs);
    const { result, shown, notices, tokenFile } = await signIn(cimdAs, { clientMetadataUrl: url });
    assert.equal(result.registration, 'cimd');
    assert.equal(result.clientId, url);
    assert.deepEqual(notices, []);
    assert.equal(registrations(cimdAs), before, 'no dynamic registration');
    assert.equal(shown[0]?.searchParams.get('client_id'), url);
    assert.match(shown[0]?.searchParams.get('redirect_uri') ?? '', /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    // Read by login before the browser opened, and by the authorisation server.
    assert.ok(host.hits('/mcp-toolkit/client.json') >= 2);
    assert.equal(await tokenClient(cimdAs, tokenFile), url);

    // The refresh token works for the CIMD client too.
    const later = Date.now() + 3_600_000;
    assert.ok(await getStoredToken(cimdAs.issuer, { tokenFile, now: () => later }));
  });

  it('listens on the port a redirect URI names, for servers that compare them exactly', async () => {
    const port = await freePort();
    const listed = `http://127.0.0.1:${port}/oauth/done`;
    const url = host.document('/fixed-port.json', {
      ...cliClientMetadata(`${host.origin}/fixed-port.json`),
      redirect_uris: ['http://127.0.0.1/callback', listed],
    });
    const { result, shown } = await signIn(cimdAs, { clientMetadataUrl: url });
    assert.equal(result.registration, 'cimd');
    assert.equal(shown[0]?.searchParams.get('redirect_uri'), listed);
  });

  it('a redirect port something else holds fails at once, naming the URI', async () => {
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const port = (holder.address() as AddressInfo).port;
    try {
      const url = host.document('/busy-port.json', {
        ...cliClientMetadata(`${host.origin}/busy-port.json`),
        redirect_uris: [`http://127.0.0.1:${port}/callback`],
      });
      await assert.rejects(
        login({
          issuer: cimdAs.issuer,
          clientMetadataUrl: url,
          noBrowser: true,
          tokenFile: join(dir, 'never.json'),
          onUrl: () => {},
        }),
        new RegExp(
          `http://127\\.0\\.0\\.1:${port}/callback is the redirect URI of the client, but port ${port} is in use`,
        ),
      );
    } finally {
      holder.close();
    }
  });

  it('a document that cannot be fetched is named before the browser opens', async () => {
    const closed = await freePort();
    await assert.rejects(
      login({
        issuer: cimdAs.issuer,
        clientMetadataUrl: `https://127.0.0.1:${closed}/client.json`,
        noBrowser: true,
        tokenFile: join(dir, 'never.json'),
        onUrl: () => assert.fail('the browser was sent'),
      }),
      /the Client ID Metadata Document at https:\/\/127\.0\.0\.1:\d+\/client\.json could not be fetched/,
    );
  });

  it('the document is checked before the browser opens, each fault named', async () => {
    const cases: [string, (path: string, url: string) => void, RegExp][] = [
      ['missing', () => {}, /answered HTTP 404; serve the document there with status 200/],
      [
        'redirected',
        (p) => host.route(p, (_q, res) => res.writeHead(302, { location: '/elsewhere' }).end()),
        /answered HTTP 302/,
      ],
      ['not JSON', (p) => host.route(p, (_q, res) => res.end('<html>')), /is not JSON; print one with/],
      ['an array', (p) => host.route(p, (_q, res) => res.end('[]')), /is not a JSON object/],
      [
        'another client_id',
        (p) => host.document(p, { ...cliClientMetadata('https://elsewhere.example/c.json') }),
        /names client_id "https:\/\/elsewhere\.example\/c\.json"; it must be exactly/,
      ],
      [
        'a client secret method',
        (p, url) =>
          host.document(p, { ...cliClientMetadata(url), token_endpoint_auth_method: 'client_secret_basic' }),
        /token_endpoint_auth_method "client_secret_basic"; login is a public client/,
      ],
      [
        'no loopback redirect',
        (p, url) =>
          host.document(p, {
            ...cliClientMetadata(url),
            redirect_uris: ['https://app.example/cb', 'http://localhost/callback', 'http://127.0.0.1/cb?x=1'],
          }),
        /lists no loopback redirect login can receive: add "http:\/\/127\.0\.0\.1\/callback"/,
      ],
      [
        'too large',
        (p, url) =>
          host.route(p, (_q, res) => {
            const body = JSON.stringify({ ...cliClientMetadata(url), padding: 'x'.repeat(70_000) });
            res.writeHead(200, {
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(body),
            });
            res.end(body);
          }),
        /is \d+ bytes; keep it small/,
      ],
      [
        'too large, without a length',
        (p) =>
          host.route(p, (_q, res) => {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.write('{"a":"');
            res.end(`${'x'.repeat(70_000)}"}`);
          }),
        /is more than 65536 bytes; keep it small/,
      ],
    ];
    for (const [what, serve, expected] of cases) {
      const p = `/bad-${what.replace(/\W+/g, '-')}.json`;
      const url = `${host.origin}${p}`;
      serve(p, url);
      let opened = false;
      await assert.rejects(
        login({
          issuer: cimdAs.issuer,
          clientMetadataUrl: url,
          noBrowser: true,
          tokenFile: join(dir, 'never.json'),
          onUrl: () => {
            opened = true;
          },
        }),
        expected,
        what,
      );
      assert.equal(opened, false, `${what}: the browser was not sent anywhere`);
    }
  });
});

describe('login falls back', { skip }, () => {
  it('to dynamic registration where the server does not accept documents, and says so', async () => {
    const url = host.document('/unused.json', cliClientMetadata(`${host.origin}/unused.json`));
    const before = registrations(dcrAs);
    const { result, notices, tokenFile } = await signIn(dcrAs, { clientMetadataUrl: url });
    assert.equal(result.registration, 'dcr');
    assert.equal(registrations(dcrAs), before + 1);
    assert.equal(host.hits('/unused.json'), 0, 'the document is not read when it is not used');
    assert.match(
      notices.join('\n'),
      /does not accept Client ID Metadata Documents .* registering a client dynamically/,
    );
    assert.equal(await tokenClient(dcrAs, tokenFile), result.clientId);
  });

  it('to dynamic registration when no document URL is given, pointing at --client-metadata-url', async () => {
    const { result, notices } = await signIn(cimdAs);
    assert.equal(result.registration, 'dcr');
    assert.match(
      notices.join('\n'),
      /accepts Client ID Metadata Documents, which replace dynamic registration .*--client-metadata-url/,
    );
  });

  it('a given client id is used as is, whatever the server offers', async () => {
    for (const as of [cimdAs, neither]) {
      const before = registrations(as);
      const { result } = await signIn(as, { clientId: as.staticClientId });
      assert.equal(result.registration, 'client-id');
      assert.equal(result.clientId, as.staticClientId);
      assert.equal(registrations(as), before);
    }
  });

  it('says what to pass when no way is open', async () => {
    const base = { noBrowser: true, tokenFile: join(dir, 'never.json'), onUrl: () => {} };
    await assert.rejects(
      login({ ...base, issuer: neither.issuer }),
      /offers neither Client ID Metadata Documents nor dynamic client registration: pass a registered client with --client-id/,
    );
    await assert.rejects(
      login({ ...base, issuer: cimdOnly.issuer }),
      /by Client ID Metadata Documents only: host the document .*--print-client-metadata.* and pass --client-metadata-url, or .*--client-id/,
    );
  });
});

describe('the client metadata URL and document', () => {
  it('refuses a URL no server accepts as a client id', () => {
    const cases: [string, RegExp][] = [
      ['http://example.com/c.json', /must be https/],
      ['https://example.com', /needs a path/],
      ['https://example.com/', /needs a path/],
      ['https://example.com/c.json#x', /fragment/],
      ['https://u:p@example.com/c.json', /credentials/],
      ['https://example.com/a/../c.json', /\. or \.\. segments/],
      ['not a url', /not a URL/],
    ];
    for (const [url, expected] of cases) assert.throws(() => checkClientMetadataUrl(url), expected, url);
    assert.doesNotThrow(() => checkClientMetadataUrl('https://example.com/mcp-toolkit/client.json'));
  });

  it('`login --print-client-metadata` prints the document to host; a bad URL is a usage error', () => {
    const run = (args: string[]) =>
      spawnSync(process.execPath, [CLI, 'login', ...args], {
        cwd: REPO_ROOT,
        env: childEnv(),
        encoding: 'utf8',
        timeout: 60_000,
      });
    const url = 'https://example.com/mcp-toolkit/client.json';
    const printed = run(['--print-client-metadata', '--client-metadata-url', url]);
    assert.equal(printed.status, 0, printed.stderr);
    assert.deepEqual(JSON.parse(printed.stdout), cliClientMetadata(url));
    assert.deepEqual(JSON.parse(printed.stdout).redirect_uris, ['http://127.0.0.1/callback']);
    const bad = run(['--print-client-metadata', '--client-metadata-url', 'http://example.com/c.json']);
    assert.equal(bad.status, 2);
    assert.match(
      bad.stderr,
      /--client-metadata-url http:\/\/example\.com\/c\.json: a client id URL must be https/,
    );
    const missing = run(['--print-client-metadata']);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /--print-client-metadata needs --client-metadata-url/);
  });
});

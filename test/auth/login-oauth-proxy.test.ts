/**
 * `mcp-toolkit login` against our own authorisation server (`MCP_AUTH=oauth-proxy`, in front
 * of an upstream OpenID Connect provider): it presents its Client ID Metadata Document (the
 * one `--print-client-metadata` prints, its redirect the loopback callback on any port), the
 * user approves our consent page and signs in upstream, and the stored token calls a scoped
 * tool on both wires. `check --auth` reports the server's CIMD support and, with the same
 * document, that it asks the user before issuing a code. With `MCP_OAUTH_DCR=true` and no
 * document, login falls back to dynamic registration and says why.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCheck } from '../../src/cli/check.ts';
import { getStoredToken, type LoginOptions, login } from '../../src/cli/login.ts';
import { cliClientMetadata } from '../../src/cli/login-client.ts';
import type { ConformanceReport } from '../../src/testing/conformance/report.ts';
import { cimdHostMissing } from '../helpers/cimd-host.ts';
import { callTool, type ProxySetup, scriptedSignIn, startProxy } from './oauth-proxy/harness.ts';

const skip = cimdHostMissing();

describe('login against MCP_AUTH=oauth-proxy', { skip }, () => {
  let setup: ProxySetup;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcp-login-proxy-'));
    setup = await startProxy({ env: { MCP_OAUTH_DCR: 'true' } });
  });
  after(async () => {
    await setup?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Signs ada in: our consent page, the upstream sign-in, and the browser back at login's receiver. */
  async function signIn(extra: Partial<LoginOptions>) {
    const notices: string[] = [];
    const shown: URL[] = [];
    const tokenFile = join(dir, `tokens-${Math.random().toString(36).slice(2)}.json`);
    const result = await login({
      serverUrl: setup.mcpUrl,
      noBrowser: true,
      tokenFile,
      onNotice: (text) => notices.push(text),
      onUrl: async (url) => {
        const authUrl = new URL(url);
        shown.push(authUrl);
        const redirectUri = authUrl.searchParams.get('redirect_uri') ?? '';
        const { redirect } = await scriptedSignIn(url, { login: 'ada', redirectUri });
        // The browser arrives at login's loopback receiver.
        const landed = await fetch(redirect);
        assert.equal(landed.status, 200, await landed.text());
      },
      ...extra,
    });
    return { result, notices, shown, tokenFile };
  }

  it('presents its Client ID Metadata Document, and the token calls a scoped tool on both wires', async () => {
    const path = '/mcp-toolkit/client.json';
    const url = setup.cimd.document(path, cliClientMetadata(`${setup.cimd.origin}${path}`));
    const { result, notices, shown, tokenFile } = await signIn({ clientMetadataUrl: url });
    assert.equal(result.registration, 'cimd');
    assert.equal(result.clientId, url);
    assert.equal(result.issuer, setup.base);
    assert.deepEqual(notices, []);
    assert.equal(shown[0]?.searchParams.get('client_id'), url);
    // The document names the callback without a port; the server accepted a system-picked one.
    assert.match(shown[0]?.searchParams.get('redirect_uri') ?? '', /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    assert.ok(setup.cimd.hits(path) >= 2, 'read by login, then by the authorisation server');

    const token = await getStoredToken(setup.mcpUrl, { tokenFile });
    assert.ok(token);
    for (const wire of ['2025', '2026'] as const) {
      const { names, result: called } = await callTool(setup.mcpUrl, token, wire, 'whoami_upstream');
      assert.ok(names.includes('whoami_upstream'));
      assert.deepEqual(called.structuredContent, { login: 'ada', status: 200 });
    }
    // A refresh with the CIMD client id works too.
    const later = Date.now() + 3_600_000;
    const refreshed = await getStoredToken(setup.mcpUrl, { tokenFile, now: () => later });
    assert.ok(refreshed && refreshed !== token);
  });

  it('falls back to dynamic registration (MCP_OAUTH_DCR=true) without a document, pointing at CIMD', async () => {
    const { result, notices } = await signIn({});
    assert.equal(result.registration, 'dcr');
    assert.notEqual(result.clientId, '');
    assert.match(
      notices.join('\n'),
      /accepts Client ID Metadata Documents, which replace dynamic registration/,
    );
  });

  it('check --auth: CIMD supported, and with the document, a page before any code', async () => {
    const path = '/check/client.json';
    const url = setup.cimd.document(path, cliClientMetadata(`${setup.cimd.origin}${path}`));
    let out = '';
    const write = (t: string) => {
      out += t;
    };
    const code = await runCheck(['--auth', setup.mcpUrl, '--client-metadata-url', url, '--json'], {
      out: write,
      err: write,
      env: {},
    });
    const report = JSON.parse(out) as ConformanceReport;
    const status = (id: string) => report.checks.find((c) => c.id === id);
    assert.equal(status('auth.cimd')?.status, 'pass');
    assert.equal(status('auth.client-registration')?.status, 'pass');
    assert.equal(status('auth.consent')?.status, 'pass', JSON.stringify(status('auth.consent')));
    assert.equal(code, 0, out);
  });
});

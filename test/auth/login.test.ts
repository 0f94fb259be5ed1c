/**
 * `login` end to end against a real authorisation server (oidc-provider) on loopback, and a
 * stand-in MCP endpoint that does what the HTTP edge does with the authenticator: 401/403 with
 * `WWW-Authenticate` and a JSON-RPC error body, the RFC 9728 document at its well-known path.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AuthError } from '../../src/auth/errors.ts';
import { createOAuthAuthenticator } from '../../src/auth/oauth.ts';
import { protectedResourceMetadata, resourceUrls } from '../../src/auth/resource-metadata.ts';
import type { Authenticator } from '../../src/auth/types.ts';
import { ProtocolError } from '../../src/base/errors.ts';
import { resourceMetadataPath } from '../../src/base/oauth-urls.ts';
import { getStoredToken, login } from '../../src/cli/login.ts';
import { browse, startOidcProvider, type TestAuthServer } from '../helpers/oidc-provider.ts';

const SCOPES = ['mcp:read', 'mcp:write'];

let as: TestAuthServer;
let mcp: Server;
let resource: string;
let auth: Authenticator;
let dir: string;
let tokenFile: string;

/** Answers like the HTTP edge: the metadata document, and POST /mcp behind the authenticator. */
function startMcpStandIn(): Promise<Server> {
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'GET' && path === resourceMetadataPath('/mcp')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          protectedResourceMetadata({ resource, authorizationServers: [as.issuer], scopesSupported: SCOPES }),
        ),
      );
      return;
    }
    if (req.method !== 'POST' || path !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    try {
      const identity = await auth.authenticate({ headers: req.headers });
      // A tool that needs a scope nobody was granted, checked before its handler would run.
      if (req.headers['x-tool'] === 'admin') auth.checkScopes(identity, ['mcp:admin']);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          result: { subject: identity.subject, scopes: identity.scopes },
        }),
      );
    } catch (err) {
      const status = err instanceof ProtocolError ? (err.httpStatus ?? 500) : 500;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (err instanceof AuthError) headers['www-authenticate'] = err.challenge;
      res.writeHead(status, headers);
      res.end(
        JSON.stringify({ jsonrpc: '2.0', id: null, error: err instanceof ProtocolError ? err.toJSON() : {} }),
      );
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

interface RpcReply {
  result?: { subject?: string; scopes?: string[] };
  error?: { code: number; message: string };
}

async function callMcp(token: string | undefined, tool?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (tool !== undefined) headers['x-tool'] = tool;
  const res = await fetch(resource, { method: 'POST', headers, body: '{}' });
  return {
    status: res.status,
    challenge: res.headers.get('www-authenticate'),
    body: (await res.json()) as RpcReply,
  };
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-login-'));
  tokenFile = join(dir, 'config', 'mcp-toolkit', 'tokens.json');
  mcp = await startMcpStandIn();
  const urls = resourceUrls({
    publicUrl: `http://127.0.0.1:${(mcp.address() as AddressInfo).port}`,
    mcpPath: '/mcp',
  });
  resource = urls.resource;
  as = await startOidcProvider({ resource, scopes: SCOPES });
  auth = createOAuthAuthenticator({
    issuer: as.issuer,
    audience: urls.audience,
    resourceMetadataUrl: urls.resourceMetadataUrl,
    requiredScopes: ['mcp:read'],
  });
});

after(async () => {
  mcp.closeAllConnections();
  mcp.close();
  await as.close();
  await rm(dir, { recursive: true, force: true });
});

describe('login against oidc-provider', () => {
  it('finds the issuer from the resource metadata, registers, signs in, and the token opens the server', async () => {
    const refused = await callMcp(undefined);
    assert.equal(refused.status, 401);
    assert.match(
      refused.challenge ?? '',
      /resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    assert.equal(refused.body.error?.code, -32030);

    const opened: string[] = [];
    const result = await login({
      serverUrl: resource,
      noBrowser: true,
      tokenFile,
      openBrowser: (url) => {
        opened.push(url);
      },
      onUrl: async (url) => {
        const authUrl = new URL(url);
        assert.equal(authUrl.searchParams.get('code_challenge_method'), 'S256');
        assert.equal(authUrl.searchParams.get('resource'), resource);
        assert.match(authUrl.searchParams.get('redirect_uri') ?? '', /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
        const page = await browse(url);
        assert.equal(page.status, 200);
      },
    });
    assert.deepEqual(opened, []);
    assert.equal(result.issuer, as.issuer);
    assert.equal(result.serverUrl, resource);
    assert.ok(as.requests.includes('POST /reg'), 'dynamic client registration was used');

    // The file and its directory are the user's alone.
    assert.equal((await stat(tokenFile)).mode & 0o777, 0o600);
    assert.equal((await stat(dirname(tokenFile))).mode & 0o777, 0o700);

    const token = await getStoredToken(resource, { tokenFile });
    assert.ok(token);
    const ok = await callMcp(token);
    assert.equal(ok.status, 200);
    assert.equal(ok.body.result?.subject, 'user-1');
    assert.deepEqual(ok.body.result?.scopes, SCOPES);

    const forbidden = await callMcp(token, 'admin');
    assert.equal(forbidden.status, 403);
    assert.match(
      forbidden.challenge ?? '',
      /^Bearer error="insufficient_scope", scope="mcp:admin", resource_metadata="/,
    );
    assert.equal(forbidden.body.error?.code, -32031);
  });

  it('refreshes an expired token with the refresh token and saves the new one', async () => {
    const before = await getStoredToken(resource, { tokenFile });
    assert.ok(before);
    const tokenCalls = () => as.requests.filter((r) => r === 'POST /token').length;
    const calls = tokenCalls();
    const later = Date.now() + 3_600_000;
    const refreshed = await getStoredToken(resource, { tokenFile, now: () => later });
    assert.ok(refreshed);
    assert.notEqual(refreshed, before);
    assert.equal(tokenCalls(), calls + 1);
    assert.equal((await callMcp(refreshed)).status, 200);

    const file = JSON.parse(await readFile(tokenFile, 'utf8'));
    assert.equal(file.servers[resource].accessToken, refreshed);
    assert.equal((await stat(tokenFile)).mode & 0o777, 0o600);
    // Valid again: served from the file with no new token request.
    assert.equal(await getStoredToken(resource, { tokenFile }), refreshed);
    assert.equal(tokenCalls(), calls + 1);
  });

  it('signs in with a given issuer and a pre-registered client, opening the browser when asked', async () => {
    const registrations = as.requests.filter((r) => r === 'POST /reg').length;
    const issuerFile = join(dir, 'issuer-tokens.json');
    const shown: string[] = [];
    const result = await login({
      issuer: as.issuer,
      clientId: as.staticClientId,
      scopes: ['mcp:read'],
      noBrowser: false,
      tokenFile: issuerFile,
      onUrl: (url) => {
        shown.push(url);
      },
      openBrowser: async (url) => {
        await browse(url);
      },
    });
    assert.equal(shown.length, 1);
    assert.equal(result.clientId, as.staticClientId);
    assert.equal(as.requests.filter((r) => r === 'POST /reg').length, registrations);
    const token = await getStoredToken(as.issuer, { tokenFile: issuerFile });
    assert.ok(token);
    const ok = await callMcp(token);
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body.result?.scopes, ['mcp:read']);
  });

  it('gives up at once when the URL cannot be shown, and at the timeout when nobody signs in', async () => {
    const base = { issuer: as.issuer, clientId: as.staticClientId, noBrowser: true, tokenFile };
    await assert.rejects(
      login({
        ...base,
        onUrl: async () => {
          throw new Error('no display');
        },
      }),
      /no display/,
    );
    await assert.rejects(login({ ...base, timeoutMs: 50, onUrl: () => {} }), /Timed out/);
  });

  it('says what to do when the server publishes no resource metadata', async () => {
    await assert.rejects(
      login({ serverUrl: `${as.issuer}/not-mcp`, noBrowser: true, tokenFile, onUrl: () => {} }),
      /--issuer/,
    );
    assert.equal(await getStoredToken('http://127.0.0.1:9/unknown', { tokenFile }), undefined);
  });
});

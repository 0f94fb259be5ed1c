/**
 * `MCP_AUTH=oauth` on the real server (serve(), real sockets) against a loopback issuer that
 * mints whatever tokens the test asks for: a valid token opens the server for the official
 * SDK client; wrong audience, expired, another issuer, an unknown key, `alg: none` and an
 * HMAC keyed with the public key are each 401 and the server stays up; the RFC 9728
 * document and the challenges are right; a tool's own scope is 403 `insufficient_scope`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { exportSPKI, SignJWT } from 'jose';
import { ErrorCode } from '../../../src/base/errors.ts';
import { type IssuedKey, startTokenIssuer, type TokenIssuer } from '../../auth/token-issuer.ts';
import {
  BATTERIES_PLUGIN,
  callTool2026,
  connectSdk,
  ECHO_PLUGIN,
  type InProcessServer,
  openSession,
  post,
  rpcError,
  rpcResult,
  startServer,
  textOf,
} from './helpers.ts';

// The port is dynamic, so the public URL (and with it the resource and audience) is explicit.
const PUBLIC_URL = 'https://mcp.example.test';
const RESOURCE = `${PUBLIC_URL}/mcp`;
const METADATA_URL = `${PUBLIC_URL}/.well-known/oauth-protected-resource/mcp`;

let issuer: TokenIssuer;
let key: IssuedKey;
let rsaKey: IssuedKey;
let server: InProcessServer;

before(async () => {
  issuer = await startTokenIssuer();
  key = await issuer.addKey('ES256');
  rsaKey = await issuer.addKey('RS256');
  server = await startServer({
    MCP_AUTH: 'oauth',
    MCP_OAUTH_ISSUER: issuer.issuer,
    MCP_PUBLIC_URL: PUBLIC_URL,
    MCP_OAUTH_SCOPES: 'mcp:read',
    MCP_PLUGINS: `${ECHO_PLUGIN},${BATTERIES_PLUGIN}`,
    // Scoped tools stay listed and answer 403, so a client can step up (the default hides them).
    MCP_SCOPE_VISIBILITY: 'challenge',
  });
});
after(async () => {
  await server?.stop();
  await issuer?.close();
});

/** A token this server accepts, plus `claims`. */
function token(claims: Record<string, unknown> = {}, signer: IssuedKey = key): Promise<string> {
  return issuer.sign(signer, {
    aud: RESOURCE,
    sub: 'user-7',
    client_id: 'app-1',
    scope: 'mcp:read files:write',
    ...claims,
  });
}

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

async function expectRejected(t: string, what: string): Promise<void> {
  const reply = await callTool2026(server.url, 1, 'echo', { text: 'x' }, bearer(t));
  assert.equal(reply.status, 401, `${what}: ${JSON.stringify(reply.body)}`);
  const challenge = reply.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /^Bearer error="invalid_token"/, what);
  assert.ok(challenge.includes(`resource_metadata="${METADATA_URL}"`), `${what}: ${challenge}`);
  assert.equal(rpcError(reply.body)?.code, ErrorCode.Unauthorized, what);
}

/** A valid call right after a refusal: the server is still up and still verifying. */
async function expectStillServing(): Promise<void> {
  const reply = await callTool2026(server.url, 2, 'echo', { text: 'alive' }, bearer(await token()));
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  assert.equal(textOf(rpcResult(reply.body)), 'alive');
}

describe('oauth on the real server', () => {
  test('a valid token opens the server for the official SDK client, and its identity reaches ctx', async () => {
    const client = await connectSdk(server.url, bearer(await token()));
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'add'));
      const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
      assert.deepEqual(sum.structuredContent, { sum: 5 });
      const me = await client.callTool({ name: 'whoami', arguments: {} });
      assert.deepEqual(me.structuredContent, {
        clientId: 'app-1',
        subject: 'user-7',
        scopes: ['mcp:read', 'files:write'],
      });
    } finally {
      await client.close();
    }
  });

  test('no token: 401 whose challenge points at the metadata and names the required scope', async () => {
    const reply = await callTool2026(server.url, 1, 'echo', { text: 'x' });
    assert.equal(reply.status, 401);
    assert.equal(
      reply.headers.get('www-authenticate'),
      `Bearer resource_metadata="${METADATA_URL}", scope="mcp:read"`,
    );
    assert.equal(rpcError(reply.body)?.code, ErrorCode.Unauthorized);
  });

  test('the protected resource metadata document (RFC 9728) is served at the path-inserted URL', async () => {
    const res = await fetch(`${server.origin}/.well-known/oauth-protected-resource/mcp`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    const doc = (await res.json()) as Record<string, unknown>;
    assert.equal(doc.resource, RESOURCE);
    assert.deepEqual(doc.authorization_servers, [issuer.issuer]);
    // The request-wide scope and every tool's own scope.
    assert.deepEqual([...(doc.scopes_supported as string[])].sort(), ['files:write', 'mcp:read']);
    assert.deepEqual(doc.bearer_methods_supported, ['header']);
    // It needs no token: a client reads it before it has one.
  });

  const now = () => Math.floor(Date.now() / 1000);
  const cases: [string, () => Promise<string>][] = [
    ['a wrong audience', () => token({ aud: 'https://other.example.test/mcp' })],
    ['an expired token', () => token({ iat: now() - 7200, exp: now() - 3600 })],
    ['another issuer', () => token({ iss: 'https://issuer.other.example.test' })],
    ['a key the JWKS does not hold', async () => token({}, await issuer.addKey('ES256', { publish: false }))],
    [
      'alg: none',
      async () => {
        const claims = {
          iss: issuer.issuer,
          aud: RESOURCE,
          sub: 'user-7',
          scope: 'mcp:read',
          exp: now() + 300,
        };
        return `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`;
      },
    ],
    [
      'HS256 keyed with the public RSA key',
      async () => {
        const pem = await exportSPKI(rsaKey.publicKey);
        return new SignJWT({ iss: issuer.issuer, aud: RESOURCE, sub: 'user-7', scope: 'mcp:read' })
          .setProtectedHeader({ alg: 'HS256', kid: rsaKey.kid })
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode(pem));
      },
    ],
    [
      'HS256 keyed with the public JWK',
      async () =>
        new SignJWT({ iss: issuer.issuer, aud: RESOURCE, sub: 'user-7', scope: 'mcp:read' })
          .setProtectedHeader({ alg: 'HS256', kid: rsaKey.kid })
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode(JSON.stringify(rsaKey.publicJwk))),
    ],
  ];
  for (const [what, make] of cases) {
    test(`${what}: 401 invalid_token, and the server stays up`, async () => {
      await expectRejected(await make(), what);
      await expectStillServing();
    });
  }

  test('a token without a required scope (MCP_OAUTH_SCOPES): 403 insufficient_scope', async () => {
    const reply = await callTool2026(
      server.url,
      1,
      'echo',
      { text: 'x' },
      bearer(await token({ scope: 'other' })),
    );
    assert.equal(reply.status, 403);
    assert.match(reply.headers.get('www-authenticate') ?? '', /error="insufficient_scope", scope="mcp:read"/);
    assert.equal(rpcError(reply.body)?.code, ErrorCode.Forbidden);
  });

  test("a tool's own scope: HTTP 403 with error=insufficient_scope and the scope, on both wires", async () => {
    const readOnly = bearer(await token({ scope: 'mcp:read' }));
    const challenge = `Bearer error="insufficient_scope", scope="files:write", resource_metadata="${METADATA_URL}"`;

    const modern = await callTool2026(server.url, 1, 'write_note', { text: 'n' }, readOnly);
    assert.equal(modern.status, 403, JSON.stringify(modern.body));
    assert.equal(modern.headers.get('www-authenticate'), challenge);
    assert.equal(rpcError(modern.body)?.code, ErrorCode.Forbidden);
    assert.equal((modern.body as { id?: unknown }).id, 1);

    const session = await openSession(server.url, readOnly);
    const legacy = await post(
      server.url,
      {
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'write_note', arguments: { text: 'n' } },
      },
      { ...readOnly, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    );
    assert.equal(legacy.status, 403);
    assert.equal(legacy.headers.get('www-authenticate'), challenge);
    assert.equal(rpcError(legacy.body)?.code, ErrorCode.Forbidden);

    // With the scope, the same call runs.
    const allowed = await callTool2026(server.url, 2, 'write_note', { text: 'n' }, bearer(await token()));
    assert.equal(allowed.status, 200);
    assert.equal(textOf(rpcResult(allowed.body)), 'saved: n');
  });
});

describe('oauth with scoped items hidden (MCP_SCOPE_VISIBILITY=hide, the default)', () => {
  test("a token without a tool's scope neither lists it nor can call it; one with the scope does both", async () => {
    const hiding = await startServer({
      MCP_AUTH: 'oauth',
      MCP_OAUTH_ISSUER: issuer.issuer,
      MCP_PUBLIC_URL: PUBLIC_URL,
      MCP_PLUGINS: `${ECHO_PLUGIN},${BATTERIES_PLUGIN}`,
    });
    try {
      const readOnly = bearer(await token({ scope: 'mcp:read' }));
      const limited = await connectSdk(hiding.url, readOnly);
      const full = await connectSdk(hiding.url, bearer(await token()));
      try {
        const seen = (await limited.listTools()).tools.map((t) => t.name);
        assert.ok(seen.includes('echo'));
        assert.ok(!seen.includes('write_note'), 'write_note needs files:write');
        assert.ok((await full.listTools()).tools.some((t) => t.name === 'write_note'));
      } finally {
        await limited.close();
        await full.close();
      }
      // Hidden answers exactly as unknown: the same code and message as a name that never existed.
      const hidden = await callTool2026(hiding.url, 1, 'write_note', { text: 'n' }, readOnly);
      const unknown = await callTool2026(hiding.url, 1, 'no_such_tool', { text: 'n' }, readOnly);
      assert.equal(hidden.status, unknown.status);
      assert.equal(rpcError(hidden.body)?.code, ErrorCode.InvalidParams);
      assert.equal(rpcError(hidden.body)?.message, 'Unknown tool: write_note');
      assert.equal(rpcError(unknown.body)?.message, 'Unknown tool: no_such_tool');
      const allowed = await callTool2026(hiding.url, 2, 'write_note', { text: 'n' }, bearer(await token()));
      assert.equal(textOf(rpcResult(allowed.body)), 'saved: n');
    } finally {
      await hiding.stop();
    }
  });
});

describe('oauth without MCP_PUBLIC_URL', () => {
  test('on a dynamic port (MCP_HTTP_PORT=0) start-up stops and asks for MCP_PUBLIC_URL', async () => {
    await assert.rejects(
      startServer({ MCP_AUTH: 'oauth', MCP_OAUTH_ISSUER: issuer.issuer, MCP_PLUGINS: ECHO_PLUGIN }),
      (err: Error) => {
        assert.match(err.message, /MCP_PUBLIC_URL/);
        return true;
      },
    );
  });
});

/**
 * The openapi plugin forwarding the caller's upstream token (`MCP_OPENAPI_FORWARD_UPSTREAM_TOKEN`):
 * behind `MCP_AUTH=oauth-proxy`, each user's call of an operation reaches the API with that
 * user's token at the identity provider (ada's call as ada, bob's as bob); a 401 from the API
 * is retried once with a refreshed token; the token never reaches the MCP client (not even
 * from an API that echoes it) nor a log line; and without a signed-in user (another auth mode)
 * the call answers a tool error saying why.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { openapiPlugin } from '../../../plugins/openapi/index.ts';
import { createServer, type PluginDefinition } from '../../../src/index.ts';
import { cimdHostMissing } from '../../helpers/cimd-host.ts';
import { callTool, type ProxySetup, signInAs, startProxy } from './harness.ts';

const skip = cimdHostMissing();
const openapi = openapiPlugin as PluginDefinition<never>;

const OBJECT = { 'application/json': { schema: { type: 'object' } } };

/**
 * The provider's API (`/api/whoami`, answering the token's user) and a second loopback API
 * (`echo`: a careless one that answers the Authorization header it got; `always_401`: one
 * that accepts no token), as one OpenAPI document with bearer auth.
 */
function document(providerUrl: string, otherUrl: string): string {
  const get = (operationId: string, servers?: { url: string }[]) => ({
    get: {
      operationId,
      ...(servers ? { servers } : {}),
      responses: { '200': { description: 'ok', content: OBJECT } },
    },
  });
  return JSON.stringify({
    openapi: '3.1.0',
    info: { title: 'Upstream API', version: '1' },
    servers: [{ url: providerUrl }],
    components: { securitySchemes: { user: { type: 'http', scheme: 'bearer' } } },
    security: [{ user: [] }],
    paths: {
      '/api/whoami': get('whoami'),
      '/echo': get('echo', [{ url: otherUrl }]),
      '/always-401': get('always_401', [{ url: otherUrl }]),
    },
  });
}

/** The second API; `authorizations` is every Authorization header it received. */
async function startOtherApi(): Promise<{ url: string; authorizations: string[]; server: Server }> {
  const authorizations: string[] = [];
  const server = createHttpServer((req, res) => {
    authorizations.push(req.headers.authorization ?? '');
    const status = req.url === '/always-401' ? 401 : 200;
    const body = status === 401 ? { message: 'Bad credentials' } : { youSent: req.headers.authorization };
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, authorizations, server };
}

describe("openapi: the caller's upstream token, forwarded", { skip }, () => {
  let setup: ProxySetup;
  let other: Awaited<ReturnType<typeof startOtherApi>>;
  let dir: string;
  let spec: string;
  const logLines: string[] = [];
  const refreshes = () => setup.idp.tokenGrants.filter((g) => g === 'refresh_token').length;
  const upstreamTokens = () =>
    setup.idp.issued.flatMap((t) => [t.access_token, t.refresh_token]).filter((t): t is string => !!t);

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'openapi-forward-'));
    spec = path.join(dir, 'api.json');
    other = await startOtherApi();
    setup = await startProxy({
      shape: 'github',
      plugins: [openapi],
      // Everything the server logs, down to trace, to look for tokens in.
      logger: pino(
        { level: 'trace' },
        new Writable({
          write(chunk: Buffer, _enc, done) {
            logLines.push(chunk.toString());
            done();
          },
        }),
      ),
      env: async (idp) => {
        await writeFile(spec, document(idp.issuer, other.url));
        return { MCP_OPENAPI_SPEC: spec, MCP_OPENAPI_FORWARD_UPSTREAM_TOKEN: 'whoami,echo,always_401' };
      },
    });
  });
  after(async () => {
    await setup?.close();
    other?.server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('calls the API as each signed-in user, on both wires', async () => {
    for (const [login, wire] of [
      ['ada', '2026'],
      ['bob', '2025'],
    ] as const) {
      const { tokens } = await signInAs(setup, login);
      const { result } = await callTool(setup.mcpUrl, tokens.access_token, wire, 'whoami');
      assert.equal(result.isError, undefined, JSON.stringify(result));
      assert.deepEqual(result.structuredContent, { login, via: 'upstream token' });
    }
  });

  it('never gives the token back, even from an API that echoes it', async () => {
    const { tokens } = await signInAs(setup, 'ada');
    const before = other.authorizations.length;
    const { result } = await callTool(setup.mcpUrl, tokens.access_token, '2026', 'echo');
    assert.equal(result.isError, undefined, JSON.stringify(result));
    const sent = other.authorizations.slice(before);
    assert.equal(sent.length, 1);
    const token = /^Bearer (.+)$/.exec(sent[0] ?? '')?.[1];
    assert.ok(token && upstreamTokens().includes(token), `the API got the user's upstream token: ${sent[0]}`);
    assert.ok(!JSON.stringify(result).includes(token), JSON.stringify(result));
    assert.deepEqual(result.structuredContent, { youSent: 'Bearer ••••••' });
  });

  it('retries a 401 once with a refreshed token, then answers the refusal', async () => {
    const { tokens } = await signInAs(setup, 'ada');
    // The provider revokes its access tokens early: the API says 401 until the token is refreshed.
    await setup.idp.revokeAccessTokens();
    const before = refreshes();
    const { result } = await callTool(setup.mcpUrl, tokens.access_token, '2025', 'whoami');
    assert.equal(result.isError, undefined, JSON.stringify(result));
    assert.deepEqual(result.structuredContent, { login: 'ada', via: 'upstream token' });
    assert.equal(refreshes(), before + 1, 'one refresh after the 401');

    // An API that refuses every token: one retry, not a loop, and its refusal is the answer.
    const calls = other.authorizations.length;
    const refused = await callTool(setup.mcpUrl, tokens.access_token, '2026', 'always_401');
    assert.equal(refused.result.isError, true);
    assert.match(
      JSON.stringify(refused.result.content),
      /unauthorized: .*always_401.* was refused: HTTP 401/,
    );
    assert.equal(other.authorizations.length - calls, 2, 'the first call and one retry');
    const [first, second] = other.authorizations.slice(calls);
    assert.notEqual(first, second, 'the retry carries the refreshed token');
    assert.equal(refreshes(), before + 2);
  });

  it('writes no upstream token to any log line', () => {
    const logs = logLines.join('');
    assert.match(logs, /"msg":"openapi call"/, 'the calls were logged at all');
    const tokens = upstreamTokens();
    assert.ok(tokens.length >= 4);
    for (const token of tokens) assert.ok(!logs.includes(token), 'an upstream token in the logs');
  });

  it('answers a tool error when the caller has no upstream token (another auth mode)', async () => {
    const running = await createServer({
      plugins: [openapi],
      settings: { MCP_OPENAPI_SPEC: spec, MCP_OPENAPI_FORWARD_UPSTREAM_TOKEN: '*', MCP_LOG_LEVEL: 'silent' },
      transport: 'none',
      logger: pino({ level: 'silent' }),
    });
    try {
      const answers: unknown[] = [];
      const connection = running.connect({ onMessage: (m) => answers.push(m) });
      await connection.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'whoami',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      });
      await connection.drain();
      const reply = JSON.stringify(answers);
      assert.match(reply, /"isError":true/);
      assert.match(
        reply,
        /unauthorized: GET \/api\/whoami \(whoami\) is called with the caller's own token at their identity provider \(MCP_OPENAPI_FORWARD_UPSTREAM_TOKEN\), and there is none: No upstream token: this server does not sign users in at an upstream provider \(MCP_AUTH=oauth-proxy\)/,
      );
      connection.close();
    } finally {
      await running.close();
    }
  });
});

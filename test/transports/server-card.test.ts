/**
 * The server card and the catalogs (SEP-2127 draft): held to what server/discover and the
 * list methods answer on the wire, well-formed by the draft's rules, cached with an ETag,
 * open to any origin, and revealing primitives only where the auth mode allows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkCatalog, checkServerCard, SERVER_CARD_MEDIA_TYPE } from '../../src/base/card-check.ts';
import { ErrorCode } from '../../src/base/errors.ts';
import { CARD_META_KEY, cardName } from '../../src/discovery/server-card.ts';
import { definePlugin, defineTool } from '../../src/index.ts';
import { API_KEY, buildAppWithAuth } from './discovery-helpers.ts';
import { buildTestApp, type Message, type TestApp, V2026 } from './http-helpers.ts';

type Card = Message & { remotes: Message[]; _meta: Record<string, Message> };

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': V2026,
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A 2026 request over a real socket, as any client sends it. */
async function call2026(
  url: string,
  method: string,
  params: Message = {},
  headers: Record<string, string> = {},
) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': V2026,
      'mcp-method': method,
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: ENVELOPE } }),
  });
  const body = (await res.json()) as { result?: Message; error?: Message };
  assert.ok(body.result, `${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

async function getCard(url: string, headers: Record<string, string> = {}): Promise<Card> {
  const res = await fetch(`${url}/server-card`, {
    headers: { accept: SERVER_CARD_MEDIA_TYPE, ...headers },
  });
  assert.equal(res.status, 200);
  return (await res.json()) as Card;
}

describe('server card (auth off)', () => {
  let t: TestApp;
  let url: string;
  before(async () => {
    t = await buildTestApp({ MCP_SERVER_INSTRUCTIONS: 'Echo what you are given.' });
    url = await t.listen();
  });
  after(() => t.close());

  test('is generated from the same data as server/discover and the list methods', async () => {
    const card = await getCard(url);
    const discover = await call2026(url, 'server/discover');
    const meta = card._meta[CARD_META_KEY] as Message;
    const serverInfo = (discover._meta as Message)['io.modelcontextprotocol/serverInfo'] as Message;
    assert.deepEqual(meta.serverInfo, serverInfo);
    assert.equal(card.version, serverInfo.version);
    assert.equal(card.title, serverInfo.name);
    assert.deepEqual(card.remotes[0]?.supportedProtocolVersions, discover.supportedVersions);
    assert.deepEqual(meta.capabilities, discover.capabilities);
    assert.equal(meta.instructions, discover.instructions);
    assert.deepEqual(meta.tools, (await call2026(url, 'tools/list')).tools);
    assert.deepEqual(meta.resources, (await call2026(url, 'resources/list')).resources);
    assert.deepEqual(
      meta.resourceTemplates,
      (await call2026(url, 'resources/templates/list')).resourceTemplates,
    );
    assert.deepEqual(meta.prompts, (await call2026(url, 'prompts/list')).prompts);
    assert.equal(card.remotes[0]?.url, url);
    assert.equal(card.remotes[0]?.type, 'streamable-http');
  });

  test('is well-formed by the draft and served with its media type, caching headers and CORS', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/mcp/server-card' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/mcp-server-card\+json/);
    assert.equal(res.headers['cache-control'], 'public, max-age=300');
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.match(String(res.headers['access-control-expose-headers']), /ETag/);
    assert.deepEqual(checkServerCard(JSON.parse(res.body)), []);
    const etag = String(res.headers.etag);
    assert.match(etag, /^"[^"]+"$/);
    const again = await t.app.inject({
      method: 'GET',
      url: '/mcp/server-card',
      headers: { 'if-none-match': etag },
    });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    const other = await t.app.inject({
      method: 'GET',
      url: '/mcp/server-card',
      headers: { 'if-none-match': '"other"' },
    });
    assert.equal(other.statusCode, 200);
    const preflight = await t.app.inject({ method: 'OPTIONS', url: '/mcp/server-card' });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers['access-control-allow-methods'], 'GET');
  });

  test('the catalogs point at the card, which resolves', async () => {
    for (const [path, type] of [
      ['/.well-known/mcp/catalog.json', /^application\/json/],
      ['/.well-known/ai-catalog.json', /^application\/ai-catalog\+json/],
    ] as const) {
      const res = await fetch(new URL(path, url));
      assert.equal(res.status, 200, path);
      assert.match(String(res.headers.get('content-type')), type);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=3600');
      const catalog = (await res.json()) as { entries: Message[] };
      assert.deepEqual(checkCatalog(catalog), [], path);
      assert.equal(catalog.entries.length, 1);
      const entry = catalog.entries[0]!;
      assert.equal(entry.type, SERVER_CARD_MEDIA_TYPE);
      assert.equal(entry.url, `${url}/server-card`);
      assert.equal((await fetch(String(entry.url))).status, 200);
    }
  });

  test('a foreign Host is refused (DNS rebinding)', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/mcp/server-card',
      headers: { host: 'evil.example' },
    });
    assert.equal(res.statusCode, 403);
    assert.equal(JSON.parse(res.body).error.code, ErrorCode.HostNotAllowed);
  });
});

describe('server card names and URLs', () => {
  test('the name is reverse-DNS of the public host plus the server name', () => {
    assert.equal(cardName('https://files.example.com/mcp', 'mcp-toolkit'), 'com.example.files/mcp-toolkit');
    assert.equal(cardName('http://localhost:8000/mcp', 'My Server!'), 'localhost/My-Server');
    assert.equal(cardName('http://127.0.0.1:8000/mcp', 'x'), '127.0.0.1/x');
    assert.equal(cardName('http://[::1]:8000/mcp', 'x'), '--1/x');
  });

  test('MCP_PUBLIC_URL and MCP_HTTP_PATH decide the endpoint and the card path', async () => {
    const t = await buildTestApp({
      MCP_PUBLIC_URL: 'https://files.example.com',
      MCP_HTTP_PATH: '/api/mcp',
      MCP_ALLOWED_HOSTS: 'files.example.com',
    });
    try {
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/mcp/server-card',
        headers: { host: 'files.example.com' },
      });
      const card = JSON.parse(res.body) as Card;
      assert.equal(card.name, 'com.example.files/mcp-toolkit');
      assert.equal(card.remotes[0]?.url, 'https://files.example.com/api/mcp');
      assert.deepEqual(checkServerCard(card), []);
      const catalog = await t.app.inject({
        method: 'GET',
        url: '/.well-known/ai-catalog.json',
        headers: { host: 'files.example.com' },
      });
      const entry = (JSON.parse(catalog.body) as { entries: Message[] }).entries[0]!;
      assert.equal(entry.url, 'https://files.example.com/api/mcp/server-card');
      assert.equal(entry.identifier, 'urn:air:files.example.com:mcp:mcp-toolkit');
    } finally {
      await t.close();
    }
  });

  test('checkServerCard names what is wrong', () => {
    const problems = checkServerCard({
      $schema: 'https://example.com/schema.json',
      name: 'no-slash',
      version: '^1.2.3',
      description: '',
      remotes: [{ type: 'websocket', url: 'ftp://x' }],
    });
    for (const field of ['$schema', 'name', 'version', 'description', 'remotes[0].type', 'remotes[0].url']) {
      assert.ok(
        problems.some((p) => p.startsWith(field)),
        `${field} in ${JSON.stringify(problems)}`,
      );
    }
    assert.deepEqual(checkCatalog({ specVersion: '1.0', entries: [{ type: SERVER_CARD_MEDIA_TYPE }] }), [
      'entries[0].identifier is missing',
      'entries[0] must have exactly one of url and data',
    ]);
  });
});

describe('server card with auth on', () => {
  test('api_key: reachable without a key, lists no primitives or instructions, names the header but no key', async () => {
    const t = await buildAppWithAuth({
      MCP_AUTH: 'api_key',
      MCP_API_KEYS: `ci:${API_KEY}`,
      MCP_SERVER_INSTRUCTIONS: 'Internal notes',
    });
    try {
      const url = await t.listen();
      const mcp = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(mcp.status, 401, 'the MCP endpoint still wants a key');
      const res = await fetch(`${url}/server-card`);
      assert.equal(res.status, 200);
      const text = await res.text();
      assert.ok(!text.includes(API_KEY), 'the card never carries a key');
      assert.ok(!text.includes('Internal notes'), 'instructions are not listed');
      const card = JSON.parse(text) as Card;
      assert.deepEqual(checkServerCard(card), []);
      const meta = card._meta[CARD_META_KEY] as Message;
      assert.equal(meta.listed, false);
      for (const key of ['tools', 'resources', 'resourceTemplates', 'prompts', 'instructions'])
        assert.equal(key in meta, false, key);
      assert.deepEqual((meta.auth as Message).mode, 'api_key');
      const header = ((card.remotes[0] as Message).headers as Message[])[0] as Message;
      assert.equal(header.name, 'Authorization');
      assert.equal(header.isSecret, true);
    } finally {
      await t.close();
    }
  });

  test('MCP_PUBLIC_CARD=true lists the tools with auth on', async () => {
    const t = await buildAppWithAuth({
      MCP_AUTH: 'api_key',
      MCP_API_KEYS: `ci:${API_KEY}`,
      MCP_PUBLIC_CARD: 'true',
    });
    try {
      const url = await t.listen();
      const meta = (await getCard(url))._meta[CARD_META_KEY] as Message;
      assert.equal(meta.listed, true);
      const names = (meta.tools as Message[]).map((tool) => tool.name);
      assert.ok(names.includes('echo'), JSON.stringify(names));
      const listed = await call2026(url, 'tools/list', {}, { authorization: `Bearer ${API_KEY}` });
      assert.deepEqual(meta.tools, listed.tools);
    } finally {
      await t.close();
    }
  });

  test('MCP_PUBLIC_CARD=true still leaves out items that depend on who asks', async () => {
    const plugin = definePlugin({
      name: 'scoped',
      register(app) {
        app.add(
          defineTool({ name: 'open_tool', description: 'For everyone' }, () => 'x'),
          defineTool({ name: 'admin_tool', description: 'Admins only', scopes: ['admin'] }, () => 'x'),
        );
      },
    });
    const t = await buildAppWithAuth(
      { MCP_AUTH: 'api_key', MCP_API_KEYS: `ci:${API_KEY}`, MCP_PUBLIC_CARD: 'true' },
      [{ definition: plugin, settings: {} }],
    );
    try {
      const res = await t.app.inject({ method: 'GET', url: '/mcp/server-card' });
      const meta = (JSON.parse(res.body) as Card)._meta[CARD_META_KEY] as Message;
      assert.deepEqual(
        (meta.tools as Message[]).map((tool) => tool.name),
        ['open_tool'],
      );
    } finally {
      await t.close();
    }
  });

  test('oauth: the card says where the protected resource metadata is', async () => {
    const t = await buildTestApp({
      MCP_AUTH: 'oauth',
      MCP_OAUTH_ISSUER: 'https://issuer.example.com',
      MCP_PUBLIC_URL: 'https://files.example.com',
    });
    try {
      const res = await t.app.inject({
        method: 'GET',
        url: '/mcp/server-card',
        headers: { host: 'localhost' },
      });
      const meta = (JSON.parse(res.body) as Card)._meta[CARD_META_KEY] as Message;
      assert.deepEqual(meta.auth, {
        mode: 'oauth',
        issuer: 'https://issuer.example.com',
        resourceMetadata: 'https://files.example.com/.well-known/oauth-protected-resource/mcp',
      });
      assert.equal('tools' in meta, false);
    } finally {
      await t.close();
    }
  });
});

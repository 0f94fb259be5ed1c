/**
 * The landing page: served at `/` and to a browser's HTML GET on the MCP path, while an MCP
 * client's GET there still opens the SSE stream; everything escaped, a strict CSP, nothing
 * secret, and the lists only where the auth mode allows. (test/browser/ renders it in Chromium.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import { connectSnippets } from '../../src/discovery/connect-snippets.ts';
import { escapeHtml, LANDING_PAGE_CSP } from '../../src/discovery/landing-page.ts';
import { definePlugin, defineTool } from '../../src/index.ts';
import { wantsHtml } from '../../src/transports/http/discovery-routes.ts';
import { API_KEY, buildAppWithAuth } from './discovery-helpers.ts';
import { buildTestApp, openSession, type TestApp, V2025 } from './http-helpers.ts';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const EVIL = '<script>alert("pwned")</script>';

const evilPlugin = definePlugin({
  name: 'evil',
  instructions: `Instructions with ${EVIL}`,
  register(app) {
    app.add(
      defineTool(
        {
          name: 'evil_tool',
          title: `Title ${EVIL}`,
          description: `Description ${EVIL} & "quotes"`,
          input: z.object({}),
        },
        async () => 'ok',
      ),
    );
  },
});

describe('landing page', () => {
  let t: TestApp;
  let url: string;
  before(async () => {
    t = await buildAppWithAuth({}, [{ definition: evilPlugin, settings: {} }]);
    url = await t.listen();
  });
  after(() => t.close());

  test('GET / answers HTML with a strict CSP and the server identity', async () => {
    const res = await fetch(new URL('/', url), { headers: { accept: BROWSER_ACCEPT } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.equal(csp, LANDING_PAGE_CSP);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    const html = await res.text();
    assert.match(html, /<title>mcp-toolkit · MCP server<\/title>/);
    assert.match(html, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
    assert.ok(html.includes(`<code id="endpoint">${url}</code>`), 'the endpoint URL');
    assert.ok(html.includes('version 0.1.0') || /version \d+\.\d+\.\d+/.test(html));
    assert.match(html, /None: anyone who can reach this URL/);
    assert.doesNotMatch(html, /<link|src="http|@import|url\(/, 'no external assets');
  });

  test('every value from plugins is escaped: a <script> in a description renders as text', async () => {
    const html = await (await fetch(new URL('/', url))).text();
    assert.ok(!html.includes(EVIL), 'the raw script tag never reaches the page');
    assert.ok(html.includes(`Description ${escapeHtml(EVIL)} &amp; &quot;quotes&quot;`));
    assert.ok(html.includes(`Instructions with ${escapeHtml(EVIL)}`));
    assert.ok(html.includes(`Title ${escapeHtml(EVIL)}`));
    // The page's only script is its own (allowed by hash), at the end of the body.
    assert.equal(html.match(/<script>/g)?.length, 1);
  });

  test('a browser GET on the MCP path gets the page; an SSE GET still opens the stream', async () => {
    const page = await fetch(url, { headers: { accept: BROWSER_ACCEPT } });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    await page.text();
    const head = await fetch(url, { method: 'HEAD', headers: { accept: BROWSER_ACCEPT } });
    assert.equal(head.status, 200, 'a browser HEAD gets the page’s headers');
    assert.match(head.headers.get('content-type') ?? '', /^text\/html/);
    const session = await openSession(t.app);
    const controller = new AbortController();
    const stream = await fetch(url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': V2025 },
      signal: controller.signal,
    });
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
    controller.abort();
    const noSession = await fetch(url, { headers: { accept: 'text/event-stream' } });
    assert.equal(noSession.status, 400, 'a GET without a session is still the transport’s error');
    await noSession.text();
  });

  test('the connect snippets carry the endpoint for every client', async () => {
    const html = await (await fetch(new URL('/', url))).text();
    for (const id of ['claude-code', 'claude-desktop', 'cursor', 'vscode', 'inspector', 'mcp-toolkit'])
      assert.ok(html.includes(`id="${id}"`), id);
    const snippets = connectSnippets({
      name: 'files',
      version: '1.0.0',
      description: 'd',
      endpoint: 'https://files.example.com/mcp',
      auth: { mode: 'api_key' },
      supportedVersions: [],
      capabilities: {},
      listed: false,
    });
    for (const s of snippets) {
      assert.ok(s.code.includes('https://files.example.com/mcp'), s.id);
      assert.ok(s.code.includes('<your API key>'), `${s.id} names the key as a placeholder`);
    }
    assert.deepEqual(JSON.parse(snippets.find((s) => s.id === 'vscode')!.code), {
      servers: {
        files: {
          type: 'http',
          url: 'https://files.example.com/mcp',
          headers: { Authorization: 'Bearer <your API key>' },
        },
      },
    });
  });

  test('wantsHtml tells a browser from an MCP client', () => {
    assert.equal(wantsHtml(BROWSER_ACCEPT), true);
    assert.equal(wantsHtml('text/event-stream'), false);
    assert.equal(wantsHtml('text/html, text/event-stream'), false);
    assert.equal(wantsHtml('application/json, text/event-stream'), false);
    assert.equal(wantsHtml(undefined), false);
  });
});

describe('landing page and the auth mode', () => {
  test('with an API key: reachable without one, no lists, no instructions, never the key', async () => {
    const t = await buildAppWithAuth({ MCP_AUTH: 'api_key', MCP_API_KEYS: `ci:${API_KEY}` }, [
      { definition: evilPlugin, settings: {} },
    ]);
    try {
      const res = await t.app.inject({ method: 'GET', url: '/mcp', headers: { accept: BROWSER_ACCEPT } });
      assert.equal(res.statusCode, 200);
      assert.ok(!res.body.includes(API_KEY));
      assert.ok(!res.body.includes('evil_tool'));
      assert.ok(!res.body.includes('Instructions with'));
      assert.match(res.body, /API key: send it as Authorization: Bearer/);
      assert.match(res.body, /MCP_PUBLIC_CARD=true/);
      const post = await t.app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      });
      assert.equal(post.statusCode, 401, 'the MCP endpoint itself still wants the key');
    } finally {
      await t.close();
    }
  });

  test('MCP_PUBLIC_CARD=true lists the tools with auth on', async () => {
    const t = await buildAppWithAuth(
      { MCP_AUTH: 'api_key', MCP_API_KEYS: `ci:${API_KEY}`, MCP_PUBLIC_CARD: 'true' },
      [{ definition: evilPlugin, settings: {} }],
    );
    try {
      const res = await t.app.inject({ method: 'GET', url: '/' });
      assert.ok(res.body.includes('evil_tool'));
    } finally {
      await t.close();
    }
  });

  test('MCP_LANDING_PAGE=false: no page at / and the MCP path answers as the transport does', async () => {
    const t = await buildTestApp({ MCP_LANDING_PAGE: 'false' });
    try {
      assert.equal((await t.app.inject({ method: 'GET', url: '/' })).statusCode, 404);
      const res = await t.app.inject({ method: 'GET', url: '/mcp', headers: { accept: BROWSER_ACCEPT } });
      assert.equal(res.statusCode, 400, 'the transport: no session');
    } finally {
      await t.close();
    }
  });

  test('MCP_HTTP_PATH=/: the page and the transport share the root', async () => {
    const t = await buildTestApp({ MCP_HTTP_PATH: '/' });
    try {
      const page = await t.app.inject({ method: 'GET', url: '/', headers: { accept: BROWSER_ACCEPT } });
      assert.match(String(page.headers['content-type']), /^text\/html/);
      const sse = await t.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/event-stream' } });
      assert.equal(sse.statusCode, 400, 'no session: the transport answers');
      const card = await t.app.inject({ method: 'GET', url: '/server-card' });
      assert.equal(card.statusCode, 200);
    } finally {
      await t.close();
    }
  });
});

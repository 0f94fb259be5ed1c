/**
 * `mcp-toolkit check` on what a server offers beside the core protocol: MCP Apps views and
 * their tool links, the server card and the catalogs. Our own server passes every one of
 * them; a server with each defect fails the check that names it; a server offering none of
 * them fails nothing.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { definePlugin, defineResource, defineTool } from '../../src/index.ts';
import { APP_MIME_TYPE } from '../../src/protocol.ts';
import { checkServerCardAndCatalog } from '../../src/testing/conformance/discovery-checks.ts';
import { Recorder } from '../../src/testing/conformance/recorder.ts';
import { conformanceReport, formatReport } from '../../src/testing/conformance/report.ts';
import { handleOf, startServer } from '../helpers/client.ts';
import { buildTestApp, type TestApp } from '../transports/http-helpers.ts';

const FAST = { requestTimeoutMs: 5000, callTimeoutMs: 5000, notificationWaitMs: 50 };
const ids = (report: { checks: { id: string; status: string }[] }, status: string) =>
  report.checks.filter((c) => c.status === status).map((c) => c.id);

describe('check: views, card and catalogs of our own server', () => {
  let dir: string;
  let t: TestApp;
  let url: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'discovery-check-'));
    t = await buildTestApp({ MCP_PLUGINS: 'filesystem', MCP_FILESYSTEM_ROOT: dir });
    url = await t.listen();
  });
  after(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('over HTTP every apps, card and catalog check runs and passes', async () => {
    const report = await conformanceReport(url, FAST);
    assert.equal(report.ok, true, formatReport(report));
    const passed = ids(report, 'pass');
    for (const id of ['apps.extension', 'apps.views', 'apps.tool-links', 'card', 'catalog.mcp', 'catalog.ai'])
      assert.ok(passed.includes(id), `${id} passes:\n${formatReport(report)}`);
  });

  test('in process the apps checks run too (no card without HTTP)', async () => {
    const report = await conformanceReport(handleOf(t.server), FAST);
    assert.equal(report.ok, true, formatReport(report));
    assert.ok(ids(report, 'pass').includes('apps.views'));
    assert.equal(
      report.checks.some((c) => c.id === 'card'),
      false,
    );
  });
});

describe('check: defects are caught', () => {
  test('a malformed view, a dangling link and a missing extension each fail their check', async () => {
    const broken = definePlugin({
      name: 'broken-views',
      register(app) {
        app.add(
          // Right URI scheme, wrong mime type: not a view the server advertises, still one clients would try.
          defineResource(
            { uri: 'ui://broken/plain', name: 'plain', mimeType: 'text/html' },
            () => '<!doctype html><p>x</p>',
          ),
          defineTool(
            {
              name: 'dangling',
              description: 'Links a view nobody serves',
              _meta: { ui: { resourceUri: 'ui://broken/missing' } },
            },
            () => 'x',
          ),
        );
      },
    });
    const server = await startServer({ plugins: [broken] });
    try {
      const report = await conformanceReport(server, FAST);
      assert.deepEqual(ids(report, 'fail').sort(), ['apps.tool-links', 'apps.views'], formatReport(report));
      assert.ok(ids(report, 'warn').includes('apps.extension'), 'a SHOULD: a warning');
      assert.match(JSON.stringify(report.checks), /mimeType must be text\/html;profile=mcp-app/);
      assert.match(JSON.stringify(report.checks), /ui:\/\/broken\/missing/);
    } finally {
      await server.close();
    }
  });

  test('a bad _meta.ui on a view fails apps.views', async () => {
    const badMeta = definePlugin({
      name: 'bad-meta',
      register(app) {
        app.add(
          defineResource(
            {
              uri: 'ui://bad/meta',
              name: 'meta',
              mimeType: APP_MIME_TYPE,
              _meta: { ui: { prefersBorder: 'yes', csp: { scriptDomains: [] } } },
            },
            () => ({ text: '<!doctype html><p>x</p>', mimeType: APP_MIME_TYPE }),
          ),
        );
      },
    });
    const server = await startServer({ plugins: [badMeta] });
    try {
      const report = await conformanceReport(server, FAST);
      const views = report.checks.find((c) => c.id === 'apps.views');
      assert.equal(views?.status, 'fail');
      assert.match(views?.reason ?? '', /prefersBorder is not a boolean/);
      assert.match(views?.reason ?? '', /unknown _meta\.ui\.csp\.scriptDomains/);
    } finally {
      await server.close();
    }
  });

  test('a server without views gets no apps checks', async () => {
    const plain = definePlugin({
      name: 'plain',
      register(app) {
        app.add(defineTool({ name: 'x', description: 'X' }, () => 'x'));
      },
    });
    const server = await startServer({ plugins: [plain] });
    try {
      const report = await conformanceReport(server, FAST);
      assert.equal(
        report.checks.some((c) => c.id.startsWith('apps.')),
        false,
      );
    } finally {
      await server.close();
    }
  });

  describe('cards and catalogs served by someone else', () => {
    let server: Server;
    let base: string;
    const routes = new Map<string, { status: number; type?: string; body?: string }>();
    before(async () => {
      server = createServer((req, res) => {
        const route = routes.get(req.url ?? '') ?? { status: 404 };
        res.writeHead(route.status, route.type ? { 'content-type': route.type } : {}).end(route.body ?? '');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    test('none served: not run, not failed', async () => {
      routes.clear();
      const rec = new Recorder();
      await checkServerCardAndCatalog(`${base}/mcp`, rec, {});
      assert.deepEqual(
        rec.checks.map((c) => `${c.id}:${c.status}`),
        ['card:not-run', 'catalog.mcp:not-run', 'catalog.ai:not-run'],
      );
    });

    test('a malformed card, a card that contradicts the server and a bad catalog fail', async () => {
      routes.clear();
      routes.set('/mcp/server-card', {
        status: 200,
        type: 'application/json',
        body: JSON.stringify({
          $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
          name: 'example.com/files',
          version: '2.0.0',
          description: 'Files',
          remotes: [
            { type: 'streamable-http', url: `${base}/mcp`, supportedProtocolVersions: ['2099-01-01'] },
          ],
        }),
      });
      routes.set('/.well-known/mcp/catalog.json', {
        status: 200,
        type: 'application/json',
        body: '{"entries":{}}',
      });
      routes.set('/.well-known/ai-catalog.json', { status: 200, type: 'application/json', body: 'not json' });
      const rec = new Recorder();
      await checkServerCardAndCatalog(`${base}/mcp`, rec, {
        version: '1.0.0',
        supportedVersions: ['2025-11-25'],
      });
      const card = rec.checks.find((c) => c.id === 'card');
      assert.equal(card?.status, 'warn', 'the draft says SHOULD');
      assert.match(card?.reason ?? '', /Content-Type is application\/json/);
      assert.match(card?.reason ?? '', /version 2\.0\.0 differs from serverInfo\.version 1\.0\.0/);
      assert.match(card?.reason ?? '', /2099-01-01/);
      assert.equal(rec.checks.find((c) => c.id === 'catalog.mcp')?.status, 'warn');
      assert.match(rec.checks.find((c) => c.id === 'catalog.ai')?.reason ?? '', /not JSON/);
    });
  });
});

/**
 * MCP Apps (SEP-1865): views made with defineApp are listed and read as
 * `text/html;profile=mcp-app` resources with `_meta.ui`; linked tools carry
 * `_meta.ui.resourceUri`; the extension is advertised on both wires; app-only tools stay out
 * of a plain client's tools/list and remain callable.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import { buildMcpServer } from '../../src/assembly/server.ts';
import { parseSettings } from '../../src/config/settings.ts';
import {
  defineApp,
  definePlugin,
  defineTool,
  InternalCode,
  type PluginApp,
  ToolkitError,
} from '../../src/index.ts';
import { APP_MIME_TYPE, UI_EXTENSION } from '../../src/protocol.ts';
import { startClient, startServer } from '../helpers/client.ts';

const HTML = '<!doctype html><html><body><p>Hello view</p></body></html>';
const UI_CLIENT = { extensions: { [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } };

const viewPlugin = definePlugin({
  name: 'views',
  register(app) {
    app.add(
      defineApp({
        uri: 'ui://views/board',
        title: 'Board',
        description: 'A board of cards',
        html: HTML,
        csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://*.cdn.example.com'] },
        permissions: ['clipboardWrite'],
        prefersBorder: true,
      }),
      defineTool(
        {
          name: 'show_board',
          description: 'Shows the board',
          ui: { resourceUri: 'ui://views/board', visibility: ['model', 'app'] },
          _meta: { 'example.com/kept': true },
        },
        async () => ({
          kind: 'tool_result',
          content: [{ type: 'text', text: '3 cards' }],
          structured: { cards: 3 },
        }),
      ),
      defineTool(
        {
          name: 'move_card',
          description: 'Moves a card (the board calls it)',
          ui: { resourceUri: 'ui://views/board', visibility: ['app'] },
        },
        async () => 'moved',
      ),
    );
  },
});

const EXPECTED_UI = {
  csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://*.cdn.example.com'] },
  permissions: { clipboardWrite: {} },
  prefersBorder: true,
};

describe('views (defineApp)', () => {
  test('listed and read as text/html;profile=mcp-app with _meta.ui', async () => {
    const client = await startClient({ plugins: [viewPlugin] });
    const { resources } = await client.request('resources/list');
    const view = (resources as Record<string, unknown>[]).find((r) => r.uri === 'ui://views/board');
    assert.deepEqual(view, {
      uri: 'ui://views/board',
      name: 'board',
      title: 'Board',
      description: 'A board of cards',
      mimeType: APP_MIME_TYPE,
      _meta: { ui: EXPECTED_UI },
    });
    const read = await client.readResource('ui://views/board');
    assert.deepEqual(read.contents, [
      { uri: 'ui://views/board', mimeType: APP_MIME_TYPE, text: HTML, _meta: { ui: EXPECTED_UI } },
    ]);
    await client.close();
  });

  test('a linked tool carries _meta.ui (other _meta keys kept); the extension is advertised on both wires', async () => {
    const legacy = await startClient({ plugins: [viewPlugin], capabilities: UI_CLIENT });
    const caps = legacy.initializeResult?.capabilities as { extensions?: Record<string, unknown> };
    assert.deepEqual(caps.extensions, { [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } });
    const tools = await legacy.listTools();
    const show = tools.find((t) => t.name === 'show_board');
    assert.deepEqual(show?._meta, {
      'example.com/kept': true,
      ui: { resourceUri: 'ui://views/board', visibility: ['model', 'app'] },
    });
    await legacy.close();
    const modern = await startClient({ plugins: [viewPlugin], wire: '2026', capabilities: UI_CLIENT });
    const discover = await modern.request('server/discover');
    // Beside the tasks extension, which every 2026 discover declares.
    assert.deepEqual((discover.capabilities as { extensions?: Record<string, unknown> }).extensions, {
      [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] },
      'io.modelcontextprotocol/tasks': {},
    });
    await modern.close();
  });

  test('an app-only tool is left out of a plain client’s tools/list and is still callable', async () => {
    for (const wire of ['2025', '2026'] as const) {
      const plain = await startClient({ plugins: [viewPlugin], wire, capabilities: {} });
      const names = (await plain.listTools()).map((t) => t.name);
      assert.deepEqual(names, ['show_board'], `${wire}: the model never sees move_card`);
      assert.equal(await plain.callText('move_card'), 'moved', `${wire}: the view can still call it`);
      await plain.close();
      const host = await startClient({ plugins: [viewPlugin], wire, capabilities: UI_CLIENT });
      const listed = await host.listTools();
      assert.deepEqual(
        listed.map((t) => t.name),
        ['show_board', 'move_card'],
        `${wire}: a host that renders views gets it, with its visibility`,
      );
      assert.deepEqual((listed[1]?._meta as { ui?: unknown } | undefined)?.ui, {
        resourceUri: 'ui://views/board',
        visibility: ['app'],
      });
      await host.close();
    }
  });

  test('app-only tools stay hidden when the list is also filtered by caller (auth on)', async () => {
    const scoped = definePlugin({
      name: 'scoped-views',
      register(app) {
        app.add(
          defineApp({ uri: 'ui://scoped/v', html: HTML }),
          defineTool({ name: 'show', description: 'S', ui: { resourceUri: 'ui://scoped/v' } }, () => 's'),
          defineTool(
            { name: 'move', description: 'M', ui: { resourceUri: 'ui://scoped/v', visibility: ['app'] } },
            () => 'm',
          ),
          defineTool({ name: 'admin', description: 'A', scopes: ['admin'] }, () => 'a'),
        );
      },
    });
    const identity = { clientId: 'c', scopes: ['admin'] };
    const plain = await startClient({ plugins: [scoped], identity, capabilities: {} });
    assert.deepEqual(
      (await plain.listTools()).map((t) => t.name),
      ['show', 'admin'],
    );
    await plain.close();
    const host = await startClient({ plugins: [scoped], identity, capabilities: UI_CLIENT });
    assert.deepEqual(
      (await host.listTools()).map((t) => t.name),
      ['show', 'move', 'admin'],
    );
    await host.close();
  });

  test('without views no extension is advertised', async () => {
    const plain = definePlugin({
      name: 'plain',
      register(app) {
        app.add(defineTool({ name: 'x', description: 'X' }, async () => 'x'));
      },
    });
    const client = await startClient({ plugins: [plain] });
    assert.equal('extensions' in ((client.initializeResult?.capabilities ?? {}) as object), false);
    await client.close();
  });

  test('a view a plugin adds after start-up switches the extension on for new sessions and discover', async () => {
    let laterApp: PluginApp | undefined;
    const later = definePlugin({
      name: 'later',
      register(app) {
        laterApp = app;
        app.add(defineTool({ name: 'x', description: 'X' }, async () => 'x'));
      },
    });
    const server = await startServer({ plugins: [later] });
    const first = await startClient({ server });
    const extensionsOf = (caps: unknown) => (caps as { extensions?: Record<string, unknown> }).extensions;
    assert.equal(extensionsOf(first.initializeResult?.capabilities), undefined);
    laterApp?.add(defineApp({ uri: 'ui://later/view', title: 'Later', description: 'Later', html: HTML }));
    const second = await startClient({ server, capabilities: UI_CLIENT });
    assert.deepEqual(extensionsOf(second.initializeResult?.capabilities), {
      [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] },
    });
    const modern = await startClient({ server, wire: '2026', capabilities: UI_CLIENT });
    const discover = await modern.request('server/discover');
    assert.ok(UI_EXTENSION in (extensionsOf(discover.capabilities) ?? {}), 'server/discover declares it too');
    laterApp?.remove('resource', 'ui://later/view');
    const third = await startClient({ server });
    assert.equal(extensionsOf(third.initializeResult?.capabilities), undefined, 'gone with the last view');
    await Promise.all([third.close(), modern.close(), second.close()]);
    await first.close();
    await server.close();
  });

  test('a view can be read from a file', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'apps-'));
    try {
      const file = path.join(dir, 'view.html');
      await writeFile(file, HTML);
      const def = defineApp({ uri: 'ui://x/from-file', file });
      assert.equal(def.listing.mimeType, APP_MIME_TYPE);
      const contents = (await def.read('ui://x/from-file', {} as never)) as { text: string }[];
      assert.equal(contents[0]?.text, HTML);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('bad definitions fail at once, naming what is wrong', () => {
    const bad: [string, () => unknown][] = [
      ['scheme', () => defineApp({ uri: 'https://x/view', html: HTML })],
      ['html and file', () => defineApp({ uri: 'ui://x/v', html: HTML, file: '/nope.html' })],
      ['neither', () => defineApp({ uri: 'ui://x/v' })],
      ['missing file', () => defineApp({ uri: 'ui://x/v', file: '/definitely/not/here.html' })],
      [
        'csp origin',
        () => defineApp({ uri: 'ui://x/v', html: HTML, csp: { connectDomains: ['api.example.com/path'] } }),
      ],
      ['permission', () => defineApp({ uri: 'ui://x/v', html: HTML, permissions: ['usb' as never] })],
      [
        'tool uri',
        () => defineTool({ name: 't', description: 'T', ui: { resourceUri: 'https://x' } }, () => ''),
      ],
      ['visibility', () => defineTool({ name: 't', description: 'T', ui: { visibility: [] } }, () => '')],
      [
        'visibility value',
        () => defineTool({ name: 't', description: 'T', ui: { visibility: ['user' as never] } }, () => ''),
      ],
    ];
    for (const [what, make] of bad) {
      assert.throws(
        make,
        (e: ToolkitError) => e instanceof ToolkitError && e.code === InternalCode.InvalidDefinition,
        what,
      );
    }
  });

  test('a tool linked to a view nobody registered stops start-up', async () => {
    const broken = definePlugin({
      name: 'broken',
      register(app) {
        app.add(
          defineTool(
            { name: 'lost', description: 'L', ui: { resourceUri: 'ui://broken/missing' } },
            () => '',
          ),
        );
      },
    });
    await assert.rejects(
      buildMcpServer({
        settings: parseSettings({}),
        plugins: [{ definition: broken, settings: {} }],
        logger: pino({ level: 'silent' }),
      }),
      (e: ToolkitError) =>
        e.code === InternalCode.InvalidDefinition && /ui:\/\/broken\/missing/.test(e.message),
    );
  });
});

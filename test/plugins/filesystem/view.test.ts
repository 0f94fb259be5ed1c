/**
 * The filesystem plugin's view: built from its sources (the committed HTML is what the
 * build produces), self-contained, listed as an MCP Apps resource and linked from list_files.
 * (test/browser/apps.test.ts drives it in Chromium through the package's AppBridge.)
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { FILE_BROWSER_URI } from '../../../plugins/filesystem/view/file-browser.ts';
import { buildViews, VIEWS } from '../../../scripts/build-views.ts';
import { APP_MIME_TYPE, UI_EXTENSION } from '../../../src/protocol.ts';
import { startClient } from '../../helpers/client.ts';
import { REPO_ROOT } from '../../helpers/spawn-server.ts';
import { makeTree, type Tree } from './helpers.ts';

let tree: Tree;
before(async () => {
  tree = await makeTree();
});
after(() => tree.cleanup());

describe('file browser view', () => {
  test('the committed HTML is what npm run build:views produces', async () => {
    assert.deepEqual(await buildViews(true), [], 'run npm run build:views and commit the result');
  });

  test('the built HTML is one self-contained document: no file, stylesheet or script loaded from anywhere', () => {
    const html = readFileSync(`${REPO_ROOT}/${VIEWS[0]!.output}`, 'utf8');
    assert.match(html, /^<!doctype html>/i);
    assert.doesNotMatch(html, /<script[^>]+src=|<link\b|<iframe\b|@import\s/i);
    assert.equal(html.match(/<script>/g)?.length, 1, 'one inline script');
    assert.ok(html.includes('ui/initialize'), 'the bundled App speaks the MCP Apps handshake');
  });

  test('listed as a view, linked from list_files, and the extension advertised', async () => {
    const client = await startClient({
      plugins: ['filesystem'],
      env: { MCP_FILESYSTEM_ROOT: tree.root },
      capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } },
    });
    const caps = client.initializeResult?.capabilities as { extensions?: Record<string, unknown> };
    assert.ok(caps.extensions?.[UI_EXTENSION]);
    const list = (await client.listTools()).find((t) => t.name === 'list_files');
    assert.deepEqual((list?._meta as { ui?: unknown } | undefined)?.ui, { resourceUri: FILE_BROWSER_URI });
    const read = await client.readResource(FILE_BROWSER_URI);
    const [content] = read.contents as { mimeType: string; text: string; _meta: unknown }[];
    assert.equal(content?.mimeType, APP_MIME_TYPE);
    assert.deepEqual(content?._meta, { ui: { prefersBorder: true } });
    assert.equal(content?.text, readFileSync(`${REPO_ROOT}/${VIEWS[0]!.output}`, 'utf8'));
    await client.close();
  });
});

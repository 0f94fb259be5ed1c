/**
 * The filesystem plugin's view in a real host, in headless Chromium: a host page built on the
 * package's AppBridge and the official client, connected to our server (the real CLI) over
 * streamable HTTP, renders the view in a sandboxed iframe; the host calls list_files as it
 * would for the model, the view renders the listing, and clicks in the view open a folder and
 * a file through the host and our server. Screenshots go to test-artifacts/.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { build } from 'esbuild';
import type { Frame, Page } from 'playwright-core';
import { type SpawnedHttpServer, spawnHttpServer } from '../helpers/spawn-server.ts';
import { until } from '../helpers/until.ts';
import { artifact, type Browser, chromiumMissing, launchChromium } from './chromium.ts';

const skip = chromiumMissing();
const GUIDE = 'Step one: <b>not bold</b>\nStep two: done.\n';

/** Serves the host page and its bundled script on 127.0.0.1 (its own origin, as a host's would be). */
async function startHostPage(): Promise<{ origin: string; close(): Promise<void> }> {
  const bundle = await build({
    entryPoints: [path.join(import.meta.dirname, 'fixtures/host-page.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'silent',
  });
  const js = bundle.outputFiles[0]!.text;
  const html =
    '<!doctype html><html><head><meta charset="utf-8"><title>Test host</title>' +
    '<style>body{font:14px system-ui;margin:16px}iframe{width:100%;border:1px solid #999;border-radius:6px;min-height:200px}</style>' +
    '</head><body><h1>Test host</h1><div id="views"></div><script src="/host.js"></script></body></html>';
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/host.js')) {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(js);
    } else if (req.url?.startsWith('/?') || req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function hostState(page: Page): Promise<{ step: string; error?: string; calls: string[] }> {
  return page.evaluate(() => (window as unknown as { hostState: never }).hostState);
}

/** Waits until the host reaches `step` (or fails, with its error). */
async function waitForStep(page: Page, step: string): Promise<void> {
  let last = '';
  const state = await until(
    async () => {
      const s = await hostState(page);
      last = s.step;
      return (s.step === step || s.step === 'failed') && s;
    },
    { timeoutMs: 20_000, intervalMs: 25, message: `the host never reached "${step}"` },
  ).catch((err: Error) => assert.fail(`${err.message} (it is at "${last}")`));
  assert.notEqual(state.step, 'failed', `the host failed: ${state.error}`);
}

async function viewFrame(page: Page): Promise<Frame> {
  const handle = await page.locator('iframe[title="view"]').elementHandle();
  const frame = await handle?.contentFrame();
  assert.ok(frame, 'the view iframe has a frame');
  return frame;
}

describe('MCP Apps view in Chromium', { skip }, () => {
  let server: SpawnedHttpServer;
  let host: Awaited<ReturnType<typeof startHostPage>>;
  let browser: Browser;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'apps-view-'));
    await writeFile(path.join(dir, 'README.md'), '# Workspace\n');
    await mkdir(path.join(dir, 'docs'));
    await writeFile(path.join(dir, 'docs', 'guide.txt'), GUIDE);
    host = await startHostPage();
    server = await spawnHttpServer({
      MCP_PLUGINS: 'filesystem',
      MCP_FILESYSTEM_ROOT: dir,
      MCP_CORS_ORIGINS: host.origin,
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await host?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('the view renders the listing and opens a folder and a file through the server', async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${host.origin}/?server=${encodeURIComponent(server.url)}`);
    await waitForStep(page, 'result-sent');
    const sandbox = await page.locator('iframe[title="view"]').getAttribute('sandbox');
    assert.equal(sandbox, 'allow-scripts', 'the view runs sandboxed, without same-origin access');

    const view = await viewFrame(page);
    // The listing the host handed over (the result of list_files).
    await view.locator('button[data-name="README.md"]').waitFor();
    await view.locator('button[data-name="docs"]').waitFor();
    assert.equal(await view.locator('#path').textContent(), '/ (workspace root)');
    await page.screenshot({ path: artifact('apps-file-browser-listing.png'), fullPage: true });

    // A click opens the folder: the view calls list_files through the host and our server.
    await view.locator('button[data-name="docs"]').click();
    await view.locator('button[data-name="guide.txt"]').waitFor();
    assert.equal(await view.locator('#path').textContent(), '/docs');

    // Another click opens the file with read_file; its content is shown as text.
    await view.locator('button[data-name="guide.txt"]').click();
    await view.locator('#file:not([hidden])').waitFor();
    assert.equal(await view.locator('#content').textContent(), GUIDE);
    assert.equal(await view.locator('#content b').count(), 0, 'file content is never parsed as HTML');
    assert.equal(await view.locator('#file-name').textContent(), 'docs/guide.txt');
    await page.screenshot({ path: artifact('apps-file-browser-file.png'), fullPage: true });

    const state = await hostState(page);
    assert.deepEqual(state.calls, ['list_files', 'read_file'], 'the view called the tools through the host');
    assert.deepEqual(errors, [], 'no uncaught errors in the host or the view');
    await page.close();
  });
});

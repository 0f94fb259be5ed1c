/**
 * The landing page in headless Chromium, served by the real CLI: what a person sees (name,
 * endpoint, auth mode, tools with their descriptions, snippets), no script errors in the
 * console, the CSP header in force (an injected description stays text and runs nothing),
 * readable at phone width, and a screenshot under test-artifacts/.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LANDING_PAGE_CSP } from '../../src/discovery/landing-page.ts';
import { type SpawnedHttpServer, spawnHttpServer } from '../helpers/spawn-server.ts';
import { artifact, type Browser, chromiumMissing, launchChromium } from './chromium.ts';

const skip = chromiumMissing();
const EVIL = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>';

describe('landing page in Chromium', { skip }, () => {
  let server: SpawnedHttpServer;
  let browser: Browser;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'landing-'));
    await writeFile(path.join(dir, 'README.md'), '# hello\n');
    server = await spawnHttpServer({
      MCP_PLUGINS: 'filesystem',
      MCP_FILESYSTEM_ROOT: dir,
      MCP_SERVER_INSTRUCTIONS: `Operator notes ${EVIL}`,
      MCP_SERVER_DESCRIPTION: 'Files of the test workspace.',
    });
    browser = await launchChromium({ width: 390, height: 844 });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('shows what the server is and how to connect, with no console errors', async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    const origin = new URL(server.url).origin;
    const response = await page.goto(`${origin}/`);
    assert.equal(response?.status(), 200);
    assert.equal(response?.headers()['content-security-policy'], LANDING_PAGE_CSP);
    await page.locator('h1').waitFor();
    assert.equal(await page.locator('h1').textContent(), 'mcp-toolkit');
    assert.equal(await page.locator('#endpoint').textContent(), server.url);
    const text = (await page.locator('main').textContent()) ?? '';
    for (const expected of [
      'Files of the test workspace.',
      'None: anyone who can reach this URL',
      'list_files',
      'Read a UTF-8 text file',
      'file-browser',
      'summarise_file',
      'claude mcp add --transport http',
      '@modelcontextprotocol/inspector',
      'mcp-toolkit install',
    ]) {
      assert.ok(text.includes(expected), `the page shows ${JSON.stringify(expected)}`);
    }
    // The injected markup is shown as text and nothing of it ran.
    assert.ok(text.includes(`Operator notes ${EVIL}`));
    assert.equal(await page.evaluate(() => (window as { pwned?: number }).pwned), undefined);
    assert.equal(await page.locator('.instructions img').count(), 0);
    // The page's own script ran under the CSP: every snippet got its copy button.
    assert.equal(await page.locator('button.copy').count(), await page.locator('pre[data-copy]').count());
    // Readable on a phone: nothing wider than the screen.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than a 390px screen`);
    await page.screenshot({ path: artifact('landing-page-phone.png'), fullPage: true });
    assert.deepEqual(errors, [], 'no errors in the console');
    await page.close();
  });

  test('a browser opening the MCP endpoint itself gets the page too', async () => {
    const page = await browser.context.newPage();
    const response = await page.goto(server.url);
    assert.equal(response?.status(), 200);
    assert.match(response?.headers()['content-type'] ?? '', /^text\/html/);
    assert.equal(await page.locator('#endpoint').textContent(), server.url);
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.screenshot({ path: artifact('landing-page-desktop.png') });
    await page.close();
  });
});

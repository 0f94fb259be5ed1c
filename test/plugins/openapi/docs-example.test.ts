/**
 * The hand-written plugin of docs/plugins.md ("Writing a plugin for an external service")
 * runs as printed: taken from the page, loaded, and called against a loopback fake of its
 * weather service.
 */
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { PluginDefinition } from '../../../src/index.ts';
import { TestClient } from '../../../src/testing/client/test-client.ts';

const DOC = new URL('../../../docs/plugins.md', import.meta.url);
const SRC_INDEX = new URL('../../../src/index.ts', import.meta.url);

let file: string;
let plugin: PluginDefinition<never>;
let origin: string;
let close: () => Promise<void>;
const seen: { target: string; key: string | undefined }[] = [];

before(async () => {
  const page = await readFile(DOC, 'utf8');
  const at = page.indexOf('A tool for a service, written by hand:');
  assert.ok(at > 0, 'the example is on the page');
  const block = /```ts\n([\s\S]*?)```/.exec(page.slice(at));
  assert.ok(block?.[1], 'the example is a ts code block');
  // The example imports as a file in plugins/<name>/ would; here it lives in a temp folder.
  const code = block[1]
    .replace("from '@mcp-toolkit/server'", `from '${SRC_INDEX.href}'`)
    .replace("from 'zod'", `from '${import.meta.resolve('zod')}'`);
  file = path.join(os.tmpdir(), `mcp-weather-example-${process.pid}.ts`);
  await writeFile(file, code);
  plugin = (await import(pathToFileURL(file).href)).default as PluginDefinition<never>;

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const key = req.headers['x-api-key'];
    seen.push({ target: req.url ?? '', key: typeof key === 'string' ? key : undefined });
    const city = url.searchParams.get('city');
    if (city === 'Atlantis') res.writeHead(503).end('upstream down');
    else if (city === 'Nowhere') res.writeHead(404).end('unknown city');
    else res.writeHead(200, { 'content-type': 'text/plain' }).end(`Sunny in ${city}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
});
after(async () => {
  await close?.();
  if (file) await rm(file, { force: true });
});

test('the example plugin calls its service and maps its failures', async () => {
  const client = await TestClient.start({
    plugins: [plugin],
    env: { MCP_WEATHER_URL: origin, MCP_WEATHER_API_KEY: 'wk-1' },
  });
  try {
    assert.equal(await client.callText('forecast', { city: 'São Paulo' }), 'Sunny in São Paulo');
    assert.deepEqual(seen[0], { target: '/forecast?city=S%C3%A3o%20Paulo', key: 'wk-1' });
    const down = (await client.callTool('forecast', { city: 'Atlantis' })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    assert.equal(down.isError, true);
    assert.equal(down.content[0]?.text, 'HTTP 503: upstream down. A retry may help.');
    const missing = (await client.callTool('forecast', { city: 'Nowhere' })) as {
      content: { text: string }[];
    };
    assert.equal(missing.content[0]?.text, 'HTTP 404: unknown city.');
  } finally {
    await client.close();
  }
});

test('the example plugin refuses to start without its settings', async () => {
  await assert.rejects(
    TestClient.start({ plugins: [plugin], env: {} }),
    /MCP_WEATHER_URL and MCP_WEATHER_API_KEY are required/,
  );
});

/**
 * The document loader follows only the `$ref`s the operator allowed: a fetched document may
 * name its own origin, not a local file and not another host (unless MCP_OPENAPI_ALLOW_REFS
 * lists it); a local document may name files in its folder, not above it; a YAML alias bomb is
 * refused at once. Documents served by a real loopback HTTP server; the CLI exits 2.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import openapiPlugin from '../../../plugins/openapi/index.ts';
import { ToolkitError } from '../../../src/base/errors.ts';
import type { PluginDefinition } from '../../../src/plugin/define.ts';
import { TestClient } from '../../../src/testing/client/test-client.ts';
import { spawnCli } from '../../helpers/spawn-server.ts';
import { rejection } from './helpers.ts';

let dir: string;
let secret: string;
const docs = new Map<string, string>();
/** Paths that answer 302 to a URL. */
const redirects = new Map<string, string>();
/** Paths that never answer. */
const silent = new Set<string>();
const served: string[] = [];
let main: Server;
let other: Server;
let mainOrigin: string;
let otherOrigin: string;

function serve(): Server {
  return createServer((req, res) => {
    served.push(`${req.headers.host}${req.url}`);
    const to = redirects.get(req.url ?? '');
    if (to !== undefined) return void res.writeHead(302, { location: to }).end();
    if (silent.has(req.url ?? '')) return;
    if (req.url === '/huge.json') {
      // 33 MiB of a JSON string, streamed: more than the loader reads.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"openapi":"3.0.3","x":"');
      const mib = 'x'.repeat(1024 * 1024);
      let sent = 0;
      const more = () => {
        while (sent < 33 && !res.destroyed) {
          sent++;
          if (!res.write(mib)) return void res.once('drain', more);
        }
        res.end('"}');
      };
      return more();
    }
    const body = docs.get(req.url ?? '');
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const ok = { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: 'REF' } } } } };
const docWith = (ref: string) =>
  JSON.stringify({
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    servers: [{ url: 'http://127.0.0.1:9/v1' }],
    paths: { '/x': { get: { operationId: 'getX', responses: ok } } },
  }).replace('REF', ref);
const schema = JSON.stringify({
  type: 'object',
  properties: { leaked: { type: 'string', description: 'from the ref' } },
});

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mcp-openapi-refs-'));
  secret = path.join(dir, 'secret.json');
  await writeFile(secret, schema);
  main = serve();
  other = serve();
  mainOrigin = await listen(main);
  otherOrigin = await listen(other);
  docs.set('/schema.json', schema);
});
after(async () => {
  await new Promise((r) => main.close(r));
  await new Promise((r) => other.close(r));
  await rm(dir, { recursive: true, force: true });
});

function start(env: Record<string, string>): Promise<TestClient> {
  return TestClient.start({ plugins: [openapiPlugin as PluginDefinition<never>], env });
}

async function refused(env: Record<string, string>): Promise<string> {
  const err = await rejection(start(env));
  assert.ok(err instanceof ToolkitError, String(err));
  return String((err as Error & { cause?: Error }).cause?.message ?? err.message);
}

describe('a fetched document', () => {
  test('may name its own origin', async () => {
    docs.set('/own.json', docWith(`${mainOrigin}/schema.json`));
    const client = await start({ MCP_OPENAPI_SPEC: `${mainOrigin}/own.json` });
    assert.deepEqual(
      (await client.listTools()).map((t) => t.name),
      ['getX'],
    );
    await client.close();
  });

  test('may not name a local file', async () => {
    docs.set('/file.json', docWith(pathToFileURL(secret).href));
    assert.match(
      await refused({ MCP_OPENAPI_SPEC: `${mainOrigin}/file.json` }),
      /refused: a fetched document may not name a local file/,
    );
  });

  test('may not name another host unless MCP_OPENAPI_ALLOW_REFS lists it', async () => {
    docs.set('/other.json', docWith(`${otherOrigin}/schema.json`));
    served.length = 0;
    assert.match(
      await refused({ MCP_OPENAPI_SPEC: `${mainOrigin}/other.json` }),
      /is not the document's own origin and MCP_OPENAPI_ALLOW_REFS does not list it/,
    );
    assert.ok(!served.some((s) => otherOrigin.endsWith(s.split('/')[0]!)), `never asked: ${served}`);
    const client = await start({
      MCP_OPENAPI_SPEC: `${mainOrigin}/other.json`,
      MCP_OPENAPI_ALLOW_REFS: otherOrigin,
    });
    await client.close();
  });

  test('a redirect is checked as a $ref is: to another host it is refused', async () => {
    docs.set('/hop.json', docWith(`${mainOrigin}/moved.json`));
    redirects.set('/moved.json', `${otherOrigin}/schema.json`);
    served.length = 0;
    assert.match(
      await refused({ MCP_OPENAPI_SPEC: `${mainOrigin}/hop.json` }),
      /redirects to http:\/\/127\.0\.0\.1:\d+\/schema\.json, refused: .* is not the document's own origin/,
    );
    assert.ok(!served.some((s) => otherOrigin.endsWith(s.split('/')[0]!)), `never asked: ${served}`);
    // The document itself redirected within its origin is fine.
    redirects.set('/alias.json', `${mainOrigin}/own.json`);
    docs.set('/own.json', docWith(`${mainOrigin}/schema.json`));
    const client = await start({ MCP_OPENAPI_SPEC: `${mainOrigin}/alias.json` });
    await client.close();
  });

  test('a document larger than the loader reads is cut off while it arrives', async () => {
    assert.match(
      await refused({ MCP_OPENAPI_SPEC: `${mainOrigin}/huge.json` }),
      /huge\.json is larger than the 33554432 bytes the loader reads/,
    );
  });

  test('the whole load is bounded by MCP_OPENAPI_TIMEOUT_MS, $refs included', async () => {
    docs.set('/slow-ref.json', docWith(`${mainOrigin}/never.json`));
    silent.add('/never.json');
    const started = performance.now();
    const message = await refused({
      MCP_OPENAPI_SPEC: `${mainOrigin}/slow-ref.json`,
      MCP_OPENAPI_TIMEOUT_MS: '800',
    });
    const took = performance.now() - started;
    assert.ok(took < 3000, `took ${took} ms`);
    assert.match(message, /MCP_OPENAPI_SPEC could not be read|timeout|took longer/i);
  });

  test('the CLI exits 2 naming the refusal', async () => {
    const proc = spawnCli(['run', '--transport', 'stdio'], {
      MCP_PLUGINS: 'openapi',
      MCP_OPENAPI_SPEC: `${mainOrigin}/file.json`,
    });
    const timer = setTimeout(() => void proc.stop(), 30_000);
    const code = await proc.exited;
    clearTimeout(timer);
    assert.equal(code, 2, proc.stderr());
    assert.match(proc.stderr(), /a fetched document may not name a local file/);
  });
});

describe('a local document', () => {
  test('may name files in its folder, not above it', async () => {
    const sub = path.join(dir, 'api');
    await mkdir(sub, { recursive: true });
    await writeFile(path.join(sub, 'schema.json'), schema);
    const inside = path.join(sub, 'inside.json');
    await writeFile(inside, docWith('./schema.json'));
    const client = await start({ MCP_OPENAPI_SPEC: inside });
    await client.close();
    const above = path.join(sub, 'above.json');
    await writeFile(above, docWith('../secret.json'));
    assert.match(
      await refused({ MCP_OPENAPI_SPEC: above }),
      /refused: the file is outside the document's folder/,
    );
  });

  test('a file larger than the loader reads is refused before it is read', async () => {
    const big = path.join(dir, 'big.json');
    await writeFile(big, '');
    await truncate(big, 33 * 1024 * 1024);
    assert.match(
      await refused({ MCP_OPENAPI_SPEC: big, MCP_OPENAPI_BASE_URL: 'http://127.0.0.1:9' }),
      /big\.json refused: 34603008 bytes, more than the 33554432 the loader reads/,
    );
  });

  test('a YAML alias bomb is refused within a second', async () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const cur = String.fromCharCode(97 + i);
      levels.push(`${cur}: &${cur} [${Array(10).fill(`*${prev}`).join(',')}]`);
    }
    const bomb = path.join(dir, 'bomb.yaml');
    await writeFile(
      bomb,
      `openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths: {}\nx-bomb:\n${levels.map((l) => `  ${l}`).join('\n')}\n`,
    );
    const started = performance.now();
    const message = await refused({ MCP_OPENAPI_SPEC: bomb, MCP_OPENAPI_BASE_URL: 'http://127.0.0.1:9' });
    assert.ok(performance.now() - started < 1000, `took ${performance.now() - started} ms`);
    assert.match(message, /alias/i);
  });
});

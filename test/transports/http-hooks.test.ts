/**
 * The hooks that run on every request to the MCP endpoint are callback-style: an async hook
 * costs Fastify a promise of its own and its settling per request (docs/performance.md, "Where
 * the time goes"). Read from the sources of the files that install them; the
 * behaviour of each hook (refusals of a foreign Host or Origin, a body too large, auth, the
 * rate limit, shutdown) is tested in http.test.ts, http-edge.test.ts and refusals.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { pino } from 'pino';
import { buildMcpServer } from '../../src/assembly/server.ts';
import { httpOptions } from '../../src/assembly/transport-options.ts';
import { parseSettings } from '../../src/config/settings.ts';
import { buildHttpApp } from '../../src/transports/http/server.ts';

const FILES = [
  'src/transports/http/routes.ts',
  'src/transports/http/fastify-host.ts',
  'src/transports/http/refuse.ts',
  'src/transports/http/body.ts',
  'src/transports/edge/pipeline.ts',
  'src/transports/http/fallback-refusals.ts',
  'src/transports/http/mount.ts',
  'src/transports/http/server.ts',
];
const PER_REQUEST =
  /addHook\(\s*'(onRequest|preParsing|preValidation|preHandler|preSerialization|onSend|onResponse|onError)',\s*async\b/;

test('no per-request hook on the MCP routes is async', () => {
  for (const file of FILES) {
    const source = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
    const found = PER_REQUEST.exec(source);
    assert.equal(found, null, `${file}: an async ${found?.[1]} hook`);
  }
});

/** The hooks Fastify lists for the MCP route (POST and the rest) of our own app, with CORS off or on. */
async function mcpRouteHooks(cors: boolean): Promise<string> {
  const env = {
    MCP_HTTP_HOST: '127.0.0.1',
    MCP_HTTP_PORT: '0',
    MCP_PLUGINS: '',
    ...(cors ? { MCP_CORS_ORIGINS: 'https://app.example' } : {}),
  };
  const settings = parseSettings(env);
  const server = await buildMcpServer({ settings, plugins: [], logger: pino({ level: 'silent' }) });
  const app = await buildHttpApp(server, httpOptions(settings));
  try {
    await app.ready();
    const listed = app.printRoutes({ includeHooks: true, commonPrefix: false }).split('\n');
    const at = listed.findIndex((line) => /\bmcp \(POST/.test(line));
    assert.ok(at >= 0, 'the MCP route is listed');
    const hooks: string[] = [];
    for (const line of listed.slice(at + 1)) {
      if (!line.includes('• (')) break;
      hooks.push(line.trim());
    }
    return hooks.join('\n');
  } finally {
    await app.close();
    await server.close();
  }
}

test('our own app without CORS has no onSend hook (every answer of ours records itself); with CORS, the preflight refusals of @fastify/cors are recorded by one', async () => {
  const plain = await mcpRouteHooks(false);
  assert.match(plain, /onRequest/);
  assert.doesNotMatch(plain, /onSend/);
  assert.match(await mcpRouteHooks(true), /onSend/);
});

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

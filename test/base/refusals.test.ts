/**
 * The refusals (src/base/refusals.ts) carry a code from the one map, a message that says what
 * to do, and, for the edge's own codes, the HTTP status docs/errors.md gives that code.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ErrorCode, ProtocolError } from '../../src/base/errors.ts';
import { Refusal } from '../../src/base/refusals.ts';

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

/** `| -32034 | \`PayloadTooLarge\` | ... | 413 |` → 413, for the edge table's single-status rows. */
function documentedStatus(code: number): number | undefined {
  const row = doc.split('\n').find((line) => line.startsWith(`| ${code} `));
  const last = row
    ?.split('|')
    .map((c) => c.trim())
    .filter((c) => c !== '')
    .at(-1);
  return last !== undefined && /^\d{3}$/.test(last) ? Number(last) : undefined;
}

const samples: { [K in keyof typeof Refusal]: () => ProtocolError } = {
  hostNotAllowed: () => Refusal.hostNotAllowed('evil.example'),
  originNotAllowed: () => Refusal.originNotAllowed('https://evil.example'),
  bodyTooLarge: () => Refusal.bodyTooLarge(1024),
  unsupportedMediaType: () => Refusal.unsupportedMediaType(),
  bodyParseError: () => Refusal.bodyParseError('the body is not valid JSON'),
  notAcceptable: () => Refusal.notAcceptable(),
  listenNeedsEventStream: () => Refusal.listenNeedsEventStream(),
  streamNeedsEventStream: () => Refusal.streamNeedsEventStream(),
  methodNotAllowed: () => Refusal.methodNotAllowed(),
  statelessMethodNotAllowed: () => Refusal.statelessMethodNotAllowed('GET'),
  unsupportedProtocolVersion: () => Refusal.unsupportedProtocolVersion('1999-01-01', ['2025-11-25']),
  notFound: () => Refusal.notFound('GET', '/nope', '/mcp'),
  headersTooLarge: () => Refusal.headersTooLarge(),
  requestTimeout: () => Refusal.requestTimeout(),
  badHttpRequest: () => Refusal.badHttpRequest(),
  sessionRequired: () => Refusal.sessionRequired(),
  sessionNotFound: () => Refusal.sessionNotFound(),
  tooManySessions: () => Refusal.tooManySessions(),
  tooManyStreams: () => Refusal.tooManyStreams(8),
  standaloneStreamOpen: () => Refusal.standaloneStreamOpen(),
  tooManyListenStreams: () => Refusal.tooManyListenStreams(16),
  rateLimited: () => Refusal.rateLimited('this client', 1500),
  rateLimitStoreUnavailable: () => Refusal.rateLimitStoreUnavailable(),
  storeUnavailable: () => Refusal.storeUnavailable('the session store'),
  authUnavailable: () => Refusal.authUnavailable(),
  shuttingDown: () => Refusal.shuttingDown(),
  cutOffByShutdown: () => Refusal.cutOffByShutdown(),
  internal: () => Refusal.internal(),
  lineTooLarge: () => Refusal.lineTooLarge(1024),
  lineParseError: () => Refusal.lineParseError(),
};

test('every refusal is a ProtocolError with a code from ErrorCode and a message', () => {
  const codes = new Set<number>(Object.values(ErrorCode));
  for (const [name, make] of Object.entries(samples)) {
    const err = make();
    assert.ok(err instanceof ProtocolError, name);
    assert.ok(codes.has(err.code), `${name}: ${err.code} is in ErrorCode`);
    assert.ok(err.message.length > 10, `${name} says what happened`);
  }
});

test("an edge refusal's HTTP status is the one docs/errors.md gives its code", () => {
  for (const [name, make] of Object.entries(samples)) {
    const err = make();
    if (err.code < -32099 || err.code > -32000 || err.httpStatus === undefined) continue;
    assert.equal(err.httpStatus, documentedStatus(err.code), `${name} (${err.code})`);
  }
});

test('a rate-limit refusal says when to retry, in whole seconds, in its header and data', () => {
  const err = Refusal.rateLimited('tool add', 1500);
  assert.equal(err.httpStatus, 429);
  assert.deepEqual(err.httpHeaders, { 'retry-after': '2' });
  assert.deepEqual(err.data, { retryAfterMs: 1500 });
  assert.match(err.message, /tool add: retry after 2 s/);
});

test('the refusal of a host that keeps no sessions: 405 with Allow: POST', () => {
  for (const method of ['GET', 'DELETE', 'PUT']) {
    const err = Refusal.statelessMethodNotAllowed(method);
    assert.equal(err.httpStatus, 405);
    assert.deepEqual(err.httpHeaders, { allow: 'POST' });
    assert.match(err.message, new RegExp(`^Method not allowed: ${method}\\b`));
  }
  assert.match(Refusal.statelessMethodNotAllowed('GET').message, /keeps no sessions: use POST/);
});

test('stdio refusals carry no HTTP status', () => {
  assert.equal(Refusal.lineTooLarge(10).httpStatus, undefined);
  assert.equal(Refusal.lineParseError().httpStatus, undefined);
});

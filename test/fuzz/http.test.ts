/**
 * A few seconds of the fuzz suite over HTTP (a spawned server on 127.0.0.1, real sockets):
 * random and hostile POSTs never take the server down or reset a connection, each POST gets
 * a JSON-RPC body (or 202 when it owed nothing), every request in it exactly one well-formed
 * answer, and SIGTERM ends the process with 0. `npm run fuzz -- --transport http --seconds N`
 * runs the same for longer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatReport, fuzz } from './run.ts';

const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

test('http: the server survives random and hostile POSTs and answers each request once', async (t) => {
  const report = await fuzz({ transport: 'http', seconds: 4, seed, shrinkSeconds: 20 });
  t.diagnostic(formatReport(report));
  assert.equal(report.failure, undefined, formatReport(report));
  assert.deepEqual(report.atEnd, [], formatReport(report));
  assert.ok(report.runs > 10 && report.stats.answers > 10, formatReport(report));
});

/**
 * A few seconds of the fuzz suite over stdio (a spawned server, real pipes): random and
 * hostile lines never take the server down, every request gets exactly one well-formed
 * answer, notifications none, stdout carries JSON-RPC only, and stdin EOF ends the process
 * with 0. `npm run fuzz -- --transport stdio --seconds N` runs the same for longer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatReport, fuzz } from './run.ts';

const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

test('stdio: the server survives random and hostile lines and answers each request once', async (t) => {
  const report = await fuzz({ transport: 'stdio', seconds: 4, seed, shrinkSeconds: 20 });
  t.diagnostic(formatReport(report));
  assert.equal(report.failure, undefined, formatReport(report));
  assert.deepEqual(report.atEnd, [], formatReport(report));
  assert.ok(report.runs > 10 && report.stats.answers > 10, formatReport(report));
});

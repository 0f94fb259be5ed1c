/**
 * The fuzz suite catches what it is for: fuzzed over stdio, a server that answers everything
 * right but dies on one kind of message fails the run, and the report names the crash, the
 * seed, a shrunk run holding that message and the command that replays it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatReport, fuzz } from './run.ts';

test('a server that exits on one message fails the fuzz run, with its seed and a shrunk reproducer', async () => {
  const report = await fuzz({
    transport: 'stdio',
    seconds: 20,
    shrinkSeconds: 15,
    stdioCommand: ['test/fuzz/fixtures/fragile-server.ts'],
  });
  const text = formatReport(report);
  assert.ok(report.failure, text);
  assert.match(report.failure.problems.join('\n'), /the server exited \(code 1/, text);
  assert.match(report.failure.cases.join('\n'), /constructor/, text);
  assert.ok(report.failure.cases.length <= 3, text);
  assert.match(
    text,
    new RegExp(`replay: npm run fuzz -- --transport stdio --seed ${report.seed} --path \\d+`),
  );
});

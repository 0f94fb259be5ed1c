/**
 * Processes and timeouts: a stdio target runs in a process group of its own, and closing the
 * link ends the group and waits for no pipe a grandchild holds (`sh -c 'node server.js; sleep 60'`
 * is done when the report is, not a minute later); every stated timeout is the real one, for a
 * stdio server that never answers and for a TCP black hole (accepts, never responds).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { conformanceReport } from '../../src/testing/conformance/report.ts';
import { FIXTURES, runCli, runPlan } from './helpers/fixtures.ts';

const server = path.join(FIXTURES, 'stdio.ts');

/** Processes whose command line contains `marker` (the test's own `sleep`). */
function running(marker: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

/** `elapsed` is `stated` ±20%, plus `slack` for start-up and shutdown. */
function assertAbout(elapsed: number, stated: number, slack: number, what: string): void {
  assert.ok(
    elapsed >= stated * 0.8 && elapsed <= stated * 1.2 + slack,
    `${what}: ${elapsed} ms for a stated ${stated} ms`,
  );
}

describe('process hygiene', { concurrency: 2 }, () => {
  for (const command of ['check', 'test'] as const) {
    test(`${command} -- sh -c 'node server; sleep N' ends when the report does, and ends the grandchild`, async () => {
      const marker = `sleep 5${command === 'check' ? 7 : 8}.${process.pid}`;
      const started = Date.now();
      const r = await runCli(
        [
          command,
          '--request-timeout',
          '3',
          '--',
          'sh',
          '-c',
          `${process.execPath} ${server} none; ${marker}`,
        ],
        {
          timeoutMs: 60_000,
        },
      );
      const elapsed = Date.now() - started;
      assert.equal(r.code, 0, r.stdout + r.stderr);
      // Before: the link waited for the orphaned sleep's pipes (about 60 s).
      assert.ok(elapsed < 20_000, `took ${elapsed} ms`);
      assert.deepEqual(running(marker), []);
    });
  }

  test('a stdio server that never answers: the startup timeout is the real wait (check and test)', async () => {
    const silent = { command: process.execPath, args: ['-e', 'process.stdin.resume()'] };
    const options = { startupTimeoutMs: 2_000, requestTimeoutMs: 2_000, notificationWaitMs: 100 };
    let started = Date.now();
    const report = await conformanceReport(silent, options);
    // Before: server/discover, then initialize at an unsupported version, then initialize: 3 waits.
    assertAbout(Date.now() - started, 2_000, 1_500, 'check');
    assert.equal(report.connected, false);
    assert.match(report.checks.find((c) => c.id === 'connection')?.reason ?? '', /no answer within 2 s/);
    started = Date.now();
    const run = await runPlan(silent, options);
    assertAbout(Date.now() - started, 2_000, 1_500, 'test');
    assert.match(run.failed.get('test_mcp_tools[NO ENDPOINT FOUND]') ?? '', /no answer within 2 s/);
  });

  test('--startup-timeout on the command line is the wait for a silent stdio server', async () => {
    // Judged by what happened, not by the clock: the kit says how long it waited (the timer's
    // own value, 2 s: not --request-timeout's 1 s, nor the 30 s default), and the server, which
    // writes down every line it reads, was sent the first handshake request only: the fallbacks
    // were not waited for again.
    const dir = await mkdtemp(path.join(tmpdir(), 'startup-timeout-'));
    const seen = path.join(dir, 'seen.jsonl');
    const silent = `require('node:fs').writeFileSync(${JSON.stringify(seen)}, '');
process.stdin.on('data', (d) => require('node:fs').appendFileSync(${JSON.stringify(seen)}, d));`;
    try {
      const r = await runCli(
        ['check', '--startup-timeout', '2', '--request-timeout', '1', '--', process.execPath, '-e', silent],
        { timeoutMs: 120_000 },
      );
      assert.equal(r.code, 3, r.stdout);
      assert.match(r.stdout, /no answer within 2 s/);
      assert.doesNotMatch(r.stdout, /no answer within (1|30) s/);
      const methods = (await readFile(seen, 'utf8'))
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as { method?: string; id?: unknown })
        .filter((m) => m.id !== undefined)
        .map((m) => m.method);
      assert.deepEqual(methods, ['server/discover']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a TCP black hole: the request timeout is the real wait (check and test)', async () => {
    const sockets = new Set<net.Socket>();
    const hole = net.createServer((s) => {
      sockets.add(s);
      s.on('error', () => {});
    });
    await new Promise<void>((r) => hole.listen(0, '127.0.0.1', r));
    const { port } = hole.address() as net.AddressInfo;
    const url = `http://127.0.0.1:${port}/mcp`;
    try {
      const options = { requestTimeoutMs: 2_000, notificationWaitMs: 100 };
      let started = Date.now();
      const report = await conformanceReport(url, options);
      assertAbout(Date.now() - started, 2_000, 1_000, 'check');
      assert.equal(report.connected, false);
      assert.match(report.checks.find((c) => c.id === 'connection')?.reason ?? '', /no answer within 2 s/);
      started = Date.now();
      const run = await runPlan(url, options);
      assertAbout(Date.now() - started, 2_000, 1_000, 'test');
      assert.ok(run.failed.has('test_mcp_tools[NO ENDPOINT FOUND]'), JSON.stringify([...run.failed]));
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => hole.close(r));
    }
  });
});

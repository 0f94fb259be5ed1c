/**
 * A harness stopped by pid stops its servers: `kill <pid>` (a CI timeout, a script) reaches
 * only the harness, and a server it left running would stay pinned to the server core and skew
 * every later run (bench/harness/processes.ts, `tracked`).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const PROCESSES = fileURLToPath(new URL('../../bench/harness/processes.ts', import.meta.url));

/** Whether `pid` still runs: absent from /proc, or a zombie waiting to be reaped, is gone. */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`a harness stopped with ${signal} kills the server it started, and exits as the signal would`, async (t) => {
    // The harness: starts a server that never ends on its own, says its pid, then waits.
    const script = `
      const { spawnPinned } = await import(${JSON.stringify(PROCESSES)});
      const child = spawnPinned({ pinned: false }, 0, ['-e', 'setInterval(() => {}, 60000)']);
      child.once('spawn', () => console.log(child.pid));
      setInterval(() => {}, 60000);`;
    const harness = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let server = 0;
    t.after(() => {
      harness.kill('SIGKILL');
      if (server > 0 && running(server)) process.kill(server, 'SIGKILL');
    });
    const [line] = (await once(harness.stdout!, 'data')) as [Buffer];
    server = Number(line.toString().trim());
    assert.ok(server > 0 && running(server), `the server runs (${line})`);

    const exited = once(harness, 'exit');
    harness.kill(signal);
    const [code] = (await exited) as [number | null];
    assert.equal(code, signal === 'SIGTERM' ? 143 : 130);
    // The kill is sent before the harness exits; the kernel takes a moment to end the process.
    const deadline = Date.now() + 20_000;
    while (running(server) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(running(server), false, `server ${server} still runs after its harness was stopped`);
  });
}

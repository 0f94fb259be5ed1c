/**
 * `npm start` hands signals to the server: the script execs it, so the shell npm starts is
 * replaced by the server's process and npm's forwarded SIGTERM reaches it. A process manager
 * (or a container runtime running `npm start`) signals npm alone, not its process group: the
 * server must drain and exit, leaving no orphan. And the install is clean: the dependency tree
 * npm installed from the lockfile has no invalid or missing peer (`npm ls --all` exits 0; a fresh
 * `npm install` in `.ci/run`'s fresh clone fails on any ERESOLVE warning).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { childEnv, REPO_ROOT } from '../helpers/spawn-server.ts';
import { until } from '../helpers/until.ts';

/** Whether a process with this pid exists (a zombie of ours counts as gone once reaped). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

test('SIGTERM to `npm start` alone stops the server: it drains, exits, and no orphan is left', {
  timeout: 120_000,
}, async (t) => {
  const env = childEnv({
    MCP_HTTP_PORT: '0',
    MCP_LOG_FORMAT: 'json',
    MCP_LOG_LEVEL: 'info',
    MCP_PLUGINS: 'conformance',
  });
  for (const name of Object.keys(env)) if (name.startsWith('npm_')) delete env[name];
  const npm = spawn('npm', ['start'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  npm.stderr.setEncoding('utf8');
  npm.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const npmExited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
  let serverPid: number | undefined;
  t.after(() => {
    if (serverPid !== undefined && alive(serverPid)) process.kill(serverPid, 'SIGKILL');
    if (npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
  });
  // The server's own log line: its pid and URL.
  const listening = await until(
    () =>
      stderr
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { pid: number; msg: string; url?: string })
        .find((l) => l.msg.startsWith('mcp-toolkit listening on')),
    { timeoutMs: 60_000, message: `npm start never logged "listening":\n${stderr}` },
  );
  serverPid = listening.pid;
  assert.notEqual(serverPid, npm.pid);
  const health = await fetch(new URL('/healthz', listening.url));
  assert.equal(health.status, 200);

  npm.kill('SIGTERM');
  await npmExited;
  await until(() => !alive(serverPid!), {
    timeoutMs: 30_000,
    message: `the server (pid ${serverPid}) outlived npm start:\n${stderr}`,
  });
  assert.match(
    stderr,
    /"signal":"SIGTERM"[^\n]*"msg":"signal received: draining"/,
    'the server got the signal',
  );
});

test('the installed dependency tree has no invalid or missing peer dependency', () => {
  const r = spawnSync('npm', ['ls', '--all'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  // Optional dependencies of other platforms are unmet by design.
  const wrong = r.stdout.split('\n').filter((l) => /\binvalid\b|UNMET (?!OPTIONAL)/.test(l));
  assert.deepEqual(wrong, []);
});

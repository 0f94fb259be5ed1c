/**
 * The README's promise, checked: in a fresh clone placed in an empty folder (so nothing sits
 * beside it, no `../shared`), `npm install && npm start` serves and `npm install && npm test`
 * passes. `.ci/run` runs it on every submission; test/cli/fresh-clone.test.ts runs a bounded
 * version of it (copied files, linked node_modules, two test files) inside the suite.
 *
 *   node scripts/fresh-clone.ts                    git clone, npm install, npm start, npm test
 *   node scripts/fresh-clone.ts --copy --link-modules --tests a.test.ts,b.test.ts
 *
 * --copy          copy the working tree's files (tracked and untracked, not ignored) instead
 *                 of cloning HEAD, so uncommitted work is what gets checked
 * --link-modules  link this checkout's node_modules instead of running `npm install`
 * --tests F,G     run `node --test F G` instead of `npm test`
 * --add-plugin D  copy the plugin folder D into the clone's plugins/ first, as a user adds
 *                 their own (the starter's tests must pass with it there)
 * --keep          leave the folder behind (its path is printed)
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const INSTALL_TIMEOUT_MS = 15 * 60_000;
const START_TIMEOUT_MS = 60_000;
const TEST_TIMEOUT_MS = 45 * 60_000;

const { values } = parseArgs({
  options: {
    copy: { type: 'boolean', default: false },
    'link-modules': { type: 'boolean', default: false },
    tests: { type: 'string' },
    'add-plugin': { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});

// The environment of a user who has never heard of our CI: no schema folder, no CI flag.
const env: NodeJS.ProcessEnv = { ...process.env };
delete env['MCP_SPEC_SCHEMAS_DIR'];
delete env['CI'];
// Set when this runs under `node --test`: a nested test run would then report in its parent's
// private format instead of printing.
delete env['NODE_TEST_CONTEXT'];
for (const name of Object.keys(env)) if (name.startsWith('npm_')) delete env[name];

const empty = mkdtempSync(path.join(tmpdir(), 'mcp-toolkit-fresh-'));
const clone = path.join(empty, 'mcp-toolkit');

function step(what: string): void {
  console.log(`fresh-clone: ${what}`);
}

function fail(what: string): never {
  console.error(`fresh-clone: FAILED: ${what} (folder: ${clone})`);
  process.exit(1);
}

function run(command: string, args: string[], timeout: number, cwd = clone): void {
  const result = spawnSync(command, args, { cwd, env, stdio: 'inherit', timeout });
  if (result.error) fail(`${command} ${args.join(' ')}: ${result.error.message}`);
  if (result.status !== 0) fail(`${command} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
}

/** Whether a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * `npm install`, its output shown; a peer-dependency conflict (npm's `ERESOLVE` warning)
 * fails the check, as a new user would see it on their first command.
 */
function install(): void {
  const result = spawnSync('npm', ['install', '--no-audit', '--no-fund'], {
    cwd: clone,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: INSTALL_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
  process.stdout.write(result.stdout ?? '');
  process.stderr.write(result.stderr ?? '');
  if (result.error) fail(`npm install: ${result.error.message}`);
  if (result.status !== 0) fail(`npm install exited with ${result.status ?? result.signal}`);
  const peer = `${result.stdout}\n${result.stderr}`.split('\n').filter((l) => /ERESOLVE|peer dep/i.test(l));
  if (peer.length > 0) fail(`npm install warned of a peer-dependency conflict:\n${peer.join('\n')}`);
}

/**
 * `npm start` until its "listening" log line, then one request to /healthz, then SIGTERM to
 * npm alone (as a process manager sends it): the server must get it and exit.
 */
async function start(): Promise<void> {
  const child: ChildProcess = spawn('npm', ['start'], {
    cwd: clone,
    env: { ...env, MCP_HTTP_PORT: '0', MCP_LOG_FORMAT: 'json' },
    stdio: ['ignore', 'inherit', 'pipe'],
    detached: true,
  });
  let stderr = '';
  let serverPid: number | undefined;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no "listening" line within ${START_TIMEOUT_MS} ms`)),
      START_TIMEOUT_MS,
    );
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr += chunk;
      const found = /"pid":(\d+),[^\n]*"url":"(http:\/\/[^"]+)"/.exec(stderr);
      if (found?.[2]) {
        serverPid = Number(found[1]);
        clearTimeout(timer);
        resolve(found[2]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code} before listening:\n${stderr}`));
    });
  }).catch((err: Error) => {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
    fail(err.message);
  });
  const health = await fetch(new URL('/healthz', url), { signal: AbortSignal.timeout(10_000) });
  await health.body?.cancel();
  // npm alone, not its process group: the script execs the server, so npm's forwarded signal
  // reaches it and no orphan is left.
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  const deadline = Date.now() + 30_000;
  while (serverPid !== undefined && alive(serverPid) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (serverPid !== undefined && alive(serverPid)) {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
    fail(`the server (pid ${serverPid}) outlived npm start after SIGTERM`);
  }
  if (health.status !== 200) fail(`GET /healthz answered ${health.status}`);
  step(`npm start served ${url} (/healthz 200) and stopped on SIGTERM`);
}

step(`folder ${empty} (nothing beside the clone)`);
if (values.copy) {
  const listed = spawnSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (listed.status !== 0) fail(`git ls-files: ${listed.stderr}`);
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    const target = path.join(clone, file);
    mkdirSync(path.dirname(target), { recursive: true });
    try {
      cpSync(path.join(ROOT, file), target);
    } catch {
      // a file listed but deleted in the working tree: a clone would not have it either
    }
  }
} else {
  // From the empty folder: the clone's own folder does not exist yet.
  run('git', ['clone', '--quiet', ROOT, clone], INSTALL_TIMEOUT_MS, empty);
}
if (values['add-plugin']) {
  const from = path.resolve(ROOT, values['add-plugin']);
  const to = path.join(clone, 'plugins', path.basename(from));
  try {
    cpSync(from, to, { recursive: true, errorOnExist: true, force: false });
  } catch (err) {
    fail(`--add-plugin ${values['add-plugin']}: ${(err as Error).message}`);
  }
  step(`added the plugin ${path.relative(clone, to)}`);
}
if (values['link-modules']) {
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'), 'dir');
} else {
  step('npm install');
  install();
}
await start();
if (values.tests) {
  const files = values.tests.split(',').filter(Boolean);
  step(`node --test ${files.join(' ')}`);
  run(process.execPath, ['--test', '--test-timeout=120000', ...files], TEST_TIMEOUT_MS);
} else {
  step('npm test');
  run('npm', ['test'], TEST_TIMEOUT_MS);
}
step('passed');
if (values.keep) step(`kept ${clone}`);
else rmSync(empty, { recursive: true, force: true });

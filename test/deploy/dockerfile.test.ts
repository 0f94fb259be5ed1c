/**
 * The Dockerfile agrees with the code: a pinned Node LTS slim base that satisfies
 * package.json's engines, production dependencies only, a non-root user, the schema's
 * default port, a /healthz health check, exec-form start so the server gets SIGTERM as PID
 * 1, and ENV names that are real settings with values the schemas accept. No container
 * engine runs here; image.test.ts performs the image's install and start on a fresh copy.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { BUNDLED_PLUGINS, FIXTURE_PLUGINS, IMAGE_PLUGINS } from '../../scripts/bundled-plugins.ts';
import { requireAuthBeyondLoopback } from '../../src/auth/public-bind.ts';
import { parseSettings, SETTING_NAMES } from '../../src/config/settings.ts';
import { documentedInImage } from '../docs/plugins-table.ts';
import { REPO_ROOT } from '../helpers/spawn-server.ts';
import {
  contextSources,
  execForm,
  imageEnv,
  imageFilesystemRoot,
  inBuildContext,
  readDockerfile,
  readDockerignore,
} from './dockerfile.ts';
import { knownSettings, unknownNames } from './known-settings.ts';

const file = readDockerfile();
const last = file.stages.at(-1)!;
const lastOf = (keyword: string) => last.instructions.filter((i) => i.keyword === keyword).at(-1);
const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
};

test('multi-stage, every stage on the same exactly pinned node:<x.y.z>-slim, an LTS line the engines allow', () => {
  assert.ok(file.stages.length >= 2, 'a deps stage and a runtime stage');
  const images = new Set(file.stages.map((s) => s.image));
  assert.equal(images.size, 1, `one base image, got ${[...images].join(', ')}`);
  const m = /^node:(\d+)\.(\d+)\.(\d+)-slim$/.exec(last.image);
  assert.ok(m, `${last.image} is pinned to an exact version of the slim variant`);
  const [major, minor] = [Number(m[1]), Number(m[2])];
  assert.equal(major % 2, 0, 'an even (LTS) major');
  const need = /^>=(\d+)\.(\d+)/.exec(pkg.engines.node);
  assert.ok(need, `engines.node is ${pkg.engines.node}`);
  const [needMajor, needMinor] = [Number(need[1]), Number(need[2])];
  assert.ok(
    major > needMajor || (major === needMajor && minor >= needMinor),
    `satisfies ${pkg.engines.node}`,
  );
});

test('production dependencies only: npm ci --omit=dev from the lockfile, no npm install', () => {
  const runs = file.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
  const install = runs.find((r) => /\bnpm ci\b/.test(r));
  assert.ok(install, 'a RUN npm ci');
  assert.match(install, /--omit=dev\b/);
  assert.ok(!runs.some((r) => /\bnpm (install|i)\b/.test(r)), 'npm install would ignore the lockfile');
  assert.ok(contextSources(file).includes('package-lock.json'), 'the lockfile is copied');
});

test('the runtime stage copies only what runs: never the whole context, tests or local node_modules', () => {
  const sources = contextSources(file);
  assert.deepEqual([...sources].sort(), [
    'bin',
    'examples/tracing.ts',
    'package-lock.json',
    'package.json',
    'plugins',
    'src',
  ]);
  const copies = last.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args);
  assert.ok(
    copies.some((c) => c.startsWith('--from=') && c.includes('node_modules')),
    'node_modules from deps',
  );
});

test("the build context's bundled plugins are the documented image plugins: the test fixture stays out", () => {
  const rules = readDockerignore();
  // A clone owner's own plugin folders go into the image too (docs/deployment.md).
  const sent = readdirSync(path.join(REPO_ROOT, 'plugins'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && BUNDLED_PLUGINS.includes(d.name))
    .map((d) => d.name)
    .filter((name) => inBuildContext(`plugins/${name}/index.ts`, rules))
    .sort();
  assert.deepEqual(sent, [...IMAGE_PLUGINS].sort());
  assert.deepEqual(sent, documentedInImage().sort());
  for (const fixture of FIXTURE_PLUGINS) assert.ok(!sent.includes(fixture), `${fixture} stays out`);
});

test('.dockerignore admits exactly what the Dockerfile copies and keeps secrets and local state out', () => {
  const lines = readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  assert.equal(lines[0], '*', 'an allow-list: everything is excluded first');
  const allowed = new Set(lines.filter((l) => l.startsWith('!')).map((l) => l.slice(1).replace(/\/$/, '')));
  for (const source of contextSources(file)) assert.ok(allowed.has(source), `${source} is allowed`);
  for (const never of ['node_modules', '.env', '.git', 'workspace', 'test']) {
    assert.ok(!allowed.has(never), `${never} is not sent to the builder`);
  }
});

test('runs as a non-root user, numeric so that Kubernetes runAsNonRoot can verify it', () => {
  const user = lastOf('USER')?.args;
  assert.ok(user, 'a USER in the runtime stage');
  const [uid] = user.split(':');
  assert.match(uid!, /^\d+$/);
  assert.notEqual(Number(uid), 0);
});

test('EXPOSE is the default MCP_HTTP_PORT, which the image leaves unset', async () => {
  const known = await knownSettings();
  assert.equal(lastOf('EXPOSE')?.args, String(known.defaults.MCP_HTTP_PORT));
  assert.equal(imageEnv(file).MCP_HTTP_PORT, undefined, 'the port stays the schema default');
});

test('HEALTHCHECK requests /healthz on the port the server uses, with node (slim has no curl)', async () => {
  const known = await knownSettings();
  const check = lastOf('HEALTHCHECK')?.args ?? '';
  const cmd = execForm(check.slice(check.indexOf('CMD')));
  assert.ok(cmd, 'exec form');
  assert.equal(cmd[0], 'node');
  const script = cmd.join(' ');
  assert.match(script, /\/healthz/);
  assert.match(script, /process\.env\.MCP_HTTP_PORT/);
  assert.ok(script.includes(String(known.defaults.MCP_HTTP_PORT)), 'falls back to the default port');
  assert.doesNotMatch(script, /curl|wget/);
});

test('every ENV is a real setting, the values parse, and the image serves HTTP on every interface', async () => {
  const known = await knownSettings();
  const { NODE_DISABLE_COMPILE_CACHE, ...env } = imageEnv(file);
  // Node's own: its compile cache would write to /tmp, outside the volumes.
  assert.equal(NODE_DISABLE_COMPILE_CACHE, '1');
  assert.deepEqual(unknownNames(Object.keys(env), known), []);
  known.parse(env);
  assert.equal(env.MCP_TRANSPORT, 'http');
  assert.equal(env.MCP_HTTP_HOST, '0.0.0.0');
});

test("no plugin's setting is baked in; the filesystem plugin's default root is created and owned by the runtime user", async () => {
  const known = await knownSettings();
  const core = new Set<string>(SETTING_NAMES);
  const pluginSettings = Object.keys(imageEnv(file)).filter((n) => known.names.has(n) && !core.has(n));
  assert.deepEqual(pluginSettings, [], 'an image run without that plugin would report them as unknown');
  const root = imageFilesystemRoot(file);
  const user = lastOf('USER')!.args;
  const prepared = last.instructions.some(
    (i) =>
      i.keyword === 'RUN' && i.args.includes(`mkdir -p ${root}`) && i.args.includes(`chown ${user} ${root}`),
  );
  assert.ok(prepared, `RUN mkdir -p ${root} && chown ${user} ${root}`);
});

test('the image does not serve without auth: its defaults leave MCP_AUTH=none on 0.0.0.0 refused', () => {
  const env = imageEnv(file);
  assert.equal(env.MCP_ALLOW_PUBLIC_UNAUTHENTICATED, undefined);
  assert.equal(env.MCP_AUTH, undefined);
  assert.throws(() => requireAuthBeyondLoopback(parseSettings(env)), /MCP_ALLOW_PUBLIC_UNAUTHENTICATED=true/);
});

test('stops on SIGTERM handled by node itself: STOPSIGNAL SIGTERM and an exec-form CMD (no shell as PID 1)', () => {
  assert.equal(lastOf('STOPSIGNAL')?.args, 'SIGTERM');
  assert.equal(lastOf('ENTRYPOINT'), undefined);
  const cmd = execForm(lastOf('CMD')?.args ?? '');
  assert.deepEqual(cmd, ['node', 'bin/mcp-toolkit.js', 'run']);
});

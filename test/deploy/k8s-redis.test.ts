/**
 * k8s/redis.yaml's Redis, run as the manifest runs it: its container command under `sh -c` with
 * the Secret's password in REDIS_PASSWORD (on a free loopback port and a temporary folder in
 * place of 6379 and the volume at /data). It refuses commands without the password, never shows
 * the password in its arguments, answers the readiness probe, stops on SIGTERM (the kubelet's
 * signal reaches redis-server itself) and keeps its data across that restart (the append-only
 * file). The server's Deployment sends the same Secret key as MCP_REDIS_PASSWORD.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { freePort } from '../e2e/batteries/helpers.ts';
import { REPO_ROOT } from '../helpers/spawn-server.ts';
import { until } from '../helpers/until.ts';

// biome-ignore lint/suspicious/noExplicitAny: manifests are free-form YAML, checked field by field below.
type Manifest = Record<string, any>;

function manifests(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(path.join(REPO_ROOT, 'k8s', file), 'utf8')).map(
    (d) => d.toJS() as Manifest,
  );
}

const statefulSet = manifests('redis.yaml').find((m) => m.kind === 'StatefulSet') as Manifest;
const redis = statefulSet.spec.template.spec.containers[0] as Manifest;
const server = (manifests('deployment.yaml').find((m) => m.kind === 'Deployment') as Manifest).spec.template
  .spec.containers[0] as Manifest;
const hasRedis = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
// Every character the manifest allows in a password, shell and Redis config syntax among them.
const PASSWORD = "s3cret 'with' $HOME ` ; spaces # and more";

/** One command through redis-cli (the probe's client), with the password in REDISCLI_AUTH; its answer. */
function cli(port: number, password: string | undefined, ...command: string[]): string {
  const env = { ...process.env, ...(password === undefined ? {} : { REDISCLI_AUTH: password }) };
  const r = spawnSync('redis-cli', ['-p', String(port), ...command], {
    env,
    encoding: 'utf8',
    timeout: 30_000,
  });
  return `${r.stdout}${r.stderr}`.trim();
}

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('k8s/redis.yaml', () => {
  test('the password comes from the Secret key the server sends as MCP_REDIS_PASSWORD; data on a volume', () => {
    const env = (redis.env as Manifest[]).find((e) => e.name === 'REDIS_PASSWORD');
    const serverEnv = (server.env as Manifest[]).find((e) => e.name === 'MCP_REDIS_PASSWORD');
    assert.ok(env && serverEnv, 'REDIS_PASSWORD on Redis, MCP_REDIS_PASSWORD on the server');
    assert.deepEqual(env.valueFrom.secretKeyRef, serverEnv.valueFrom.secretKeyRef);
    const mount = (redis.volumeMounts as Manifest[]).find((m) => m.mountPath === '/data');
    assert.ok(mount, 'a volume at /data');
    const claim = (statefulSet.spec.volumeClaimTemplates as Manifest[]).find(
      (c) => c.metadata.name === mount.name,
    );
    assert.ok(claim, 'the volume is a PersistentVolumeClaim of the StatefulSet');
    assert.match(redis.command[2], /--appendonly yes/);
  });

  test('run as the manifest runs it: password required and never in argv, probe answered, data kept across SIGTERM', {
    skip: hasRedis ? false : 'redis-server is not installed (apt-get install -y redis-server)',
    timeout: 120_000,
  }, async () => {
    assert.deepEqual(redis.command.slice(0, 2), ['sh', '-c']);
    const dir = mkdtempSync(path.join(tmpdir(), 'k8s-redis-'));
    dirs.push(dir);
    const port = await freePort();
    const script = (redis.command[2] as string)
      .replace('--dir /data', `--dir ${dir}`)
      .replace(' <<EOF', ` --port ${port} --bind 127.0.0.1 <<EOF`);
    assert.notEqual(script, redis.command[2]);
    const env = { ...process.env, REDIS_PASSWORD: PASSWORD };
    const probe = (redis.readinessProbe.exec.command as string[]).map((part) =>
      part.replace('redis-cli ping', `redis-cli -p ${port} ping`),
    );
    const ready = () => spawnSync(probe[0] as string, probe.slice(1), { env, stdio: 'ignore' }).status === 0;

    const start = async (): Promise<ChildProcess> => {
      const child = spawn('sh', ['-c', script], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      await until(() => ready() || child.exitCode !== null, {
        timeoutMs: 30_000,
        message: 'the readiness probe never passed',
      });
      assert.equal(child.exitCode, null, 'redis-server is running');
      return child;
    };

    let child = await start();
    try {
      // `exec`: the process sh started is redis-server itself, and the password is not in its arguments.
      const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
      assert.match(argv[0] ?? '', /redis-server/);
      assert.ok(!argv.join(' ').includes('s3cret'), argv.join(' '));

      assert.match(cli(port, undefined, 'SET', 'k', 'v'), /NOAUTH/);
      assert.match(cli(port, 'wrong', 'SET', 'k', 'v'), /WRONGPASS|invalid/i);
      assert.equal(cli(port, PASSWORD, 'SET', 'grant:1', 'kept'), 'OK');

      // The kubelet's SIGTERM, then a new pod on the same volume.
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = await exited;
      assert.equal(code, 0, 'redis-server stopped cleanly on SIGTERM');
      child = await start();
      assert.equal(cli(port, PASSWORD, 'GET', 'grant:1'), 'kept');
    } finally {
      child.kill('SIGKILL');
    }
  });
});

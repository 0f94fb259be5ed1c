/**
 * Safe by default: `MCP_AUTH=none` listens on loopback only. A bind beyond it stops start-up
 * (exit 2) with a message naming MCP_ALLOW_PUBLIC_UNAUTHENTICATED and the safe alternatives,
 * before any plugin loads or any port opens; the setting lets it start, with a warning; doctor
 * reports the same refusal. Servers here bind loopback only: the refused bind never happens,
 * and the allowed one is the IPv4-mapped loopback address, which the rule (deliberately
 * literal) does not count as loopback.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { publicBindRefusal, requireAuthBeyondLoopback } from '../../src/auth/public-bind.ts';
import { InternalCode, ToolkitError } from '../../src/base/errors.ts';
import { isLoopbackHost } from '../../src/base/loopback.ts';
import { doctor } from '../../src/cli/doctor.ts';
import { spawnCli, spawnHttpCli } from '../helpers/spawn-server.ts';

const rule =
  (host: string, auth = 'none', allow = false) =>
  () =>
    requireAuthBeyondLoopback({
      MCP_AUTH: auth,
      MCP_HTTP_HOST: host,
      MCP_ALLOW_PUBLIC_UNAUTHENTICATED: allow,
    });

describe('the rule', () => {
  test('loopback names and addresses are loopback; anything else is not', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LOCALHOST', ' 127.0.0.1 ']) {
      assert.equal(isLoopbackHost(host), true, host);
    }
    for (const host of [
      '0.0.0.0',
      '::',
      '[::]',
      '10.0.0.5',
      '192.168.1.2',
      'mcp.example.com',
      '127.0.0.1.nip.io',
      '1270.0.0.1',
      '',
    ]) {
      assert.equal(isLoopbackHost(host), false, host);
    }
  });

  test('none beyond loopback is an invalid setting that names the way out; loopback, auth or the setting pass', () => {
    for (const host of ['0.0.0.0', '::', '10.0.0.5', 'mcp.example.com']) {
      assert.throws(rule(host), (err: unknown) => {
        assert.ok(err instanceof ToolkitError);
        assert.equal(err.code, InternalCode.InvalidSetting);
        assert.equal(err.message, publicBindRefusal(host));
        for (const named of [
          `MCP_HTTP_HOST=${host}`,
          'MCP_ALLOW_PUBLIC_UNAUTHENTICATED=true',
          'MCP_AUTH=api_key',
          'MCP_API_KEYS',
          'MCP_AUTH=oauth',
          'MCP_OAUTH_ISSUER',
        ]) {
          assert.ok(err.message.includes(named), `the message names ${named}: ${err.message}`);
        }
        return true;
      });
    }
    assert.doesNotThrow(rule('127.0.0.1'));
    assert.doesNotThrow(rule('::1'));
    assert.doesNotThrow(rule('0.0.0.0', 'api_key'));
    assert.doesNotThrow(rule('0.0.0.0', 'oauth'));
    assert.doesNotThrow(rule('0.0.0.0', 'none', true));
  });
});

describe('mcp-toolkit run', () => {
  test('with MCP_AUTH=none on 0.0.0.0: exit 2 before listening, one JSON line naming the setting', async () => {
    // The refusal comes before the plugins load: a plugin that does not exist is never looked up.
    const proc = spawnCli(['run'], {
      MCP_TRANSPORT: 'http',
      MCP_HTTP_HOST: '0.0.0.0',
      MCP_HTTP_PORT: '0',
      MCP_LOG_FORMAT: 'json',
      MCP_PLUGINS: 'no-such-plugin',
    });
    const code = await proc.exited;
    assert.equal(code, 2, proc.stderr());
    const lines = proc
      .stderr()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(lines.length, 1, proc.stderr());
    assert.equal(lines[0]?.code, InternalCode.InvalidSetting);
    assert.equal(lines[0]?.msg, `cannot start:\n${publicBindRefusal('0.0.0.0')}`);
    assert.doesNotMatch(proc.stderr(), /listening/);
  });

  test('--host beyond loopback on the command line is refused the same way', async () => {
    const proc = spawnCli(['run', '--transport', 'http', '--host', '::', '--port', '0'], {
      MCP_LOG_FORMAT: 'json',
    });
    assert.equal(await proc.exited, 2, proc.stderr());
    assert.match(proc.stderr(), /MCP_ALLOW_PUBLIC_UNAUTHENTICATED=true/);
  });

  test('with MCP_ALLOW_PUBLIC_UNAUTHENTICATED=true it serves, and warns once', async (t) => {
    const server = await spawnHttpCli(
      ['run', '--transport', 'http', '--host', '::ffff:127.0.0.1', '--port', '0'],
      {
        MCP_ALLOW_PUBLIC_UNAUTHENTICATED: 'true',
        MCP_LOG_FORMAT: 'json',
        MCP_PLUGINS: 'conformance',
      },
    );
    t.after(() => server.stop());
    const health = await fetch(`http://127.0.0.1:${server.port}/healthz`);
    assert.equal(health.status, 200);
    const warnings = server
      .stderr()
      .split('\n')
      .filter((l) => l.includes('MCP_ALLOW_PUBLIC_UNAUTHENTICATED=true'));
    assert.equal(warnings.length, 1, server.stderr());
    assert.equal((JSON.parse(warnings[0]!) as { level: number }).level, 40);
  });
});

describe('doctor', () => {
  async function run(env: Record<string, string>) {
    const lines: string[] = [];
    const code = await doctor({ MCP_PLUGINS: 'conformance', ...env }, (l) => lines.push(l));
    return { code, auth: lines.find((l) => / auth: /.test(l)) ?? lines.join('\n') };
  }

  test('reports the refusal as a failed check, and passes once the setting allows it or the bind is loopback', async () => {
    const refused = await run({ MCP_TRANSPORT: 'http', MCP_HTTP_HOST: '0.0.0.0' });
    assert.equal(refused.code, 1);
    assert.equal(refused.auth, `✗ auth: ${publicBindRefusal('0.0.0.0')}`);
    const allowed = await run({
      MCP_TRANSPORT: 'http',
      MCP_HTTP_HOST: '0.0.0.0',
      MCP_ALLOW_PUBLIC_UNAUTHENTICATED: 'true',
    });
    assert.equal(allowed.code, 0, allowed.auth);
    assert.match(allowed.auth, /^✓ auth: MCP_AUTH=none/);
    const loopback = await run({ MCP_TRANSPORT: 'http' });
    assert.equal(loopback.code, 0, loopback.auth);
  });
});

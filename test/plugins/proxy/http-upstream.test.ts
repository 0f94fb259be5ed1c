/**
 * The proxy plugin with a streamable-HTTP upstream: our own CLI behind API-key auth, reached
 * with the proxy's own bearer token (never a client's); its tools served in-process, on both
 * wires. With a wrong token the upstream refuses: the server still starts, serves nothing of
 * it, and the doctor check says the HTTP upstream is down.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TestClient } from '@mcp-toolkit/server/testing';
import { checkUpstreams } from '../../../plugins/proxy/doctor.ts';
import proxy, { proxySettings } from '../../../plugins/proxy/index.ts';
import { type SpawnedHttpServer, spawnHttpServer } from '../../helpers/spawn-server.ts';

const KEY = 'upstream-key-0123456789abcdef';

let upstream: SpawnedHttpServer;
before(async () => {
  upstream = await spawnHttpServer({
    MCP_PLUGINS: './test/fixtures/echo-plugin.ts',
    MCP_AUTH: 'api_key',
    MCP_API_KEYS: `proxy:${KEY}`,
  });
});
after(() => upstream?.stop());

describe('an HTTP upstream', () => {
  for (const wire of ['2025', '2026'] as const) {
    test(`its tools are ours (${wire} wire), with the proxy's own credentials`, async () => {
      const client = await TestClient.start({
        plugins: [proxy],
        wire,
        env: { MCP_PROXY_URL: upstream.url, MCP_PROXY_BEARER_TOKEN: KEY, MCP_PROXY_PREFIX: 'up.' },
      });
      try {
        const names = (await client.listTools()).map((t) => t.name);
        assert.ok(names.includes('up.echo'), JSON.stringify(names));
        const result = await client.callTool('up.add', { a: 2, b: 40 });
        assert.notEqual(result.isError, true, JSON.stringify(result));
        assert.match(JSON.stringify(result.content), /42/);
      } finally {
        await client.close();
      }
    });
  }

  test('a refused token: start-up goes on without its tools, doctor says why', async () => {
    const env = {
      MCP_PROXY_URL: upstream.url,
      MCP_PROXY_BEARER_TOKEN: 'wrong-token-0123456789',
      MCP_PROXY_RESTART_DELAY_MS: '60000',
    };
    const client = await TestClient.start({ plugins: [proxy], env });
    try {
      assert.deepEqual(await client.listTools(), []);
    } finally {
      await client.close();
    }
    const settings = proxySettings.parse({ url: upstream.url, bearerToken: 'wrong-token-0123456789' });
    const [check] = await checkUpstreams(settings);
    assert.equal(check?.ok, false);
    assert.equal(check?.kind, 'dependency');
    assert.match(String(check?.detail), /^HTTP upstream down: /);
    assert.doesNotMatch(String(check?.detail), /wrong-token/);
  });
});

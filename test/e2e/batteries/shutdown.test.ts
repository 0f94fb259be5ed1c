/**
 * Graceful stop of the real CLI process: SIGTERM while a tool call is in flight stops new
 * connections at once, lets the call finish (within MCP_SHUTDOWN_TIMEOUT_MS) so the client
 * gets its result, and exits 0. The tool reports progress when it starts, so the signal is
 * sent while the call is surely running, whatever the machine's load.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { type SpawnedHttpServer, spawnHttpServer } from '../../helpers/spawn-server.ts';
import { BATTERIES_PLUGIN, connectSdk, textOf, until } from './helpers.ts';

let server: SpawnedHttpServer;

before(async () => {
  server = await spawnHttpServer({
    MCP_PLUGINS: BATTERIES_PLUGIN,
    MCP_SHUTDOWN_TIMEOUT_MS: '5000',
    MCP_LOG_LEVEL: 'info',
    MCP_LOG_FORMAT: 'json',
  });
});
after(() => server?.stop());

/** Whether a fresh TCP connection (no keep-alive pool) gets an HTTP answer from /healthz. */
function freshConnectionAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const r = request({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
      res.resume();
      resolve(true);
    });
    r.setTimeout(1000, () => r.destroy(new Error('timeout')));
    r.on('error', () => resolve(false));
    r.end();
  });
}

describe('graceful shutdown', () => {
  test('SIGTERM during a 2.5 s tool call: new connections refused, the result delivered, exit 0', async () => {
    assert.equal(await freshConnectionAnswers(server.port), true);
    const client = await connectSdk(server.url);
    try {
      let started!: () => void;
      const running = new Promise<void>((resolve) => {
        started = resolve;
      });
      let settled = false;
      const call = client
        .callTool({ name: 'slow_started', arguments: { ms: 2500 } }, undefined, {
          onprogress: () => started(),
        })
        .finally(() => {
          settled = true;
        });
      await running;

      server.child.kill('SIGTERM');
      // Stop accepting: a fresh connection is refused while the call is still running.
      await until(
        async () => !(await freshConnectionAnswers(server.port)),
        2000,
        'new connections to be refused',
      );
      assert.equal(settled, false, 'the call was still in flight when the listener closed');

      const result = await call;
      assert.equal(textOf(result), 'done');
      assert.notEqual(result.isError, true);
    } finally {
      await client.close().catch(() => undefined);
    }
    assert.equal(await server.exited, 0);
    assert.match(server.stderr(), /"signal":"SIGTERM"/);
  });
});

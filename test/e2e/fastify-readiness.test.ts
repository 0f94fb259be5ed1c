/**
 * The Fastify plugin's readiness, over real sockets: it forces no `/healthz` or `/readyz` on
 * the application; `app.mcpToolkit.readiness()` gives the standalone server's `/readyz`
 * report (a plugin's failing `dependency` check makes it not ready, naming the plugin), which
 * the application's own probe answers with; once `app.close()` has begun it reports
 * `shutdown`, while a call still drains.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import mcpToolkit from '../../src/fastify.ts';
import { definePlugin } from '../../src/index.ts';
import { until } from '../helpers/until.ts';

const upstreamDown = definePlugin({
  name: 'upstream',
  register() {},
  doctor: () => [{ name: 'api', ok: false, detail: 'unreachable', kind: 'dependency' }],
});

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  assert.ok(address && typeof address === 'object');
  return `http://127.0.0.1:${address.port}`;
}

describe('the Fastify plugin’s readiness', () => {
  test('no probe routes are forced on the app; readiness() feeds the app’s own probe', async () => {
    const app = Fastify({ logger: false });
    app.get('/ready', async (_req, reply) => {
      const r = await app.mcpToolkit.readiness();
      return reply.code(r.ready ? 200 : 503).send(r);
    });
    await app.register(mcpToolkit, { plugins: [upstreamDown] });
    try {
      const base = await listen(app);
      for (const probe of ['/healthz', '/readyz']) {
        const res = await fetch(`${base}${probe}`);
        assert.equal(res.status, 404, `${probe} is the app's to answer`);
        await res.body?.cancel();
      }
      const report = await app.mcpToolkit.readiness();
      assert.equal(report.ready, false);
      assert.equal(report.status, 'not_ready');
      assert.deepEqual(report.checks['plugin:upstream'], { ok: false, detail: 'api: unreachable' });
      const own = await fetch(`${base}/ready`);
      assert.equal(own.status, 503);
      assert.deepEqual(((await own.json()) as typeof report).checks, report.checks);
    } finally {
      await app.close();
    }
  });

  test('ready while serving; shutdown reported once app.close() has begun', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let started = false;
    const held = definePlugin({
      name: 'held',
      register(app) {
        app.httpRoute({
          method: 'GET',
          url: '/hold',
          auth: false,
          async handler() {
            started = true;
            await gate;
            return { body: 'released' };
          },
        });
      },
      doctor: () => [{ name: 'pool', ok: true }],
    });
    const app = Fastify({ logger: false });
    await app.register(mcpToolkit, { plugins: [held] });
    const base = await listen(app);
    let closing: Promise<undefined> | undefined;
    try {
      const before = await app.mcpToolkit.readiness();
      assert.equal(before.ready, true);
      assert.equal(before.status, 'ready');
      assert.deepEqual(before.checks['plugin:held'], { ok: true });

      const answer = fetch(`${base}/hold`);
      await until(() => started, { message: 'the route never started' });
      closing = app.close();
      const during = await until(
        async () => {
          const r = await app.mcpToolkit.readiness();
          return r.checks.shutdown ? r : undefined;
        },
        { message: 'readiness never reported the shutdown' },
      );
      assert.equal(during.ready, false);
      assert.deepEqual(during.checks.shutdown, { ok: false, detail: 'shutting down' });
      release();
      assert.equal(await (await answer).text(), 'released');
    } finally {
      release();
      await (closing ?? app.close());
    }
  });
});

/**
 * The plugins' lifecycle through the public API (`createServer` from `@mcp-toolkit/server`,
 * over real HTTP): onReady runs before the server is served; one that throws stops start-up
 * naming the plugin, and what the others opened is closed again; at close(), the onClose
 * hooks run after the call in flight has answered, last registered first, and one that
 * hangs is cut off within MCP_SHUTDOWN_TIMEOUT_MS and logged.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { pino } from 'pino';
import { z } from 'zod';
import {
  createServer,
  definePlugin,
  defineTool,
  InternalCode,
  type ServerOptions,
  ToolkitError,
} from '../../src/index.ts';
import { until } from '../helpers/until.ts';

const INFO = { name: 'lifecycle-test', version: '1.0.0' };

/** A logger whose JSON lines land in `lines`. */
function capture(): { logger: ServerOptions['logger']; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

/** Whether a new TCP connection to 127.0.0.1:`port` is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

const settings = { MCP_HTTP_HOST: '127.0.0.1', MCP_HTTP_PORT: 0, MCP_LOG_LEVEL: 'silent' };

describe('plugin lifecycle', () => {
  test('onReady runs before the server is reached; onClose after the call in flight answered', async () => {
    const events: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const plugin = definePlugin({
      name: 'pool',
      register(app) {
        let open = false;
        app.onReady(async () => {
          await new Promise((r) => setTimeout(r, 50));
          open = true;
          events.push('ready');
        });
        app.onClose(() => {
          events.push('close');
          open = false;
        });
        app.add(
          defineTool(
            { name: 'slow', description: 'Answers once released', input: z.object({}) },
            async () => {
              events.push('call started');
              await gate;
              events.push('call answered');
              return open ? 'pool open' : 'pool closed';
            },
          ),
        );
      },
    });
    const running = await createServer({ plugins: [plugin], settings, transport: 'http' });
    assert.deepEqual(events, ['ready']);
    assert.ok(running.url);
    const client = new Client(INFO, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url)));
    const call = client.callTool({ name: 'slow', arguments: {} });
    await until(() => events.includes('call started'), { message: 'the call never started' });
    const closing = running.close();
    // The close is under way (the listener refuses new connections) and is held by the call.
    const { port } = new URL(running.url);
    await until(() => refused(Number(port)), { message: 'the server never stopped accepting connections' });
    assert.ok(!events.includes('close'), 'onClose waits for the call in flight');
    release();
    const result = await call;
    await closing;
    assert.deepEqual(result.content, [{ type: 'text', text: 'pool open' }]);
    assert.deepEqual(events, ['ready', 'call started', 'call answered', 'close']);
    await client.close().catch(() => {});
  });

  test('onReady that throws stops start-up naming the plugin; the others are closed again', async () => {
    const events: string[] = [];
    const opened = definePlugin({
      name: 'opened',
      register(app) {
        app.onReady(() => void events.push('opened ready'));
        app.onClose(() => void events.push('opened closed'));
      },
    });
    const failing = definePlugin({
      name: 'failing',
      register(app) {
        app.onReady(async () => {
          throw new Error('no database');
        });
      },
    });
    const after = definePlugin({
      name: 'after',
      register(app) {
        app.onReady(() => void events.push('after ready'));
      },
    });
    await assert.rejects(
      createServer({ plugins: [opened, failing, after], settings, transport: 'http' }),
      (err: unknown) => {
        assert.ok(err instanceof ToolkitError);
        assert.equal(err.code, InternalCode.PluginInvalid);
        assert.match(err.message, /^Plugin "failing" failed in onReady\(\): Error: no database/);
        return true;
      },
    );
    assert.deepEqual(events, ['opened ready', 'opened closed']);
  });

  test('onClose hooks run last registered first; one that hangs is cut off and logged', async () => {
    const events: string[] = [];
    const { logger, lines } = capture();
    const plugin = (name: string, hang = false) =>
      definePlugin({
        name,
        register(app) {
          app.onClose(() => void events.push(`${name} first`));
          app.onClose(async () => {
            events.push(`${name} second`);
            if (hang) await new Promise(() => {});
          });
        },
      });
    const running = await createServer({
      plugins: [plugin('a'), plugin('b', true), plugin('c')],
      settings: { ...settings, MCP_SHUTDOWN_TIMEOUT_MS: 600 },
      logger,
      transport: 'http',
    });
    const started = Date.now();
    await running.close();
    const took = Date.now() - started;
    assert.deepEqual(events, ['c second', 'c first', 'b second', 'b first', 'a second', 'a first']);
    assert.ok(took < 1500, `close took ${took} ms`);
    const cut = lines.find((l) => l.plugin === 'b' && /onClose did not finish/.test(String(l.msg)));
    assert.ok(cut, `a log line names the plugin cut off: ${JSON.stringify(lines)}`);
    assert.equal(cut.level, 50);
  });
});

/**
 * Every refusal of the HTTP transport goes through one `refuse()`: whatever refuses (the Host
 * check of the MCP routes or of the discovery documents, the Accept check, a missing session,
 * a wrong method, a body that is not JSON), the refusal is traced, counted and logged with its
 * status and `error.type`. The transport takes only what it uses (src/transports/deps.ts), so
 * the test hands it the server's parts with a telemetry that records.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { pino } from 'pino';
import { buildMcpServer } from '../../src/assembly/server.ts';
import { httpOptions } from '../../src/assembly/transport-options.ts';
import { parseSettings } from '../../src/config/settings.ts';
import type { RefusalInfo } from '../../src/telemetry/tracing.ts';
import { NOOP_TELEMETRY } from '../../src/telemetry/tracing.ts';
import type { HttpDeps } from '../../src/transports/deps.ts';
import { buildHttpApp } from '../../src/transports/http/server.ts';

test('every refusal is traced, counted and logged, with its status and error.type', async () => {
  const settings = parseSettings({ MCP_PLUGINS: '', MCP_HTTP_HOST: '127.0.0.1', MCP_LOG_LEVEL: 'info' });
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') lines.push(JSON.parse(line));
      done();
    },
  });
  const logger = pino({ level: 'info' }, sink);
  const server = await buildMcpServer({ settings, plugins: [], logger });
  const recorded: RefusalInfo[] = [];
  const deps: HttpDeps = {
    ...server,
    telemetry: {
      ...NOOP_TELEMETRY,
      recordRefusal(info) {
        recorded.push(info);
        return undefined;
      },
    },
  };
  const app = await buildHttpApp(deps, httpOptions(settings));
  try {
    const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const cases: { status: number; reason: string; send: () => Promise<{ statusCode: number }> }[] = [
      {
        status: 403,
        reason: 'host_not_allowed',
        send: () =>
          app.inject({ method: 'POST', url: '/mcp', headers: { ...json, host: 'evil.example' }, body: ping }),
      },
      {
        status: 403,
        reason: 'host_not_allowed',
        send: () =>
          app.inject({
            method: 'GET',
            url: '/.well-known/mcp/catalog.json',
            headers: { host: 'evil.example' },
          }),
      },
      {
        status: 406,
        reason: 'not_acceptable',
        send: () =>
          app.inject({ method: 'POST', url: '/mcp', headers: { ...json, accept: 'text/plain' }, body: ping }),
      },
      {
        status: 400,
        reason: 'bad_request',
        send: () => app.inject({ method: 'POST', url: '/mcp', headers: json, body: ping }),
      },
      {
        status: 400,
        reason: 'parse_error',
        send: () => app.inject({ method: 'POST', url: '/mcp', headers: json, body: '{not json' }),
      },
      { status: 405, reason: 'method_not_allowed', send: () => app.inject({ method: 'PUT', url: '/mcp' }) },
      { status: 404, reason: 'not_found', send: () => app.inject({ method: 'GET', url: '/nowhere' }) },
    ];
    for (const c of cases) {
      const before = recorded.length;
      const linesBefore = lines.length;
      const reply = await c.send();
      assert.equal(reply.statusCode, c.status, c.reason);
      assert.equal(recorded.length, before + 1, `${c.reason}: one refusal recorded`);
      assert.equal(recorded.at(-1)?.status, c.status);
      assert.equal(recorded.at(-1)?.reason, c.reason);
      assert.ok(
        lines.slice(linesBefore).some((l) => l.msg === 'mcp request' && l.outcome === 'refused'),
        `${c.reason}: a refused request line`,
      );
    }
  } finally {
    await app.close();
    await server.close();
  }
});

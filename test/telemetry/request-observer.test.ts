import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { ErrorCode, InternalCode, ProtocolError, ToolkitError } from '../../src/protocol/errors.ts';
import { createLogger } from '../../src/telemetry/logger.ts';
import { createRequestObserver } from '../../src/telemetry/request-observer.ts';
import { createTelemetry, NOOP_TELEMETRY } from '../../src/telemetry/tracing.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.ts';

const PARENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';

function memoryLogger(logToolArgs = false) {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      chunks.push(String(chunk));
      callback();
    },
  });
  const logger = createLogger({ level: 'info', format: 'json', destination: sink, logToolArgs });
  const lines = () =>
    chunks
      .join('')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger, lines };
}

const startInfo = {
  method: 'tools/call',
  target: 'read_file',
  requestId: 5,
  wire: '2025',
  protocolVersion: '2025-06-18',
  sessionId: 'session-9',
  identity: { clientId: 'alice', scopes: [] },
  transport: 'http',
  meta: { traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-01` },
} as const;

let receiver: OtlpReceiver;
before(async () => {
  receiver = await startOtlpReceiver();
});
after(() => receiver.close());

describe('createRequestObserver', () => {
  test('ends the span with the outcome and logs one line carrying its trace id', async (t) => {
    const telemetry = await createTelemetry({
      endpoint: receiver.url,
      serviceName: 'observer',
      serviceVersion: '1',
    });
    t.after(() => telemetry.shutdown());
    const { logger, lines } = memoryLogger();
    const observer = createRequestObserver({ telemetry, logger });

    observer.start(startInfo)({ isError: true });
    observer.start({ ...startInfo, requestId: 6, meta: undefined })({
      error: new ProtocolError(ErrorCode.InvalidParams, 'Unknown tool: read_file'),
    });
    observer.start({ ...startInfo, requestId: 7, meta: undefined })({
      error: new ToolkitError(InternalCode.Timeout, 'took too long'),
    });
    await telemetry.shutdown();

    const [first, second, third] = lines();
    assert.equal(first?.msg, 'mcp request');
    assert.equal(first?.method, 'tools/call');
    assert.equal(first?.tool, 'read_file');
    assert.equal(first?.outcome, 'tool_error');
    assert.equal(first?.traceId, PARENT_TRACE);
    assert.equal(first?.clientId, 'alice');
    assert.equal(first?.sessionId, 'session-9');
    assert.equal(first?.requestId, 5);
    assert.equal(typeof first?.durationMs, 'number');
    assert.equal(second?.outcome, 'error');
    assert.match(String(second?.traceId), /^[0-9a-f]{32}$/);
    assert.equal(third?.outcome, 'error');

    const spans = await receiver.waitForSpans((s) => s.resource['service.name'] === 'observer', 5000, 3);
    const byId = (id: string) => spans.find((s) => s.attributes['jsonrpc.request.id'] === id);
    assert.equal(byId('5')?.parentSpanId, PARENT_SPAN);
    assert.equal(byId('5')?.attributes['error.type'], 'tool_error');
    assert.equal(byId('5')?.attributes['mcp.client.id'], 'alice');
    assert.equal(byId('6')?.attributes['error.type'], String(ErrorCode.InvalidParams));
    assert.equal(byId('7')?.attributes['error.type'], InternalCode.Timeout);
  });

  test('logs without a trace id when telemetry is off; arguments only when allowed', () => {
    const off = memoryLogger(false);
    createRequestObserver({ telemetry: NOOP_TELEMETRY, logger: off.logger }).start({
      ...startInfo,
      args: { path: 'a.txt' },
    } as typeof startInfo)({ isError: false });
    const [line] = off.lines();
    assert.equal(line?.outcome, 'ok');
    assert.equal('traceId' in (line ?? {}), false);
    assert.equal('args' in (line ?? {}), false);

    const on = memoryLogger(true);
    createRequestObserver({ telemetry: NOOP_TELEMETRY, logger: on.logger }).start({
      ...startInfo,
      args: { path: 'a.txt', token: 't' },
    } as typeof startInfo)({});
    assert.deepEqual(on.lines()[0]?.args, { path: 'a.txt', token: '[redacted]' });
  });
});

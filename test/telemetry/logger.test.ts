import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { InternalCode, ToolkitError } from '../../src/base/errors.ts';
import { createLogger, type LoggerOptions, requestLogLine } from '../../src/telemetry/logger.ts';

/** An in-memory destination: every chunk pino writes, as text. */
function memory(tty = false): Writable & { chunks: string[]; lines(): Record<string, unknown>[] } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      chunks.push(String(chunk));
      callback();
    },
  });
  if (tty) Object.assign(sink, { isTTY: true });
  return Object.assign(sink, {
    chunks,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  });
}

function jsonLogger(options: Partial<LoggerOptions> = {}) {
  const sink = memory();
  const logger = createLogger({ level: 'info', format: 'json', destination: sink, ...options });
  return { sink, logger };
}

/** Waits (bounded) until pino-pretty's asynchronous pipeline has written something. */
async function firstChunk(sink: ReturnType<typeof memory>): Promise<string> {
  for (let i = 0; i < 100 && sink.chunks.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  return sink.chunks.join('');
}

describe('createLogger', () => {
  test('writes JSON lines with level and message', () => {
    const { sink, logger } = jsonLogger();
    logger.info({ a: 1 }, 'hello');
    logger.debug('not at info');
    const lines = sink.lines();
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.level, 30);
    assert.equal(lines[0]?.msg, 'hello');
    assert.equal(lines[0]?.a, 1);
  });

  test('redacts credentials by field name at any depth, without touching the caller object', () => {
    const { sink, logger } = jsonLogger();
    const entry = {
      req: { headers: { authorization: 'Bearer abc', 'x-api-key': 'k1', host: 'example.test' } },
      headers: { 'X-API-Key': 'k2', Cookie: 'sid=1' },
      oauth: { access_token: 'at', refreshToken: 'rt', nested: { client_secret: 'cs' } },
      password: 'pw',
      keyId: 'alice',
      list: [{ token: 't' }],
    };
    logger.info(entry, 'edge');
    const { req, headers, oauth, password, keyId, list } = sink.lines()[0] ?? {};
    assert.deepEqual(
      { req, headers, oauth, password, keyId, list },
      {
        req: { headers: { authorization: '[redacted]', 'x-api-key': '[redacted]', host: 'example.test' } },
        headers: { 'X-API-Key': '[redacted]', Cookie: '[redacted]' },
        oauth: {
          access_token: '[redacted]',
          refreshToken: '[redacted]',
          nested: { client_secret: '[redacted]' },
        },
        password: '[redacted]',
        keyId: 'alice', // an id is not a secret
        list: [{ token: '[redacted]' }],
      },
    );
    assert.equal(entry.req.headers.authorization, 'Bearer abc', 'the caller object is not mutated');
    for (const secret of ['Bearer abc', 'k1', 'k2', 'sid=1', 'at', 'rt', 'cs', 'pw']) {
      assert.ok(!sink.chunks.join('').includes(`"${secret}"`), `${secret} leaked`);
    }
  });

  test('redacts credentials in child logger bindings', () => {
    const { sink, logger } = jsonLogger();
    logger
      .child({ token: 'child-token', req: { headers: { authorization: 'Bearer c' } }, clientId: 'c1' })
      .info('x');
    const { token, req, clientId } = sink.lines()[0] ?? {};
    assert.deepEqual(
      { token, req, clientId },
      { token: '[redacted]', req: { headers: { authorization: '[redacted]' } }, clientId: 'c1' },
    );
  });

  test('pretty format writes human-readable text, still redacted', async () => {
    const sink = memory();
    const logger = createLogger({ level: 'info', format: 'pretty', destination: sink });
    logger.info({ token: 'plain-secret' }, 'pretty hello');
    const text = await firstChunk(sink);
    assert.match(text, /INFO/);
    assert.match(text, /pretty hello/);
    assert.ok(!text.includes('plain-secret'));
    assert.throws(() => JSON.parse(text.split('\n')[0] ?? ''));
  });

  test('auto is JSON when the destination is not a terminal, pretty when it is', async () => {
    const pipe = memory(false);
    createLogger({ level: 'info', format: 'auto', destination: pipe }).info('to a pipe');
    assert.equal(pipe.lines()[0]?.msg, 'to a pipe');

    const terminal = memory(true);
    createLogger({ level: 'info', format: 'auto', destination: terminal }).info('to a terminal');
    const text = await firstChunk(terminal);
    assert.match(text, /to a terminal/);
    assert.throws(() => JSON.parse(text.split('\n')[0] ?? ''));
  });

  test('writes to stderr by default and never to stdout, the stdio protocol stream', async () => {
    const loggerUrl = new URL('../../src/telemetry/logger.ts', import.meta.url).href;
    for (const format of ['json', 'pretty'] as const) {
      const script = `import { createLogger } from ${JSON.stringify(loggerUrl)};
        createLogger({ level: 'info', format: '${format}' }).info('to stderr');`;
      const { stdout, stderr } = await promisify(execFile)(
        process.execPath,
        ['--input-type=module', '-e', script],
        {
          timeout: 60_000,
        },
      );
      assert.equal(stdout, '', format);
      assert.match(stderr, /to stderr/, format);
    }
  });

  test('rejects an unknown format or level at once', () => {
    const isInvalidSetting = (err: unknown) =>
      err instanceof ToolkitError && err.code === InternalCode.InvalidSetting;
    assert.throws(
      () => createLogger({ level: 'info', format: 'xml' as 'json', destination: memory() }),
      isInvalidSetting,
    );
    assert.throws(
      () => createLogger({ level: 'loud' as 'info', format: 'json', destination: memory() }),
      isInvalidSetting,
    );
  });
});

describe('requestLogLine', () => {
  const request = {
    method: 'tools/call',
    targetName: 'read_file',
    identity: { clientId: 'alice', scopes: [] },
    requestId: 7,
  } as const;
  const end = {
    outcome: 'ok',
    durationMs: 12.34567,
    trace: { trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: 'b7ad6b7169203331', trace_flags: '01' },
    sessionId: 's-1',
  } as const;

  test('writes one info line with the request fields', () => {
    const { sink, logger } = jsonLogger();
    requestLogLine(logger, request, end);
    const lines = sink.lines();
    assert.equal(lines.length, 1);
    const line = lines[0] as Record<string, unknown>;
    assert.equal(line.msg, 'mcp request');
    assert.equal(line.level, 30);
    assert.equal(line.method, 'tools/call');
    assert.equal(line.tool, 'read_file');
    assert.equal(line.outcome, 'ok');
    assert.equal(line.durationMs, 12.346);
    assert.equal(line.trace_id, end.trace.trace_id);
    assert.equal(line.span_id, end.trace.span_id);
    assert.equal(line.trace_flags, '01');
    assert.equal(line.clientId, 'alice');
    assert.equal(line.sessionId, 's-1');
    assert.equal(line.requestId, 7);
    assert.equal('args' in line, false);
  });

  test('never logs tool arguments unless enabled', () => {
    const { sink, logger } = jsonLogger();
    requestLogLine(logger, { ...request, args: { path: '/etc/hosts' } }, end);
    requestLogLine(logger.child({ requestId: 8 }), { ...request, args: { path: '/etc/hosts' } }, end);
    for (const line of sink.lines()) assert.equal('args' in line, false);
    assert.ok(!sink.chunks.join('').includes('/etc/hosts'));
  });

  test('logs tool arguments when enabled, with secret-looking keys redacted (also from a child logger)', () => {
    const { sink, logger } = jsonLogger({ logToolArgs: true });
    const args = {
      path: 'notes.txt',
      apiKey: 'k',
      Password: 'p',
      options: { authHeader: 'Bearer x', sessionToken: 't', depth: 2 },
      clientSecret: 's',
    };
    requestLogLine(logger.child({ requestId: 9 }), { ...request, args }, end);
    assert.deepEqual(sink.lines()[0]?.args, {
      path: 'notes.txt',
      apiKey: '[redacted]',
      Password: '[redacted]',
      options: { authHeader: '[redacted]', sessionToken: '[redacted]', depth: 2 },
      clientSecret: '[redacted]',
    });
    assert.equal(args.apiKey, 'k', 'the caller object is not mutated');
  });

  test('writes nothing when info is disabled', () => {
    const { sink, logger } = jsonLogger({ level: 'warn' });
    requestLogLine(logger, request, end);
    assert.equal(sink.chunks.length, 0);
  });
});

/**
 * The server's pino logger. Always stderr: on stdio, stdout is the protocol stream and one
 * stray byte there corrupts it (MCP spec, Transports: stdio). JSON lines by default,
 * pino-pretty when asked or when stderr is a terminal; credentials redacted by key name.
 */

import { createRequire } from 'node:module';
import { isatty } from 'node:tty';
import { type DestinationStream, type LevelWithSilent, type Logger, pino } from 'pino';
import { InternalCode, ToolkitError } from '../base/errors.ts';
import type { TraceLogFields } from '../base/trace-context.ts';
import { REDACT_PATHS, REDACTED, redactArgs, redactSecrets } from './redaction.ts';

export type LogFormat = 'auto' | 'json' | 'pretty';

export interface LoggerOptions {
  /** `MCP_LOG_LEVEL`. */
  readonly level: LevelWithSilent;
  /** `MCP_LOG_FORMAT`: `auto` is pretty when the destination is a terminal, JSON otherwise. */
  readonly format: LogFormat;
  /** A stream (tests) or a file descriptor; default 2 (stderr). Never point this at stdout on stdio. */
  readonly destination?: NodeJS.WritableStream | number;
  /** `MCP_LOG_TOOL_ARGS`: put tool arguments on the request line (secret-looking keys redacted). */
  readonly logToolArgs?: boolean;
}

export type RequestOutcome = 'ok' | 'error' | 'tool_error' | 'refused';

/** The fields of the one line logged per MCP request. */
export interface RequestLogFields {
  readonly method: string;
  readonly tool?: string;
  readonly outcome: RequestOutcome;
  readonly durationMs: number;
  /** The request span's `trace_id`, `span_id`, `trace_flags`; absent when tracing is off. */
  readonly trace?: TraceLogFields | undefined;
  readonly clientId?: string;
  readonly sessionId?: string;
  readonly requestId?: string | number;
  /** Tool arguments: dropped unless the logger was created with `logToolArgs`. */
  readonly args?: unknown;
}

const LEVELS: readonly string[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
const FORMATS: readonly string[] = ['auto', 'json', 'pretty'];

// Carried on the logger itself: pino children are `Object.create(parent)`, so a child
// handed to a request still knows whether arguments may be logged.
const logToolArgsSym = Symbol('mcp-toolkit.logToolArgs');

/**
 * Creates the server logger. Options are checked at once (a bad level or format throws).
 *
 * @example
 * const logger = createLogger({ level: settings.MCP_LOG_LEVEL, format: settings.MCP_LOG_FORMAT,
 *   logToolArgs: settings.MCP_LOG_TOOL_ARGS });
 */
/** pino-pretty is loaded only when pretty output is asked for (it costs ~60 ms at start-up). */
function loadPinoPretty(): typeof import('pino-pretty').PinoPretty {
  return (createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty')).PinoPretty;
}

export function createLogger(options: LoggerOptions): Logger {
  if (!LEVELS.includes(options.level)) {
    throw new ToolkitError(InternalCode.InvalidSetting, `Unknown log level "${options.level}"`);
  }
  if (!FORMATS.includes(options.format)) {
    throw new ToolkitError(InternalCode.InvalidSetting, `Unknown log format "${options.format}"`);
  }
  const destination = options.destination ?? 2;
  const terminal = isTerminal(destination);
  const pretty = options.format === 'pretty' || (options.format === 'auto' && terminal);
  const stream: DestinationStream = pretty
    ? loadPinoPretty()({
        destination,
        colorize: terminal,
        // Synchronous, so the last lines before a crash or exit are not lost.
        sync: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname',
      })
    : typeof destination === 'number'
      ? pino.destination({ dest: destination, sync: true })
      : (destination as DestinationStream);
  const logger = pino(
    {
      level: options.level,
      // Log objects: a key-name scan at any depth. Child bindings: literal redact paths.
      formatters: { log: redactSecrets, bindings: redactSecrets },
      redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    },
    stream,
  );
  Object.defineProperty(logger, logToolArgsSym, { value: options.logToolArgs === true });
  return logger;
}

function isTerminal(destination: NodeJS.WritableStream | number): boolean {
  if (typeof destination === 'number') return isatty(destination);
  return (destination as { isTTY?: boolean }).isTTY === true;
}

/**
 * Writes the one info line of an MCP request (`msg: "mcp request"`). Tool arguments appear
 * only when the logger was created with `logToolArgs`, and then with secret-looking keys
 * redacted. Builds nothing when info is disabled.
 *
 * @example
 * requestLogLine(logger, { method: 'tools/call', tool: 'read_file', outcome: 'ok',
 *   durationMs: 3.2, trace: span.logFields, clientId, sessionId, requestId: 7 });
 */
export function requestLogLine(logger: Logger, fields: RequestLogFields): void {
  if (!logger.isLevelEnabled('info')) return;
  const logArgs = (logger as unknown as Record<symbol, unknown>)[logToolArgsSym] === true;
  logger.info(
    {
      method: fields.method,
      tool: fields.tool,
      outcome: fields.outcome,
      durationMs: Math.round(fields.durationMs * 1000) / 1000,
      trace_id: fields.trace?.trace_id,
      span_id: fields.trace?.span_id,
      trace_flags: fields.trace?.trace_flags,
      clientId: fields.clientId,
      sessionId: fields.sessionId,
      requestId: fields.requestId,
      args: logArgs && fields.args !== undefined ? redactArgs(fields.args) : undefined,
    },
    'mcp request',
  );
}

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
import type { RequestRecord } from '../protocol/request-record.ts';
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

/**
 * What the line of a request reads of it: its record (src/protocol/request-record.ts), as it is;
 * for a request refused at the HTTP edge, before it had one, what the edge knows.
 */
export type RequestLogSource = Pick<RequestRecord, 'method'> &
  Partial<Pick<RequestRecord, 'targetName' | 'requestId' | 'identity' | 'args'>>;

/** How the request ended, for its line. */
export interface RequestLogEnd {
  readonly outcome: RequestOutcome;
  readonly durationMs: number;
  /** The request span's `trace_id`, `span_id`, `trace_flags`; absent when tracing is off. */
  readonly trace?: TraceLogFields | undefined;
  /** The record's session, or the one `initialize` opened. */
  readonly sessionId?: string | undefined;
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
 * requestLogLine(logger, { method: 'tools/call', targetName: 'read_file', requestId: 7 },
 *   { outcome: 'ok', durationMs: 3.2, trace: span.logFields, sessionId });
 */
export function requestLogLine(logger: Logger, request: RequestLogSource, end: RequestLogEnd): void {
  if (!logger.isLevelEnabled('info')) return;
  const logArgs = (logger as unknown as Record<symbol, unknown>)[logToolArgsSym] === true;
  logger.info(
    {
      method: request.method,
      tool: request.method === 'tools/call' ? request.targetName : undefined,
      outcome: end.outcome,
      durationMs: Math.round(end.durationMs * 1000) / 1000,
      trace_id: end.trace?.trace_id,
      span_id: end.trace?.span_id,
      trace_flags: end.trace?.trace_flags,
      clientId: request.identity?.clientId,
      sessionId: end.sessionId,
      requestId: request.requestId,
      args: logArgs && request.args !== undefined ? redactArgs(request.args) : undefined,
    },
    'mcp request',
  );
}

/** What the line of a request to a plugin's HTTP route says. */
export interface RouteLogLine {
  /** `GET`, `POST`, ... */
  readonly httpMethod: string;
  /** The route as declared. */
  readonly route: string;
  readonly plugin: string;
  readonly status: number;
  readonly durationMs: number;
  readonly clientId?: string | undefined;
  readonly trace?: TraceLogFields | undefined;
}

/**
 * Writes the one info line of a request to a plugin's HTTP route (`msg: "http route"`), with
 * the fields of an MCP request's line: `method` is `GET /admin/stats`, `outcome` is `ok`
 * below 400, `refused` for a 4xx and `error` for a 5xx.
 *
 * @example
 * routeLogLine(logger, { httpMethod: 'GET', route: '/admin/stats', plugin: 'admin', status: 200, durationMs: 1.2 });
 */
export function routeLogLine(logger: Logger, line: RouteLogLine): void {
  if (!logger.isLevelEnabled('info')) return;
  const outcome: RequestOutcome = line.status >= 500 ? 'error' : line.status >= 400 ? 'refused' : 'ok';
  logger.info(
    {
      method: `${line.httpMethod} ${line.route}`,
      plugin: line.plugin,
      status: line.status,
      outcome,
      durationMs: Math.round(line.durationMs * 1000) / 1000,
      trace_id: line.trace?.trace_id,
      span_id: line.trace?.span_id,
      trace_flags: line.trace?.trace_flags,
      clientId: line.clientId,
    },
    'http route',
  );
}

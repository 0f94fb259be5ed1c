/**
 * The dispatcher's `observe` hook built from the two telemetry parts: a server span per
 * request (tracing.ts) and one log line per request (logger.ts), both closed with the
 * request's outcome.
 */
import type { Logger } from 'pino';
import { ProtocolError, ToolkitError } from '../protocol/errors.ts';
import type { RequestObserver } from '../protocol/exchange.ts';
import { type RequestOutcome, requestLogLine } from './logger.ts';
import { NOOP_SPAN, type SpanOutcome, type Telemetry } from './tracing.ts';

type StartInfo = Parameters<RequestObserver['start']>[0];
type EndOutcome = Parameters<ReturnType<RequestObserver['start']>>[0];

export interface RequestObserverOptions {
  readonly telemetry: Telemetry;
  readonly logger: Logger;
}

/**
 * `error.type` and JSON-RPC code of a failed request: a protocol error by its code, an
 * internal error by its stable code, anything else by its class name (all low-cardinality).
 */
const SUCCESS: SpanOutcome = Object.freeze({ isError: false });
const TOOL_ERROR: SpanOutcome = Object.freeze({ isError: true });

function spanOutcomeOf(outcome: EndOutcome): SpanOutcome {
  const { error } = outcome;
  if (error === undefined) return outcome.isError === true ? TOOL_ERROR : SUCCESS;
  if (error instanceof ProtocolError) return { code: error.code };
  if (error instanceof ToolkitError) return { error: error.code };
  return { error: error.name || 'Error' };
}

/**
 * Builds the dispatcher's request observer: starts the span at request entry, and on the
 * outcome ends it and writes the request's log line (with its trace id). The span's parent
 * is the W3C `traceparent`/`tracestate` found in `params._meta`. Tool arguments reach the
 * log line only if the start info carries them as `args` and the logger allows it.
 *
 * @example
 * createServer({ settings, plugins, logger, observe: createRequestObserver({ telemetry, logger }) });
 */
export function createRequestObserver(options: RequestObserverOptions): RequestObserver {
  const { telemetry, logger } = options;
  return {
    start(info: StartInfo & { args?: unknown }) {
      const started = performance.now();
      const clientId = info.identity?.clientId;
      // Disabled telemetry: skip even building the span's info object.
      const span = !telemetry.enabled
        ? NOOP_SPAN
        : telemetry.startRequestSpan({
            method: info.method,
            target: info.target,
            requestId: info.requestId,
            sessionId: info.sessionId,
            protocolVersion: info.protocolVersion,
            clientId,
            traceparent: info.meta?.traceparent,
            tracestate: info.meta?.tracestate,
            transport: info.transport,
          });
      return (outcome) => {
        if (telemetry.enabled) span.end(spanOutcomeOf(outcome));
        // Request lines are info: below the level, build nothing (the common production case).
        if (!logger.isLevelEnabled('info')) return;
        const result: RequestOutcome =
          outcome.error !== undefined ? 'error' : outcome.isError === true ? 'tool_error' : 'ok';
        requestLogLine(logger, {
          method: info.method,
          tool: info.method === 'tools/call' ? info.target : undefined,
          outcome: result,
          durationMs: performance.now() - started,
          traceId: span.traceId,
          clientId,
          sessionId: info.sessionId,
          requestId: info.requestId,
          args: info.args,
        });
      };
    },
  };
}

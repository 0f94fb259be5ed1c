/**
 * The observer hook that sees every request (logs, spans, metrics; src/telemetry/ implements
 * it): it starts with the request's record (request-record.ts) and is told how the request
 * ended.
 */
import type { Span } from '@opentelemetry/api';
import type { ProtocolError } from '../base/errors.ts';
import type { JsonObject } from '../base/jsonrpc.ts';
import type { RequestRecord } from './request-record.ts';
import type { Session } from './session/store.ts';

/** How an observed request ended. */
export interface RequestOutcomeInfo {
  /** Thrown by the handler (a protocol error answers with its code). */
  error?: ProtocolError | Error;
  /** The result sent (a tool result with `isError: true` is a tool error). */
  result?: JsonObject;
  /** The session `initialize` opened. */
  session?: Session;
}

/** One request under observation (a span, a log line). */
export interface ObservedRequest {
  /**
   * Runs the request's handling in the request's context (its span active). No `this` and no
   * arguments to pass on: each would cost a bound function or an array per request on the way
   * through the OpenTelemetry API and AsyncLocalStorage.
   */
  run<R>(fn: () => R): R;
  /** The span `run` makes active, when it makes one (the request context reads it without asking the API). */
  readonly span?: Span | undefined;
  end(outcome: RequestOutcomeInfo): void;
}

export interface RequestObserver {
  /** A request arrives: `record` is the one the request context reads too (request-record.ts). */
  start(record: RequestRecord): ObservedRequest;
}

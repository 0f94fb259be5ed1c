/**
 * The telemetry contract: what the server's parts call (`Telemetry`, `RequestSpan`) and what
 * they describe to it (a request, a refusal, a session). It sits below both the disabled
 * telemetry (tracing.ts) and the enabled one (request-telemetry.ts, request-span.ts), which
 * implement it; tracing.ts re-exports it for the rest of the server.
 */
import type { Context, Span } from '@opentelemetry/api';
import type { TraceLogFields } from '../base/trace-context.ts';
import type { RequestRecord } from '../protocol/request-record.ts';
import type { RouteSpan, RouteSpanInfo } from './route-span.ts';
import type { Carrier } from './span-parent.ts';

/**
 * What a request's span reads of the request: its record (src/protocol/request-record.ts), as
 * the dispatcher built it, read as it is. Only the method and the transport are required, so a
 * span can be started for a request described by hand.
 */
export type RequestSpanInfo = Pick<RequestRecord, 'method' | 'transport'> &
  Partial<
    Pick<
      RequestRecord,
      | 'targetName'
      | 'targetKnown'
      | 'requestId'
      | 'sessionId'
      | 'protocolVersion'
      | 'identity'
      | 'meta'
      | 'headers'
      | 'address'
      | 'port'
      | 'httpVersion'
    >
  >;

/** A request the HTTP edge refused (401, 403, 413, 415, 429, 503, a foreign Host or Origin). */
export interface RefusalInfo {
  readonly httpMethod: string;
  readonly status: number;
  /** `error.type`, a fixed string such as `unauthorized` or `host_not_allowed`. */
  readonly reason: string;
  /** The error message sent to the client (the span status description). */
  readonly message: string;
  /** The JSON-RPC method of the body, when it was read. */
  readonly method?: string | undefined;
  readonly headers?: Carrier | undefined;
  readonly address?: string | undefined;
  readonly port?: number | undefined;
  readonly httpVersion?: string | undefined;
  readonly clientId?: string | undefined;
  /** When the request arrived (ms since the epoch); default now. */
  readonly startTime?: number | undefined;
}

/** A 2025-wire session, as `initialize` opened it. */
export interface SessionInfo {
  readonly id: string;
  readonly protocolVersion: string;
  readonly transport: 'stdio' | 'http';
  readonly httpVersion?: string | undefined;
}

/** How a request ended. */
export interface SpanOutcome {
  /** An explicit `error.type` (an internal error code, an error class); wins over `code`. */
  readonly error?: string;
  /** The tool result had `isError: true`: `error.type=tool_error`. */
  readonly isError?: boolean;
  /** The JSON-RPC error code of a protocol error: `error.type` and `rpc.response.status_code`. */
  readonly code?: number;
  /** The span status description (the JSON-RPC error message, the tool's error text). */
  readonly message?: string;
}

/** The span of one request. `end` is idempotent. */
export interface RequestSpan {
  /** The OpenTelemetry span (non-recording when tracing is off). */
  readonly span: Span;
  /** The context the handler runs in: the parent's, with this span set. */
  readonly context: Context;
  /** The span's ids for log lines; undefined when tracing is off. */
  readonly logFields: TraceLogFields | undefined;
  /** Attributes known only once the request has run (the negotiated version of `initialize`). */
  setAttribute(key: string, value: string | number | boolean): void;
  end(outcome: SpanOutcome): void;
}

export interface Telemetry {
  /** `false` when there is no provider to report to: nothing is recorded. */
  readonly enabled: boolean;
  /** Call at request entry, before dispatching; end the span with the outcome. */
  startRequestSpan(info: RequestSpanInfo): RequestSpan;
  /** A request to a plugin's HTTP route: a SERVER span `<METHOD> <route>`, the handler run in its context. */
  startRouteSpan(info: RouteSpanInfo): RouteSpan;
  /** A request refused at the HTTP edge: a span in the caller's trace and a count. */
  recordRefusal(info: RefusalInfo): TraceLogFields | undefined;
  /** Counts a refusal that already has its span (a tool's scope or rate limit, in the dispatcher). */
  countRefusal(status: number, reason: string): void;
  /** A 2025-wire session began (`initialize` answered). */
  sessionStarted(info: SessionInfo): void;
  /** A 2025-wire session ended (DELETE, expiry, connection closed): `mcp.server.session.duration`. */
  sessionEnded(id: string): void;
  /**
   * Reports `counts` as gauges (`mcp.server.active_requests`, `mcp.server.active_sessions`,
   * `mcp.server.open_streams`), read when a reader collects; a later call replaces the source.
   */
  watch(counts: LiveCounts): void;
  /** Where `/metrics` answers (MCP_METRICS_PORT), once listening; else undefined. */
  readonly metricsUrl: string | undefined;
  /** Exports what is buffered, within `timeoutMs` (a second signal during the drain). */
  flush(timeoutMs: number): Promise<void>;
  /** Flushes spans and metrics within `timeoutMs`, then stops what is ours. Idempotent. */
  shutdown(timeoutMs?: number): Promise<void>;
}

/** What the live gauges read at each collection (never on a request's path). */
export interface LiveCounts {
  /** MCP requests and plugin route handlers running now. */
  inflight(): number;
  /** 2025-wire sessions this replica holds. */
  sessions(): number;
  /** Event streams (SSE) open on this replica; absent without an HTTP transport. */
  streams?: (() => number) | undefined;
}

/**
 * The span of one request to a plugin's HTTP route (`app.httpRoute`), after the HTTP server
 * conventions: a SERVER span named `<METHOD> <route>` with `http.route`, the status and the
 * client's address, parented like an MCP request's (an instrumented HTTP server's span, else
 * the `traceparent` header). The handler runs in its context, so the plugin's own spans are
 * its children.
 */
import { type Attributes, context, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { logFieldsOf, type TraceLogFields } from '../base/trace-context.ts';
import { Attr } from './semconv.ts';
import { withSpan } from './span-context.ts';
import { type Carrier, parentOf } from './span-parent.ts';

/** What a route's span reads of the request. */
export interface RouteSpanInfo {
  readonly httpMethod: string;
  /** The route as declared (`/hooks/:source`), not the path requested. */
  readonly route: string;
  readonly path: string;
  readonly plugin: string;
  readonly headers?: Carrier | undefined;
  readonly address?: string | undefined;
  readonly port?: number | undefined;
  readonly httpVersion?: string | undefined;
  readonly clientId?: string | undefined;
}

/** The span of a route's request. `end` is idempotent. */
export interface RouteSpan {
  /** Runs `fn` in the span's context. */
  run<T>(fn: () => T): T;
  readonly logFields: TraceLogFields | undefined;
  /** Ends the span with the response's status; `error` (a handler's throw) marks it failed. */
  end(status: number, error?: string): void;
}

export const NOOP_ROUTE_SPAN: RouteSpan = Object.freeze({
  run: <T>(fn: () => T): T => fn(),
  logFields: undefined,
  end(): void {},
});

/**
 * @example
 * const span = startRouteSpan(tracer, { httpMethod: 'POST', route: '/hooks/github', path: '/hooks/github', plugin: 'github' });
 * await span.run(() => handler(req));
 * span.end(200);
 */
export function startRouteSpan(tracer: Tracer, info: RouteSpanInfo): RouteSpan {
  const attributes: Attributes = {
    [Attr.HttpRequestMethod]: info.httpMethod,
    [Attr.HttpRoute]: info.route,
    [Attr.UrlPath]: info.path,
    [Attr.PluginName]: info.plugin,
    [Attr.NetworkProtocolName]: 'http',
  };
  if (info.httpVersion !== undefined) attributes[Attr.NetworkProtocolVersion] = info.httpVersion;
  if (info.address !== undefined) attributes[Attr.ClientAddress] = info.address;
  if (info.port !== undefined) attributes[Attr.ClientPort] = info.port;
  if (info.clientId !== undefined) attributes[Attr.McpClientId] = info.clientId;
  const { parent } = parentOf(undefined, info.headers);
  const span = tracer.startSpan(
    `${info.httpMethod} ${info.route}`,
    { kind: SpanKind.SERVER, attributes },
    parent,
  );
  const spanContext = withSpan(parent, span);
  let ended = false;
  return {
    run: (fn) => context.with(spanContext, fn),
    logFields: logFieldsOf(span),
    end(status, error) {
      if (ended) return;
      ended = true;
      span.setAttribute(Attr.HttpResponseStatusCode, status);
      // HTTP server conventions: a 5xx is an error of the server; a 4xx is the client's.
      if (error !== undefined || status >= 500) {
        span.setAttribute(Attr.ErrorType, error === undefined ? String(status) : error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: error ?? `HTTP ${status}` });
      }
      span.end();
    },
  };
}

/**
 * The proxy's upstream requests traced, after the OpenTelemetry semantic conventions for MCP
 * (GenAI conventions, `gen-ai/mcp.md`, "Client" and "Context propagation"): a CLIENT span per
 * request the proxy sends upstream for a caller, named `{mcp.method.name} {target}` and
 * started in the handler's context, so it is a child of our request's SERVER span. Its
 * context is injected with the configured propagator into the request's `params._meta`
 * (`traceparent`, `tracestate`, `baggage`: the unprefixed keys SEP-414 reserves), and for an
 * HTTP upstream into the request's headers, unless an undici instrumentation is listening:
 * that one adds the header itself, for its HTTP span, a child of this one, and a second
 * `traceparent` header would make both invalid (W3C Trace Context §3.2).
 *
 * With no TracerProvider registered every call here is a no-op and nothing is injected.
 */
import { hasSubscribers } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { type Client, SdkError, ProtocolError as UpstreamProtocolError } from '@modelcontextprotocol/client';
import {
  type Attributes,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { ProxySettings } from './settings.ts';

/** The tracer's scope: ours, as src/telemetry names its own, with the plugin's name. */
const SCOPE = 'mcp-toolkit/proxy';
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The channel undici publishes each request on; an instrumentation subscribes to it. */
const UNDICI_REQUEST = 'undici:request:create';

/** The upstream requests that are traced: those made for one caller's request. */
export type UpstreamMethod = 'tools/call' | 'prompts/get' | 'resources/read' | 'completion/complete';

export interface UpstreamRequest {
  readonly method: UpstreamMethod;
  /** The upstream tool's or prompt's name (its own, without our prefix). */
  readonly name?: string;
  /** The resource URI of `resources/read`. */
  readonly uri?: string;
}

/** How an upstream request ended. */
export type ClientOutcome = { ok: true; isError?: boolean; message?: string } | { ok: false; error: unknown };

/** The span of one upstream request, and the trace context it sends. */
export interface ClientSpan {
  /** The keys to put in the request's `params._meta` (empty when tracing is off). */
  readonly meta: Record<string, string>;
  /** The request's extra HTTP headers, when the proxy sets them (an HTTP upstream, no undici instrumentation). */
  readonly headers: Record<string, string> | undefined;
  /** Runs the request in the span's context (an undici instrumentation's span is then its child). */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Ends the span; `aborted`: our side gave the request up. Idempotent. */
  end(outcome: ClientOutcome, aborted?: boolean): void;
}

/** The attributes of the upstream's end of the connection (network.*, server.*). */
function peerAttributes(settings: ProxySettings): Attributes {
  if (settings.url === undefined) return { 'network.transport': 'pipe' };
  const url = new URL(settings.url);
  const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return {
    'network.transport': 'tcp',
    'network.protocol.name': 'http',
    'server.address': url.hostname.replace(/^\[|\]$/g, ''),
    'server.port': port,
  };
}

/** `error.type`, the JSON-RPC code and the status description of a failed request. */
function failure(err: unknown, aborted: boolean): { type: string; code?: number; message?: string } {
  const message = err instanceof Error ? err.message : undefined;
  if (aborted) return { type: 'cancelled', ...(message !== undefined ? { message } : {}) };
  // Conventions: the JSON-RPC error code as a string.
  if (err instanceof UpstreamProtocolError)
    return { type: String(err.code), code: err.code, message: err.message };
  // The official client's own failures (the connection closed, a timeout): its stable code.
  if (err instanceof SdkError) return { type: String(err.code).toLowerCase(), message: err.message };
  const type = err instanceof Error ? err.name : '_OTHER';
  return { type, ...(message !== undefined ? { message } : {}) };
}

/**
 * Starts the CLIENT span of one upstream request in the active context (the caller's
 * request span), and injects its context for the upstream.
 *
 * @example
 * const span = startClientSpan({ method: 'tools/call', name: 'add' }, settings, client);
 * client.callTool({ name: 'add', arguments: args, ...metaOf(span) }, { headers: span.headers }).then(
 *   (r) => span.end({ ok: true, isError: r.isError === true }),
 *   (error) => span.end({ ok: false, error }),
 * );
 */
export function startClientSpan(
  request: UpstreamRequest,
  settings: ProxySettings,
  client: Client,
): ClientSpan {
  const attributes: Attributes = { 'mcp.method.name': request.method, ...peerAttributes(settings) };
  if (request.method === 'tools/call' && request.name !== undefined) {
    attributes['gen_ai.tool.name'] = request.name;
    attributes['gen_ai.operation.name'] = 'execute_tool';
  }
  if (request.method === 'prompts/get' && request.name !== undefined)
    attributes['gen_ai.prompt.name'] = request.name;
  if (request.uri !== undefined) attributes['mcp.resource.uri'] = request.uri;
  const version = client.getNegotiatedProtocolVersion();
  if (version !== undefined) attributes['mcp.protocol.version'] = version;
  // Conventions: a tool or prompt name is the target; a resource URI is not (cardinality).
  const name =
    request.name !== undefined && (request.method === 'tools/call' || request.method === 'prompts/get')
      ? `${request.method} ${request.name}`
      : request.method;
  const parent = context.active();
  const span: Span = trace
    .getTracer(SCOPE, VERSION)
    .startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
  const spanContext = trace.setSpan(parent, span);
  const meta: Record<string, string> = {};
  propagation.inject(spanContext, meta);
  const headers =
    settings.url !== undefined && Object.keys(meta).length > 0 && !hasSubscribers(UNDICI_REQUEST)
      ? { ...meta }
      : undefined;
  let ended = false;
  return {
    meta,
    headers,
    run: (fn) => context.with(spanContext, fn),
    end(outcome, aborted = false) {
      if (ended) return;
      ended = true;
      if (span.isRecording()) {
        if (!outcome.ok) {
          const f = failure(outcome.error, aborted);
          span.setAttribute('error.type', f.type);
          if (f.code !== undefined) span.setAttribute('rpc.response.status_code', String(f.code));
          span.setStatus({
            code: SpanStatusCode.ERROR,
            ...(f.message !== undefined ? { message: f.message } : {}),
          });
        } else if (outcome.isError === true) {
          // Conventions: a CallToolResult with isError is `tool_error`.
          span.setAttribute('error.type', 'tool_error');
          span.setStatus({
            code: SpanStatusCode.ERROR,
            ...(outcome.message !== undefined ? { message: outcome.message } : {}),
          });
        }
      }
      span.end();
    },
  };
}

/** A tool result's outcome: `isError` with its first text as the status description. */
export function toolOutcome(r: { isError?: boolean; content?: unknown }): ClientOutcome {
  if (r.isError !== true) return { ok: true };
  const blocks = Array.isArray(r.content) ? (r.content as { type?: unknown; text?: unknown }[]) : [];
  const text = blocks.find((c) => c.type === 'text' && typeof c.text === 'string')?.text as
    | string
    | undefined;
  return { ok: true, isError: true, ...(text !== undefined ? { message: text } : {}) };
}

/** `{ _meta }` with the span's keys, or nothing when there are none (tracing off). */
export function metaOf(t: Pick<ClientSpan, 'meta'>): { _meta?: Record<string, string> } {
  return Object.keys(t.meta).length > 0 ? { _meta: t.meta } : {};
}

/**
 * One upstream request traced from start to end: `send` gets the span's `_meta` keys and
 * headers, and runs in its context.
 *
 * @example
 * const r = await traced({ method: 'prompts/get', name: 'greet' }, settings, client, signal, (t) =>
 *   client.getPrompt({ name: 'greet', ...metaOf(t) }, { headers: t.headers }),
 * );
 */
export async function traced<T>(
  request: UpstreamRequest,
  settings: ProxySettings,
  client: Client,
  signal: AbortSignal,
  send: (t: Pick<ClientSpan, 'meta' | 'headers'>) => Promise<T>,
): Promise<T> {
  const span = startClientSpan(request, settings, client);
  try {
    const result = await span.run(() => send(span));
    span.end({ ok: true });
    return result;
  } catch (error) {
    span.end({ ok: false, error }, signal.aborted);
    throw error;
  }
}

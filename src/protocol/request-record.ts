/**
 * The record of one request: what is known of it when it arrives (method, target, id, wire and
 * version, session, caller, transport, client), read once from the message and the Exchange.
 * Its fields are `readonly` (not frozen at run time: an `Object.freeze` on every request is a
 * call into V8's runtime that the hot path does without). The target is resolved here, once (target.ts): whatever comes after reads
 * `record.target` rather than asking the registry again. The dispatcher builds it once per request; the observer's span, metrics and log
 * line read it as it is, and the request context (`ctx.record`, and the handler's `ctx.method`,
 * `ctx.identity`, ...) reads its facts from it, so the same facts are never copied into
 * another shape on the way.
 *
 * What changes while a request runs is not here: the 2025 session (its log level,
 * subscriptions) stays on the context, and how the request ended goes to the observer's `end`.
 */
import type { JsonObject, JsonRpcRequest, RequestId } from '../base/jsonrpc.ts';
import type { ClientCapabilities, Implementation } from '../base/spec-types.ts';
import type { Headers, HttpRequestInfo, Identity, LogLevel, Wire } from '../base/types.ts';
import type { Exchange } from './exchange.ts';
import { type RequestTarget, resolveTarget, type TargetLookups } from './target.ts';
import type { WireProfile } from './wires/profile.ts';
import { metaOf } from './wires/wire.ts';

export interface RequestRecord {
  /** The JSON-RPC method as sent, e.g. `tools/call`. */
  readonly method: string;
  readonly requestId: RequestId;
  /** Tool name (`tools/call`), prompt name (`prompts/get`) or resource URI (`resources/*`), as sent. */
  readonly targetName: string | undefined;
  /**
   * What the request names, resolved in the registry once, when the record is made (target.ts):
   * the tool, the prompt, or the resource or template match; hidden or not (the method handlers
   * apply visibility). Undefined for a method that names no target.
   */
  readonly target: RequestTarget | undefined;
  /** The target names a registered tool or prompt (only then may it name a span: client-chosen names are unbounded). */
  readonly targetKnown: boolean;
  /**
   * The request's wire profile (src/protocol/wires/), chosen once where the message was
   * classified: whatever differs between the wires is asked of it.
   */
  readonly profile: WireProfile;
  /** The profile's name, as `ctx.wire`, the span and the log line show it. */
  readonly wire: Wire;
  /**
   * 2026: the version the envelope declares (the dispatcher refuses the request unless it is
   * one we speak); 2025: the session's negotiated version; `''` before `initialize`.
   */
  readonly protocolVersion: string;
  /**
   * The exchange's session (the span's `mcp.session.id`, the log line's `sessionId`): the
   * 2025-wire session, none before an HTTP `initialize`; over stdio the connection's, on either
   * wire. The handler's `ctx.sessionId` is the 2025 session only (request-context.ts).
   */
  readonly sessionId: string | undefined;
  /** The authenticated caller, when auth is on. */
  readonly identity: Identity | undefined;
  /** Undefined for a task's rounds, which run detached from the request that created the task. */
  readonly transport: 'stdio' | 'http' | undefined;
  /** 2026: the envelope's clientInfo; 2025: what the client sent in `initialize`. */
  readonly clientInfo: Implementation | undefined;
  /** 2026: the envelope's capabilities; 2025: the session's. */
  readonly clientCapabilities: ClientCapabilities;
  /** 2026 (SEP-2577): the envelope's logLevel, without which no log frames are sent. 2025: undefined (the session's level applies). */
  readonly logLevel: LogLevel | undefined;
  /** `params._meta`, as sent (progressToken, trace context, the 2026 envelope). */
  readonly meta: JsonObject | undefined;
  /** The tool's arguments (`tools/call`), for MCP_LOG_TOOL_ARGS. */
  readonly args: unknown;
  /** HTTP request headers, lower-case names (absent on stdio), for the `traceparent` header. */
  readonly headers: Headers | undefined;
  /** The client's network address (HTTP; from X-Forwarded-For behind trusted proxies). */
  readonly address: string | undefined;
  readonly port: number | undefined;
  /** `1.1`, `2`: `network.protocol.version`. */
  readonly httpVersion: string | undefined;
  /** The HTTP request as handlers may see it (`ctx.http`): no credentials. */
  readonly http: HttpRequestInfo | undefined;
}

/**
 * The record of `req` as it arrives in `ex`, on the wire of `profile`. Built before any
 * check, so that a refused request is observed with what it said: the 2026 envelope's fields
 * are taken as sent, and the profile's checks (`profile.route`) refuse the request before a
 * handler could see one that is not what the envelope requires.
 */
export function requestRecord(
  req: JsonRpcRequest,
  ex: Exchange,
  profile: WireProfile,
  registry: TargetLookups,
): RequestRecord {
  const { method, params } = req;
  const meta = metaOf(params);
  const session = ex.session;
  const name = typeof params?.name === 'string' ? params.name : undefined;
  const { protocolVersion, clientInfo, clientCapabilities, logLevel } = profile.clientFacts(meta, session);
  const target = resolveTarget(method, params, registry);
  return {
    method,
    requestId: req.id,
    targetName: name ?? (typeof params?.uri === 'string' ? params.uri : undefined),
    target,
    targetKnown: target !== undefined && target.kind !== 'resource' && target.def !== undefined,
    profile,
    wire: profile.wire,
    protocolVersion,
    sessionId: session?.id,
    identity: ex.identity,
    transport: ex.transport,
    clientInfo,
    clientCapabilities,
    logLevel,
    meta,
    args: method === 'tools/call' ? params?.arguments : undefined,
    headers: ex.headers,
    address: ex.address,
    port: ex.port,
    httpVersion: ex.httpVersion,
    http: ex.http,
  };
}

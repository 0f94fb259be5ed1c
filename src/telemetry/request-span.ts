/**
 * The span of one MCP request, from the global TracerProvider, parented as the MCP semantic
 * conventions say, and the request's duration and tool-error metrics recorded when it ends.
 * Loaded with the enabled Telemetry (request-telemetry.ts).
 */
import {
  type Attributes,
  type Context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
} from '@opentelemetry/api';
import { idText } from '../base/json-ids.ts';
import { logFieldsOf, type TraceLogFields } from '../base/trace-context.ts';
import type { RequestSpan, RequestSpanInfo, SpanOutcome } from './contract.ts';
import type { DurationAggregator } from './duration-aggregator.ts';
import type { Instruments, Series, SeriesCache } from './request-series.ts';
import { Attr, boundTarget, errorTypeOf } from './semconv.ts';
import { withSpan } from './span-context.ts';
import { parentOf } from './span-parent.ts';

/** What every request span of one server shares. */
export interface SpanShared {
  readonly tracer: Tracer;
  readonly instruments: Instruments;
  readonly cache: SeriesCache;
  /** Our own aggregation of the duration (our pipeline), else the SDK's histogram is used. */
  readonly durations: DurationAggregator | undefined;
  readonly extractKeys: readonly string[] | undefined;
  readonly samplerSeesAttributes: boolean;
}

export class OtelRequestSpan implements RequestSpan {
  // Made per request: fields `private`, not `#private` (V8 defines each `#` field through a
  // keyed store call on every construction: docs/performance.md).
  readonly span: Span;
  readonly context: Context;
  private readonly _shared: SpanShared;
  private readonly _info: RequestSpanInfo;
  private readonly _started = performance.now();
  private _series: Series;
  private _protocolVersion: string | undefined;
  private _ended = false;
  private _logFields: TraceLogFields | undefined | null = null;

  constructor(shared: SpanShared, info: RequestSpanInfo) {
    this._shared = shared;
    this._info = info;
    const { cache, tracer, extractKeys, samplerSeesAttributes } = shared;
    const target = boundTarget(info.targetName);
    const protocolVersion =
      info.protocolVersion !== undefined && info.protocolVersion !== '' ? info.protocolVersion : undefined;
    this._protocolVersion = protocolVersion;
    const series = cache.get({
      method: info.method,
      target,
      known: info.targetKnown === true,
      transport: info.transport,
      httpVersion: info.httpVersion,
      protocolVersion,
    });
    this._series = series;
    // What a sampler may key on, and nothing built per request for it: the series' frozen
    // set, plus the target when it is the client's own (a tool or prompt that matched
    // nothing, a resource URI).
    let attributes = series.start;
    if (target !== undefined && info.targetKnown !== true) {
      const key =
        info.method === 'tools/call'
          ? Attr.GenAiToolName
          : info.method === 'prompts/get'
            ? Attr.GenAiPromptName
            : info.method.startsWith('resources/')
              ? Attr.McpResourceUri
              : undefined;
      if (key !== undefined) {
        attributes = { ...attributes, [key]: target };
        if (key === Attr.GenAiToolName) attributes[Attr.GenAiOperationName] = 'execute_tool';
      }
    }
    const { parent, links } = parentOf(info.meta, info.headers, extractKeys);
    // A sampler that reads no attributes (our own pipeline's) is not handed any: the SDK
    // checks and copies what `startSpan` gets before it asks the sampler, so a span sampled
    // out would pay for them; a kept span gets them right after.
    const start = samplerSeesAttributes ? attributes : undefined;
    const span = tracer.startSpan(
      series.name,
      links === undefined
        ? { kind: SpanKind.SERVER, attributes: start }
        : { kind: SpanKind.SERVER, attributes: start, links },
      parent,
    );
    if (span.isRecording()) {
      if (start === undefined) span.setAttributes(attributes);
      span.setAttributes(this._perRequestAttributes());
    }
    this.span = span;
    this.context = withSpan(parent, span);
  }

  /**
   * The attributes of one request: who sent it (session, client id and address), its id, the
   * negotiated version, the transport's protocol and the client's port. Built and set only
   * once the sampler kept the span: a span sampled out (most of them at a low ratio) never
   * has them built, checked or copied (the SDK checks each attribute given to `startSpan`
   * before and after sampling, allocating a `WeakSet` per value).
   */
  private _perRequestAttributes(): Attributes {
    const info = this._info;
    const attributes: Attributes = {};
    if (info.sessionId !== undefined) attributes[Attr.McpSessionId] = info.sessionId;
    const clientId = info.identity?.clientId;
    if (clientId !== undefined) attributes[Attr.McpClientId] = clientId;
    if (info.transport === 'http' && info.address !== undefined)
      attributes[Attr.ClientAddress] = info.address;
    // Conventions: no jsonrpc.request.id for a null id.
    if (info.requestId !== undefined && info.requestId !== null)
      attributes[Attr.JsonRpcRequestId] = idText(info.requestId);
    if (this._protocolVersion !== undefined) attributes[Attr.McpProtocolVersion] = this._protocolVersion;
    // Conventions: `pipe` for stdio, `tcp` for HTTP; nothing for a task's round.
    if (info.transport === undefined) return attributes;
    attributes[Attr.NetworkTransport] = info.transport === 'stdio' ? 'pipe' : 'tcp';
    if (info.transport === 'stdio') return attributes;
    attributes[Attr.NetworkProtocolName] = 'http';
    if (info.httpVersion !== undefined) attributes[Attr.NetworkProtocolVersion] = info.httpVersion;
    if (info.port !== undefined) attributes[Attr.ClientPort] = info.port;
    return attributes;
  }

  get logFields(): TraceLogFields | undefined {
    if (this._logFields === null) this._logFields = logFieldsOf(this.span);
    return this._logFields;
  }

  setAttribute(key: string, value: string | number | boolean): void {
    if (this._ended) return;
    if (key === Attr.McpProtocolVersion && typeof value === 'string') this._protocolVersion = value;
    this.span.setAttribute(key, value);
  }

  end(outcome: SpanOutcome): void {
    if (this._ended) return;
    this._ended = true;
    const seconds = (performance.now() - this._started) / 1000;
    const errorType = errorTypeOf(outcome);
    const code = outcome.code === undefined ? undefined : String(outcome.code);
    const span = this.span;
    if (span.isRecording()) {
      if (errorType !== undefined) {
        span.setAttribute(Attr.ErrorType, errorType);
        span.setStatus(
          outcome.message === undefined
            ? { code: SpanStatusCode.ERROR }
            : { code: SpanStatusCode.ERROR, message: outcome.message },
        );
      }
      if (code !== undefined) span.setAttribute(Attr.RpcResponseStatusCode, code);
    }
    span.end();

    let series = this._series;
    if (this._protocolVersion !== series.protocolVersion) {
      // `initialize`: the version was negotiated while the request ran.
      const info = this._info;
      series = this._shared.cache.get({
        method: info.method,
        target: boundTarget(info.targetName),
        known: info.targetKnown === true,
        transport: info.transport,
        httpVersion: info.httpVersion,
        protocolVersion: this._protocolVersion,
      });
    }
    const duration =
      errorType === undefined && code === undefined ? series.ok : series.failure(errorType, code);
    const { durations, instruments } = this._shared;
    if (durations !== undefined) durations.record(duration, seconds);
    else instruments.duration.record(seconds, duration.attributes);
    if (outcome.isError === true && outcome.code === undefined && outcome.error === undefined)
      instruments.toolErrors.add(1, series.toolError);
  }
}

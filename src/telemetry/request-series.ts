/**
 * What every request of one kind shares, built once per kind (request-span.ts): the attributes
 * its span starts with, its span name and the attribute sets of its metrics, and the network
 * attributes of the MCP semantic conventions.
 */
import type { Attributes, Counter, Histogram } from '@opentelemetry/api';
import { type DurationKey, durationKey } from './duration-aggregator.ts';
import { Attr, boundedMethod, boundTarget, spanName } from './semconv.ts';

export function networkAttributes(
  attributes: Attributes,
  info: {
    transport?: 'stdio' | 'http' | undefined;
    address?: string | undefined;
    port?: number | undefined;
    httpVersion?: string | undefined;
  },
): void {
  // Conventions: `pipe` for stdio, `tcp` for HTTP; nothing for a task's round, detached from any.
  if (info.transport === undefined) return;
  attributes[Attr.NetworkTransport] = info.transport === 'stdio' ? 'pipe' : 'tcp';
  if (info.transport === 'stdio') return;
  attributes[Attr.NetworkProtocolName] = 'http';
  if (info.httpVersion !== undefined) attributes[Attr.NetworkProtocolVersion] = info.httpVersion;
  if (info.address !== undefined) attributes[Attr.ClientAddress] = info.address;
  if (info.port !== undefined) attributes[Attr.ClientPort] = info.port;
}

/**
 * A metric's attribute set as the SDK's aggregation is best handed it: frozen, its keys in
 * sorted order. The SDK identifies a series by a hash it computes on every `record` and `add`
 * (it sorts the keys, then `JSON.stringify`s the pairs); keys already in order make that sort
 * a single pass.
 */
export function metricAttributes(attributes: Attributes): Attributes {
  const sorted: Attributes = {};
  for (const key of Object.keys(attributes).sort()) sorted[key] = attributes[key];
  return Object.freeze(sorted);
}

export interface Instruments {
  readonly duration: Histogram;
  readonly sessions: Histogram;
  readonly toolErrors: Counter;
  readonly refusals: Counter;
}

/**
 * What every request of one kind shares: the same method, registered tool or prompt,
 * transport, HTTP version and MCP version. Built once per kind and kept (a server sees a
 * handful), so that a request builds none of it: the attributes its span starts with (the
 * ones a sampler may key on), its span name, and the attribute sets of its metrics, which the
 * SDK's aggregation is then handed as the same frozen objects request after request.
 */
export class Series {
  /** `startSpan`'s attributes: `mcp.method.name`, and the tool or prompt with its operation. */
  readonly start: Attributes;
  readonly name: string;
  /** `mcp.server.operation.duration` of a request that succeeded. */
  readonly ok: DurationKey;
  /** `mcp.server.tool_errors`. */
  readonly toolError: Attributes;
  readonly transport: 'stdio' | 'http' | undefined;
  readonly httpVersion: string | undefined;
  readonly protocolVersion: string | undefined;
  readonly #failures = new Map<string, DurationKey>();
  /** Kept by the cache for the process's life (its duration keys may hold their own counts). */
  readonly #kept: boolean;

  constructor(key: SeriesKey, recommended: boolean, kept = false) {
    this.#kept = kept;
    const { method, target, known } = key;
    const start: Attributes = { [Attr.McpMethodName]: boundTarget(method) ?? '' };
    if (target !== undefined && known) {
      if (method === 'tools/call') {
        start[Attr.GenAiToolName] = target;
        start[Attr.GenAiOperationName] = 'execute_tool';
      } else if (method === 'prompts/get') start[Attr.GenAiPromptName] = target;
    }
    this.start = Object.freeze(start);
    this.name = spanName(method, target, known);
    this.transport = key.transport;
    this.httpVersion = key.httpVersion;
    this.protocolVersion = key.protocolVersion;
    // The metric carries every conditionally required attribute the span does, but only
    // low-cardinality values: a method or a tool/prompt name that matched nothing is left out.
    // The recommended ones only when asked for: the SDK hashes the whole set on every record.
    const bounded = boundedMethod(method);
    const ok: Attributes = { [Attr.McpMethodName]: bounded };
    const tool = known && method === 'tools/call' ? target : undefined;
    if (tool !== undefined) ok[Attr.GenAiToolName] = tool;
    if (known && method === 'prompts/get' && target !== undefined) ok[Attr.GenAiPromptName] = target;
    if (recommended) {
      networkAttributes(ok, { transport: key.transport, httpVersion: key.httpVersion });
      if (key.protocolVersion !== undefined) ok[Attr.McpProtocolVersion] = key.protocolVersion;
      if (bounded === 'tools/call') ok[Attr.GenAiOperationName] = 'execute_tool';
    }
    this.ok = durationKey(metricAttributes(ok), kept);
    const toolError: Attributes = { [Attr.McpMethodName]: bounded };
    if (tool !== undefined) toolError[Attr.GenAiToolName] = tool;
    this.toolError = metricAttributes(toolError);
  }

  /** The duration's attributes for an outcome with an `error.type` and maybe a JSON-RPC code. */
  failure(errorType: string | undefined, code: string | undefined): DurationKey {
    const key = `${errorType ?? ''}\n${code ?? ''}`;
    let failure = this.#failures.get(key);
    if (failure === undefined) {
      const built: Attributes = { ...this.ok.attributes };
      if (errorType !== undefined) built[Attr.ErrorType] = errorType;
      if (code !== undefined) built[Attr.RpcResponseStatusCode] = code;
      // Error class names are the application's: bounded, but not by us.
      const kept = this.#kept && this.#failures.size < MAX_FAILURE_KINDS;
      failure = durationKey(metricAttributes(built), kept);
      if (kept) this.#failures.set(key, failure);
    }
    return failure;
  }
}

export interface SeriesKey {
  readonly method: string;
  readonly target: string | undefined;
  readonly known: boolean;
  readonly transport: 'stdio' | 'http' | undefined;
  readonly httpVersion: string | undefined;
  readonly protocolVersion: string | undefined;
}

/** Kinds of request kept; past it (versions and methods come from clients) each is built anew. */
const MAX_SERIES = 512;
const MAX_FAILURE_KINDS = 64;
/** Variants (transport, HTTP and MCP version) of one method and target, scanned in order. */
const MAX_VARIANTS = 16;

/**
 * The series of every request kind, built on first sight: by method, then target, then a
 * short list of transport and version variants compared in place (no key string is built
 * per request).
 */
export class SeriesCache {
  readonly #byMethod = new Map<string, Map<string, Series[]>>();
  readonly #recommended: boolean;
  /** The request kind served last, as it was asked for, and its series. */
  #last: { method: string; target: string | undefined; known: boolean; series: Series } | undefined;
  #size = 0;

  /** `recommended`: the metrics carry the conventions' recommended attributes too. */
  constructor(recommended: boolean) {
    this.#recommended = recommended;
  }

  get(key: SeriesKey): Series {
    // A server mostly sees one kind of request after another: the last one served is compared
    // in place first (a few string compares, no hashing of method and target for the maps).
    const last = this.#last;
    if (
      last !== undefined &&
      last.method === key.method &&
      last.target === key.target &&
      last.known === key.known &&
      last.series.transport === key.transport &&
      last.series.httpVersion === key.httpVersion &&
      last.series.protocolVersion === key.protocolVersion
    )
      return last.series;
    const series = this.#lookup(key);
    this.#last = { method: key.method, target: key.target, known: key.known, series };
    return series;
  }

  #lookup(key: SeriesKey): Series {
    // A target that names nothing registered is the client's, unbounded: no part of a series.
    const bounded = key.known || key.target === undefined ? key : { ...key, target: undefined };
    // Only known methods are kept (a client may send any name).
    if (boundedMethod(key.method) !== key.method) return new Series(bounded, this.#recommended);
    let byTarget = this.#byMethod.get(key.method);
    if (byTarget === undefined) {
      byTarget = new Map();
      this.#byMethod.set(key.method, byTarget);
    }
    const target = bounded.target ?? '';
    let variants = byTarget.get(target);
    if (variants === undefined) {
      variants = [];
      byTarget.set(target, variants);
    }
    for (const series of variants) {
      if (
        series.transport === key.transport &&
        series.httpVersion === key.httpVersion &&
        series.protocolVersion === key.protocolVersion
      )
        return series;
    }
    const kept = this.#size < MAX_SERIES && variants.length < MAX_VARIANTS;
    const series = new Series(bounded, this.#recommended, kept);
    if (kept) {
      variants.push(series);
      this.#size++;
    }
    return series;
  }
}

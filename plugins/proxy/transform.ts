/**
 * What an upstream entry's `tools` transforms do to its tools (MCP_PROXY_UPSTREAMS), after
 * FastMCP's tool transformation: `rename` serves the tool under another name (the upstream's
 * prefix still goes before it), `description` replaces its description, and `hide` takes
 * arguments away from the caller: each is removed from the advertised input schema (and from
 * its `required`), and sent upstream with its fixed value on every call. A caller who sends a
 * hidden argument anyway gets -32602 (invalid params): the tool as served has no such
 * argument, and the fixed value is not the caller's to change.
 *
 * The resource URIs of an upstream in the list are served as `<name>+<uri>` (its name as a
 * label before the URI's scheme, RFC 3986 §3.1 scheme characters), so that two upstreams'
 * `file:///notes.md` stay two resources; reads, subscriptions and `resources/updated` map
 * them back and forth.
 */
import { ErrorCode, type JsonSchema, ProtocolError } from '@mcp-toolkit/server';
import type { ToolTransform } from './upstream-list.ts';

/**
 * The input schema as served: the hidden arguments taken out of `properties` and `required`.
 *
 * @example
 * hideArguments({ type: 'object', properties: { a: {}, b: {} }, required: ['a'] }, { a: 1 });
 * // { type: 'object', properties: { b: {} }, required: [] }
 */
export function hideArguments(
  schema: JsonSchema,
  hide: Readonly<Record<string, unknown>> | undefined,
): JsonSchema {
  if (hide === undefined || Object.keys(hide).length === 0) return schema;
  const out: JsonSchema = { ...schema };
  const properties = schema.properties;
  if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
    out.properties = Object.fromEntries(Object.entries(properties).filter(([k]) => !Object.hasOwn(hide, k)));
  }
  if (Array.isArray(schema.required)) out.required = schema.required.filter((k) => !Object.hasOwn(hide, k));
  return out;
}

/** The hidden arguments a schema does not declare (likely a typo in the transform). */
export function undeclaredHidden(
  schema: JsonSchema,
  hide: Readonly<Record<string, unknown>> | undefined,
): string[] {
  const properties = schema.properties as Record<string, unknown> | undefined;
  return Object.keys(hide ?? {}).filter(
    (k) => typeof properties !== 'object' || !Object.hasOwn(properties, k),
  );
}

/** The -32602 a caller gets for sending a hidden argument of `tool`. */
export function hiddenArgumentSent(tool: string, names: readonly string[]): ProtocolError {
  return new ProtocolError(
    ErrorCode.InvalidParams,
    `Tool ${tool} has no argument ${names.map((n) => JSON.stringify(n)).join(', ')}: it is fixed by the server (a hidden argument of the proxy's transform) and may not be sent`,
    { data: { tool, hidden: [...names] } },
  );
}

/**
 * The arguments sent upstream: the caller's, with the hidden ones set to their fixed values.
 * Throws -32602 when the caller sent a hidden one.
 */
export function withHidden(
  tool: string,
  args: Record<string, unknown>,
  hide: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> {
  if (hide === undefined) return args;
  const sent = Object.keys(hide).filter((k) => Object.hasOwn(args, k));
  if (sent.length > 0) throw hiddenArgumentSent(tool, sent);
  return { ...args, ...hide };
}

/** The name a tool is served under: prefix, then its new name or its own. */
export function servedName(prefix: string, upstreamName: string, t: ToolTransform | undefined): string {
  return prefix + (t?.rename ?? upstreamName);
}

/** How the resource URIs of one upstream are served. */
export interface UriSpace {
  /** The upstream's URI (or URI template) as ours. */
  ours(uri: string): string;
  /** Ours as the upstream's; undefined when `uri` is not of this upstream. */
  theirs(uri: string): string | undefined;
}

/** URIs served as they are (the single upstream of MCP_PROXY_COMMAND or MCP_PROXY_URL). */
export const SAME_URIS: UriSpace = { ours: (uri) => uri, theirs: (uri) => uri };

/**
 * URIs of the upstream named `label` served as `<label>+<uri>`.
 *
 * @example
 * labelledUris('memory').ours('file:///a.md'); // 'memory+file:///a.md'
 */
export function labelledUris(label: string): UriSpace {
  const head = `${label}+`;
  return {
    ours: (uri) => head + uri,
    theirs: (uri) => (uri.startsWith(head) ? uri.slice(head.length) : undefined),
  };
}

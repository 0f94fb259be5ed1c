/**
 * What the test kit's client adds to a message for the 2026 wire (and for HTTP): the `_meta`
 * envelope, and the headers a request carries (MCP-Protocol-Version, Mcp-Method, Mcp-Name and
 * the Mcp-Param-* mirrors of `x-mcp-header` arguments, SEP-2243).
 */
import { isObject, type JsonObject } from '../../base/jsonrpc.ts';
import { META } from '../../base/meta-keys.ts';
import { PACKAGE_VERSION } from '../../base/package-version.ts';
import { VERSION_2026 } from '../../base/versions.ts';

export type Wire = '2025' | '2026';

export const CLIENT_INFO = { name: 'mcp-toolkit-test', version: PACKAGE_VERSION };

/** Methods whose 2026 requests carry `Mcp-Name` (SEP-2243). */
const NAMED: Record<string, 'name' | 'uri'> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/** Arguments mirrored into `Mcp-Param-*` headers, by tool. */
export type HeaderParams = ReadonlyMap<string, readonly { property: string; header: string }[]>;

/** 2026: the `_meta` envelope (protocol version and client capabilities; clientInfo optional). */
export function envelopeOf(params: JsonObject | undefined, capabilities: JsonObject): JsonObject {
  const meta = isObject(params?._meta) ? { ...params._meta } : {};
  meta[META.protocolVersion] ??= VERSION_2026;
  meta[META.clientCapabilities] ??= capabilities;
  meta[META.clientInfo] ??= CLIENT_INFO;
  return { ...params, _meta: meta };
}

/** The HTTP headers of a message on `wire` (none on other links). */
export function headersFor(
  message: JsonObject,
  wire: Wire,
  link: { transport: string; protocolVersion: string | undefined; headerParams: HeaderParams },
): Record<string, string> {
  if (link.transport !== 'http') return {};
  if (wire === '2025') return link.protocolVersion ? { 'mcp-protocol-version': link.protocolVersion } : {};
  const headers: Record<string, string> = { 'mcp-protocol-version': VERSION_2026 };
  const method = message.method;
  if (typeof method !== 'string') return headers;
  headers['mcp-method'] = method;
  const params = isObject(message.params) ? message.params : undefined;
  const field = NAMED[method];
  if (field !== undefined && typeof params?.[field] === 'string')
    headers['mcp-name'] = params[field] as string;
  if (method === 'tools/call' && typeof params?.name === 'string') {
    const args = isObject(params.arguments) ? params.arguments : {};
    for (const p of link.headerParams.get(params.name) ?? []) {
      const value = args[p.property];
      if (value === undefined || value === null) continue;
      const text = String(value);
      headers[`mcp-param-${p.header.toLowerCase()}`] = /^[\x20-\x7e]*$/.test(text)
        ? text
        : `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
    }
  }
  return headers;
}

/** SEP-2243: the arguments of listed tools annotated `x-mcp-header`, which travel in `Mcp-Param-*` headers too. */
export function headerParamsOf(tools: unknown[]): [string, { property: string; header: string }[]][] {
  const out: [string, { property: string; header: string }[]][] = [];
  for (const t of tools) {
    if (!isObject(t) || typeof t.name !== 'string' || !isObject(t.inputSchema)) continue;
    const props = isObject(t.inputSchema.properties) ? t.inputSchema.properties : {};
    const params = Object.entries(props)
      .filter(([, p]) => isObject(p) && typeof p['x-mcp-header'] === 'string')
      .map(([property, p]) => ({ property, header: (p as JsonObject)['x-mcp-header'] as string }));
    if (params.length > 0) out.push([t.name, params]);
  }
  return out;
}

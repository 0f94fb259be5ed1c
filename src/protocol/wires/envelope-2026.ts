/**
 * The 2026-07-28 validation ladder: the envelope, its version, the routing headers and the
 * mirrored parameter headers. Rules: docs/internals/conformance-fixture.md §1 and §3.3; order as in the
 * official SDK. The 2026 profile (rev2026.ts) runs them.
 */

import { ErrorCode, ProtocolError } from '../../base/errors.ts';
import { isObject, type JsonObject, type JsonRpcRequest, safeText } from '../../base/jsonrpc.ts';
import type { Headers } from '../../base/types.ts';
import { header, META, metaOf, STATELESS_VERSIONS } from './wire.ts';

/**
 * Steps 1-3 of the ladder: the envelope is complete, agrees with the header, names a version we
 * speak. Its fields reach the handler through the request's record (request-record.ts).
 */
export function checkEnvelope(req: JsonRpcRequest, headers: Headers | undefined, http: boolean): void {
  const meta = metaOf(req.params);
  const version = meta?.[META.protocolVersion];
  const caps = meta?.[META.clientCapabilities];
  // What is missing is listed only when something is (no array on every request).
  if (typeof version !== 'string' || !isObject(caps)) {
    const missing: string[] = [];
    if (typeof version !== 'string') missing.push(META.protocolVersion);
    if (!isObject(caps)) missing.push(META.clientCapabilities);
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      `Missing request envelope: params._meta must carry ${missing.join(' and ')} on protocol ${STATELESS_VERSIONS.join(', ')}`,
      { httpStatus: 400, data: { missing } },
    );
  }
  if (http) {
    const h = headerEqual(headers, 'mcp-protocol-version', version);
    if (h !== version) {
      throw new ProtocolError(
        ErrorCode.HeaderMismatch,
        `MCP-Protocol-Version header (${h ?? 'absent'}) does not match params._meta protocol version (${safeText(version)})`,
        { httpStatus: 400 },
      );
    }
  }
  if (!STATELESS_VERSIONS.includes(version as string)) {
    throw new ProtocolError(
      ErrorCode.UnsupportedProtocolVersion,
      `Unsupported protocol version: ${safeText(version)}`,
      {
        httpStatus: 400,
        data: { supported: STATELESS_VERSIONS, requested: version },
      },
    );
  }
}

/**
 * `header(headers, name)`, read without trimming when it is `expected` as sent (what clients
 * send): a trim per header and request is left for the values that differ.
 */
function headerEqual(headers: Headers | undefined, name: string, expected: unknown): string | undefined {
  const raw = headers?.[name];
  return typeof raw === 'string' && raw === expected ? raw : header(headers, name);
}

/** What `Mcp-Name` must carry for the methods that route by name (SEP-2243). */
function routingName(method: string, params: JsonObject | undefined): string | undefined {
  if (method === 'tools/call' || method === 'prompts/get')
    return typeof params?.name === 'string' ? params.name : '';
  if (method === 'resources/read') return typeof params?.uri === 'string' ? params.uri : '';
  // SEP-2663 §Routing Headers: the tasks methods route by task id.
  if (method === 'tasks/get' || method === 'tasks/update' || method === 'tasks/cancel')
    return typeof params?.taskId === 'string' ? params.taskId : '';
  return undefined;
}

/** Step 5: `Mcp-Method` and `Mcp-Name` agree with the body (names case-insensitive, values trimmed). */
export function checkRoutingHeaders(req: JsonRpcRequest, headers: Headers | undefined): void {
  const method = headerEqual(headers, 'mcp-method', req.method);
  if (method !== req.method) {
    throw new ProtocolError(
      ErrorCode.HeaderMismatch,
      `Mcp-Method header (${method ?? 'absent'}) does not match the request method (${req.method})`,
      { httpStatus: 400 },
    );
  }
  const expected = routingName(req.method, req.params);
  if (expected === undefined) return;
  const name = headerEqual(headers, 'mcp-name', expected);
  if (name !== expected) {
    throw new ProtocolError(
      ErrorCode.HeaderMismatch,
      `Mcp-Name header (${name ?? 'absent'}) does not match the request (${expected})`,
      { httpStatus: 400 },
    );
  }
}

const B64_WRAPPED = /^=\?base64\?(.*)\?=$/;
const B64_STRICT = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Decodes an `Mcp-Param-*` header value: `=?base64?...?=` wraps base64 (strictly checked:
 * alphabet and padding), anything else is literal (SEP-2243).
 */
function decodeParamHeader(value: string): string | undefined {
  const m = B64_WRAPPED.exec(value);
  if (!m) return value;
  const b64 = m[1] as string;
  if (!B64_STRICT.test(b64)) return undefined;
  return Buffer.from(b64, 'base64').toString('utf8');
}

/** Step 7: every argument annotated with `x-mcp-header` is mirrored, equal, in `Mcp-Param-<Header>`. */
export function checkParamHeaders(
  params: readonly { property: string; header: string }[],
  args: JsonObject,
  headers: Headers | undefined,
): void {
  for (const p of params) {
    const raw = header(headers, `mcp-param-${p.header.toLowerCase()}`);
    const value = args[p.property];
    const present = value !== undefined && value !== null;
    if (!present && raw === undefined) continue;
    const fail = (why: string) => {
      throw new ProtocolError(ErrorCode.HeaderMismatch, `Mcp-Param-${p.header} header ${why}`, {
        httpStatus: 400,
      });
    };
    if (raw === undefined) fail(`is missing while argument "${p.property}" is set`);
    if (!present) fail(`is set while argument "${p.property}" is absent`);
    const decoded = decodeParamHeader(raw as string);
    if (decoded === undefined) fail('has an invalid base64 value');
    if (decoded !== safeText(value)) fail(`does not match argument "${p.property}"`);
  }
}

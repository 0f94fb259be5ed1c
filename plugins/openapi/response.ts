/**
 * What the model sees of an API call. A 2xx answer is the result: JSON as structured content
 * (when the tool declares an output schema) and as text, text types as text, images and audio
 * as their content blocks, anything else as an embedded resource. Every failure is a declared
 * tool error (errors.ts), worded as the toolkit words them: a 4xx says what the API objected to, in its own words (trimmed); a
 * 5xx, a timeout or a failed connection is retryable. Secrets never appear.
 */
import type { DeclaredToolError, ToolResult } from '@mcp-toolkit/server';
import { OPENAPI_ERRORS, type OpenapiErrorCode, refusalCode } from './errors.ts';
import type { SendResult } from './http-client.ts';
import type { OutputPlan } from './tool-output.ts';

type Content = NonNullable<ToolResult<unknown>['content']>[number];

export interface ResponseContext {
  /** How the operation is named in messages: `GET /pets/{petId} (showPetById)`. */
  readonly label: string;
  readonly method: string;
  readonly output: OutputPlan | undefined;
  /** Checks a structured value against the tool's output schema. */
  readonly validateOutput: (value: unknown) => { ok: true } | { ok: false; issues: string[] };
  readonly maxBytes: number;
  readonly timeoutMs: number;
  /** Values replaced by •••••• wherever they would appear. */
  readonly secrets: readonly string[];
}

const MAX_MESSAGE = 500;
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;
const TEXT_TYPE =
  /^(?:text\/|application\/(?:[\w.+-]+\+)?(?:xml|yaml|x-yaml|javascript|x-www-form-urlencoded)\b)/i;

function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.replaceAll(s, '••••••');
  return out;
}

/** Every string of a JSON value scrubbed: an API that echoes a credential gives it back to no one. */
function scrubValue(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return scrub(value, secrets);
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, secrets));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubValue(v, secrets)]));
  }
  return value;
}

function result(ctx: ResponseContext, content: Content[], structured?: unknown): ToolResult<unknown> {
  const scrubbed = content.map((c) => (c.type === 'text' ? { ...c, text: scrub(c.text, ctx.secrets) } : c));
  return structured === undefined
    ? { kind: 'tool_result', content: scrubbed }
    : { kind: 'tool_result', content: scrubbed, structured: scrubValue(structured, ctx.secrets) };
}

/**
 * A declared error as the toolkit words one (`code: message. Retrying ... hint`), returned as
 * an `isError` result without `structuredContent`: the official SDK v1 client checks any
 * `structuredContent` against the tool's output schema, error results included, so the
 * toolkit's `{ error }` object would make it reject the answer of every tool with one.
 */
function fail(ctx: ResponseContext, code: OpenapiErrorCode, message: string): ToolResult<unknown> {
  const declared: DeclaredToolError = OPENAPI_ERRORS[code];
  const retry =
    declared.retryable === true ? 'Retrying later may succeed.' : 'Retrying the same call will not help.';
  const words = `${code}: ${message.replace(/[.\s]+$/, '')}. ${retry}${declared.hint ? ` ${declared.hint}` : ''}`;
  return { kind: 'tool_result', content: [text(scrub(words, ctx.secrets))], isError: true };
}

/**
 * The answer of an operation that is called with the caller's own upstream token
 * (MCP_OPENAPI_FORWARD_UPSTREAM_TOKEN) when there is none to send: `reason` says why (another
 * auth mode than oauth-proxy, or the user's sign-in at the provider has ended).
 */
export function noCallerToken(ctx: ResponseContext, reason: string): ToolResult<unknown> {
  return fail(
    ctx,
    'unauthorized',
    `${ctx.label} is called with the caller's own token at their identity provider (MCP_OPENAPI_FORWARD_UPSTREAM_TOKEN), and there is none: ${reason}`,
  );
}

const text = (t: string): Content => ({ type: 'text', text: t });

function trimmed(message: string): string {
  const flat = message.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE)}…` : flat;
}

/**
 * The API's own explanation from an error body: RFC 9457 problem details (`title`, `detail`),
 * or the usual `message` / `error` / `error_description` / `errors[]` fields, else the text.
 */
export function apiMessage(bodyText: string, contentType: string): string {
  if (JSON_TYPE.test(contentType) || /^\s*[[{]/.test(bodyText)) {
    try {
      const msg = messageOf(JSON.parse(bodyText));
      if (msg) return trimmed(msg);
    } catch {
      // Not JSON after all: the text stands.
    }
  }
  return trimmed(bodyText);
}

function messageOf(json: unknown): string | undefined {
  if (typeof json === 'string') return json;
  if (typeof json !== 'object' || json === null) return undefined;
  const o = json as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
  if (str(o.title) && str(o.detail)) return `${o.title}: ${o.detail}`;
  const first = Array.isArray(o.errors) ? messageOf(o.errors[0]) : undefined;
  return (
    str(o.detail) ??
    str(o.message) ??
    str(o.error_description) ??
    str(o.error) ??
    (typeof o.error === 'object' ? messageOf(o.error) : undefined) ??
    first ??
    str(o.title) ??
    str(o.msg) ??
    str(o.description)
  );
}

function cutNote(ctx: ResponseContext, declared: number | undefined): string {
  const of = declared !== undefined ? ` of ${declared}` : '';
  return `[Response cut at ${ctx.maxBytes} bytes${of} (MCP_OPENAPI_MAX_RESPONSE_BYTES). Ask for less: a filter, a field selection or a smaller page.]`;
}

/**
 * Maps one call's outcome to the tool result, or throws the declared ToolError of a failure.
 *
 * @example
 * return toToolResult(await send(request, options), { label, method, output, ... });
 */
export function toToolResult(sent: SendResult, ctx: ResponseContext): ToolResult<unknown> {
  const retried = sent.attempts > 1 ? ` (after ${sent.attempts} attempts)` : '';
  if (sent.kind === 'timeout') {
    const maybeApplied = ['GET', 'HEAD', 'OPTIONS'].includes(ctx.method)
      ? ''
      : '; it may or may not have been carried out, so check before repeating it';
    return fail(
      ctx,
      'timeout',
      `The API did not answer ${ctx.label} within ${ctx.timeoutMs} ms${maybeApplied}`,
    );
  }
  if (sent.kind === 'network') {
    return fail(
      ctx,
      'unreachable',
      `Could not reach the API for ${ctx.label}${retried}: ${sent.code} (${trimmed(sent.message)})`,
    );
  }
  const contentType = sent.headers.get('content-type') ?? '';
  const bodyText = new TextDecoder().decode(sent.body);
  const status = `HTTP ${sent.status}${sent.statusText ? ` ${sent.statusText}` : ''}`;
  const after = sent.headers.get('retry-after');
  if (sent.status >= 500) {
    const msg = apiMessage(bodyText, contentType);
    return fail(
      ctx,
      'upstream_error',
      `${ctx.label} failed on the API's side${retried}: ${status}${msg ? `: ${msg}` : ''}${after ? ` (the API asks to wait ${after} s)` : ''}`,
    );
  }
  if (sent.status >= 300) {
    const msg = apiMessage(bodyText, contentType);
    const code = refusalCode(sent.status);
    const wait = code === 'rate_limited' && after ? ` (retry after ${after} s)` : '';
    const redirects = sent.status < 400 ? ' (more redirects than the plugin follows)' : '';
    return fail(ctx, code, `${ctx.label} was refused: ${status}${msg ? `: ${msg}` : ''}${wait}${redirects}`);
  }
  return success(sent, ctx, contentType, bodyText, status);
}

function success(
  sent: Extract<SendResult, { kind: 'response' }>,
  ctx: ResponseContext,
  contentType: string,
  bodyText: string,
  status: string,
): ToolResult<unknown> {
  const cut = sent.truncated ? `\n\n${cutNote(ctx, sent.declaredBytes)}` : '';
  if (ctx.output !== undefined) {
    if (sent.truncated) {
      return fail(
        ctx,
        'response_too_large',
        `${ctx.label} answered ${status}, but the response is over the MCP_OPENAPI_MAX_RESPONSE_BYTES limit of ${ctx.maxBytes} bytes, so it is not returned as structured content. Its start: ${bodyText.slice(0, 1000)}`,
      );
    }
    let value: unknown;
    try {
      value = JSON.parse(bodyText);
    } catch {
      return fail(
        ctx,
        'unexpected_response',
        `${ctx.label} answered ${status} without the JSON its API document promises (${contentType || 'no content type'}): ${trimmed(bodyText) || '(empty body)'}`,
      );
    }
    const structured = ctx.output.wrapped ? { result: value } : value;
    const check = ctx.validateOutput(structured);
    if (!check.ok) {
      return fail(
        ctx,
        'unexpected_response',
        `${ctx.label} answered ${status}, but the response does not match the schema its API document declares (${check.issues.slice(0, 5).join('; ')}); the response: ${bodyText}`,
      );
    }
    return result(ctx, [text(bodyText)], structured);
  }
  if (sent.body.byteLength === 0) {
    const etag = sent.headers.get('etag');
    const length = sent.headers.get('content-length');
    const facts = [
      contentType && `content-type ${contentType}`,
      length && `content-length ${length}`,
      etag && `etag ${etag}`,
    ].filter(Boolean);
    return result(ctx, [text(`${status}${facts.length > 0 ? ` (${facts.join(', ')})` : ''}`)]);
  }
  if (JSON_TYPE.test(contentType) || TEXT_TYPE.test(contentType) || contentType === '') {
    return result(ctx, [text(`${bodyText}${cut}`)]);
  }
  if (sent.truncated) {
    return fail(
      ctx,
      'response_too_large',
      `${ctx.label} answered ${status} with ${contentType}, over the MCP_OPENAPI_MAX_RESPONSE_BYTES limit of ${ctx.maxBytes} bytes`,
    );
  }
  const data = Buffer.from(sent.body).toString('base64');
  const mimeType = contentType.split(';')[0]?.trim() ?? 'application/octet-stream';
  if (mimeType.startsWith('image/')) return result(ctx, [{ type: 'image', data, mimeType }]);
  if (mimeType.startsWith('audio/')) return result(ctx, [{ type: 'audio', data, mimeType }]);
  const uri = new URL(sent.url);
  uri.search = '';
  return result(ctx, [{ type: 'resource', resource: { uri: uri.href, mimeType, blob: data } }]);
}

/**
 * What the model sees of an API call. A 2xx answer is the result: JSON as structured content
 * (when the tool declares an output schema) and as text, text types as text, images and audio
 * as their content blocks, anything else as an embedded resource. A 4xx is an `isError` result
 * that says what the API objected to, in its own words (trimmed); a 5xx, a timeout or a failed
 * connection is an `isError` result that says a retry may help. Secrets never appear.
 */
import type { ToolResult } from '../../src/index.ts';
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

function result(
  ctx: ResponseContext,
  content: Content[],
  isError: boolean,
  structured?: unknown,
): ToolResult<unknown> {
  const scrubbed = content.map((c) => (c.type === 'text' ? { ...c, text: scrub(c.text, ctx.secrets) } : c));
  return structured === undefined
    ? { kind: 'tool_result', content: scrubbed, isError }
    : { kind: 'tool_result', content: scrubbed, structured, isError };
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

const HINTS: Record<number, string> = {
  400: 'Check the arguments against the input schema and call again with corrected values.',
  401: "The API did not accept this server's credentials (or got none); other arguments will not fix that.",
  403: "This server's credentials do not allow this operation.",
  404: 'Nothing was found: check the identifiers in the arguments.',
  405: 'The API does not allow this method here.',
  409: "The request conflicts with the resource's current state.",
  413: 'The request is too large for the API.',
  415: 'The API did not accept the request body type.',
  422: 'The API understood the request but rejected its content: check the values against the input schema.',
};

function cutNote(ctx: ResponseContext, declared: number | undefined): string {
  const of = declared !== undefined ? ` of ${declared}` : '';
  return `[Response cut at ${ctx.maxBytes} bytes${of} (MCP_OPENAPI_MAX_RESPONSE_BYTES). Ask for less: a filter, a field selection or a smaller page.]`;
}

/**
 * Maps one call's outcome to the tool result.
 *
 * @example
 * return toToolResult(await send(request, options), { label, method, output, ... });
 */
export function toToolResult(sent: SendResult, ctx: ResponseContext): ToolResult<unknown> {
  const retried = sent.attempts > 1 ? ` (after ${sent.attempts} attempts)` : '';
  if (sent.kind === 'timeout') {
    const maybeApplied = ['GET', 'HEAD', 'OPTIONS'].includes(ctx.method)
      ? ''
      : ' It may or may not have been carried out: check before repeating it.';
    return result(
      ctx,
      [
        text(
          `The API did not answer ${ctx.label} within ${ctx.timeoutMs} ms. A retry may help.${maybeApplied}`,
        ),
      ],
      true,
    );
  }
  if (sent.kind === 'network') {
    return result(
      ctx,
      [
        text(
          `Could not reach the API for ${ctx.label}${retried}: ${sent.code} (${trimmed(sent.message)}). A retry may help.`,
        ),
      ],
      true,
    );
  }
  const contentType = sent.headers.get('content-type') ?? '';
  const bodyText = new TextDecoder().decode(sent.body);
  const status = `HTTP ${sent.status}${sent.statusText ? ` ${sent.statusText}` : ''}`;
  if (sent.status >= 500) {
    const msg = apiMessage(bodyText, contentType);
    const after = sent.headers.get('retry-after');
    return result(
      ctx,
      [
        text(
          `${ctx.label} failed on the API's side${retried}: ${status}${msg ? `: ${msg}` : ''}. A retry may help${after ? ` (the API asks to wait ${after} s)` : ' later'}.`,
        ),
      ],
      true,
    );
  }
  if (sent.status >= 300) {
    const msg = apiMessage(bodyText, contentType);
    const hint =
      sent.status === 429
        ? `Rate limited: retry${sent.headers.get('retry-after') ? ` after ${sent.headers.get('retry-after')} s` : ' later'}.`
        : (HINTS[sent.status] ??
          (sent.status < 400 ? 'The API redirected more often than the plugin follows.' : ''));
    return result(
      ctx,
      [text(`${ctx.label} was refused: ${status}${msg ? `: ${msg}` : ''}. ${hint}`.trim())],
      true,
    );
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
      return result(
        ctx,
        [
          text(
            `${ctx.label} answered ${status}, but the response is over the size limit, so it is not returned as structured content. Its start:\n\n${bodyText}${cut}`,
          ),
        ],
        true,
      );
    }
    let value: unknown;
    try {
      value = JSON.parse(bodyText);
    } catch {
      return result(
        ctx,
        [
          text(
            `${ctx.label} answered ${status} without the JSON its API document promises (${contentType || 'no content type'}): ${trimmed(bodyText) || '(empty body)'}`,
          ),
        ],
        true,
      );
    }
    const structured = ctx.output.wrapped ? { result: value } : value;
    const check = ctx.validateOutput(structured);
    if (!check.ok) {
      return result(
        ctx,
        [
          text(
            `${ctx.label} answered ${status}, but the response does not match the schema its API document declares (${check.issues.slice(0, 5).join('; ')}). The response:\n\n${bodyText}`,
          ),
        ],
        true,
      );
    }
    return result(ctx, [text(bodyText)], false, structured);
  }
  if (sent.body.byteLength === 0) {
    const etag = sent.headers.get('etag');
    const length = sent.headers.get('content-length');
    const facts = [
      contentType && `content-type ${contentType}`,
      length && `content-length ${length}`,
      etag && `etag ${etag}`,
    ].filter(Boolean);
    return result(ctx, [text(`${status}${facts.length > 0 ? ` (${facts.join(', ')})` : ''}`)], false);
  }
  if (JSON_TYPE.test(contentType) || TEXT_TYPE.test(contentType) || contentType === '') {
    return result(ctx, [text(`${bodyText}${cut}`)], false);
  }
  if (sent.truncated) {
    return result(
      ctx,
      [text(`${ctx.label} answered ${status} with ${contentType}. ${cutNote(ctx, sent.declaredBytes)}`)],
      true,
    );
  }
  const data = Buffer.from(sent.body).toString('base64');
  const mimeType = contentType.split(';')[0]?.trim() ?? 'application/octet-stream';
  if (mimeType.startsWith('image/')) return result(ctx, [{ type: 'image', data, mimeType }], false);
  if (mimeType.startsWith('audio/')) return result(ctx, [{ type: 'audio', data, mimeType }], false);
  const uri = new URL(sent.url);
  uri.search = '';
  return result(ctx, [{ type: 'resource', resource: { uri: uri.href, mimeType, blob: data } }], false);
}

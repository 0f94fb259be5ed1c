/**
 * One tool per selected operation: named, described and annotated from the operation, its
 * input and output schemas planned from the parameters, the body and the 2xx response, and a
 * handler that builds the request, sends it and maps the answer.
 */
import {
  defineTool,
  type HandlerContext,
  InternalCode,
  type JsonObject,
  type ToolDefinition,
  ToolkitError,
  type ToolResult,
} from '@mcp-toolkit/server';
import { baseUrlOf } from './base-url.ts';
import { CALLER_TOKEN, carriesCallerToken, forwardsUpstreamToken, withCallerToken } from './caller-token.ts';
import { credentialsFor } from './credentials.ts';
import type { ApiDocument, Operation } from './document.ts';
import { OPENAPI_ERRORS } from './errors.ts';
import { send } from './http-client.ts';
import { buildRequest } from './request.ts';
import { noCallerToken, type ResponseContext, toToolResult } from './response.ts';
import type { OpenapiSettings } from './settings.ts';
import { planInput } from './tool-input.ts';
import { planOutput } from './tool-output.ts';

export const DEFAULT_USER_AGENT = 'mcp-toolkit-openapi';

export interface BuiltTools {
  readonly tools: ToolDefinition[];
  /** Operations that cannot be tools, with the reason (logged at start-up, shown by doctor). */
  readonly skipped: { label: string; reason: string }[];
  /**
   * Operations left out because their security needs credentials the settings do not hold,
   * with what they need (`MCP_OPENAPI_API_KEY (scheme "api_key")`): a tool that every call
   * would see refused is worse than none. Logged once at start-up; doctor reports them.
   */
  readonly uncredentialed: { label: string; need: string }[];
  /** The operations that became tools, in order. */
  readonly offered: Operation[];
}

/** 2025-11-25 §Tools, annotations: hints from the HTTP method's semantics (RFC 9110 §9.2). */
function annotations(op: Operation, title: string) {
  const method = op.method;
  return {
    title,
    readOnlyHint: method === 'get' || method === 'head',
    ...(method === 'delete' ? { destructiveHint: true } : {}),
    ...(method === 'put' ? { idempotentHint: true } : {}),
    openWorldHint: true,
  };
}

function describe(op: Operation): { title: string; description: string } {
  const { summary, description, operationId, deprecated } = op.operation;
  const text = [summary, description].filter((t): t is string => typeof t === 'string' && t.trim() !== '');
  const unique = text.length === 2 && text[0]?.trim() === text[1]?.trim() ? [text[0] as string] : text;
  const body = unique.length > 0 ? unique.join('\n\n') : `Calls ${op.method.toUpperCase()} ${op.path}.`;
  return {
    title: summary?.trim() || operationId || `${op.method.toUpperCase()} ${op.path}`,
    description: deprecated === true ? `Deprecated. ${body}` : body,
  };
}

/** The Accept header: what the operation says its successes return, else JSON first. */
function acceptOf(op: Operation): string {
  const types = new Set<string>();
  for (const [code, response] of Object.entries(op.operation.responses ?? {})) {
    if (code.startsWith('2')) for (const t of Object.keys(response.content ?? {})) types.add(t);
  }
  return types.size > 0 ? [...types].join(', ') : 'application/json, */*;q=0.8';
}

/**
 * The tools of the selected operations; `names` is parallel to `ops`.
 *
 * @example
 * const { tools } = buildTools(api, selected, toolNames(selected), settings, documentUrl);
 */
export function buildTools(
  api: ApiDocument,
  ops: readonly Operation[],
  names: readonly string[],
  settings: OpenapiSettings,
  documentUrl: string | undefined,
): BuiltTools {
  const dialect = api.openapi.startsWith('3.1') ? '3.1' : '3.0';
  const userAgent = settings.userAgent ?? DEFAULT_USER_AGENT;
  const secrets = [settings.bearerToken, settings.apiKey].filter((s): s is string => s !== undefined);
  const tools: ToolDefinition[] = [];
  const skipped: BuiltTools['skipped'] = [];
  const uncredentialed: BuiltTools['uncredentialed'] = [];
  const offered: Operation[] = [];
  ops.forEach((op, i) => {
    const name = names[i] as string;
    // The caller's upstream token (oauth-proxy) stands in for MCP_OPENAPI_BEARER_TOKEN here.
    const forward = forwardsUpstreamToken(op, settings.forwardUpstreamToken);
    const creds = credentialsFor(op, api, forward ? { ...settings, bearerToken: CALLER_TOKEN } : settings);
    if (creds.unmet !== undefined) {
      uncredentialed.push({ label: op.label, need: creds.unmet });
      return;
    }
    const input = planInput(op, dialect, creds.keyPlacements);
    if ('unsupported' in input) {
      skipped.push({ label: op.label, reason: input.unsupported });
      return;
    }
    const output = planOutput(op, dialect);
    const baseUrl = baseUrlOf(op, api, { baseUrl: settings.baseUrl, documentUrl });
    const accept = acceptOf(op);
    const secretHeaders = creds.credentials.flatMap((c) =>
      c.kind === 'bearer'
        ? ['authorization']
        : c.in === 'header'
          ? [c.name]
          : c.in === 'cookie'
            ? ['cookie']
            : [],
    );
    const secretQuery = creds.credentials.flatMap((c) =>
      c.kind === 'apiKey' && c.in === 'query' ? [c.name] : [],
    );
    const { title, description } = describe(op);
    let def: ToolDefinition;
    const callsAsCaller = forward && carriesCallerToken(creds.credentials);
    const responseContext = (method: string, used: readonly string[]): ResponseContext => ({
      label: op.label,
      method,
      output,
      validateOutput: (value) => {
        const r = def.output?.validate(value) ?? { ok: true as const };
        return r.ok ? { ok: true } : { ok: false, issues: r.issues };
      },
      maxBytes: settings.maxResponseBytes,
      timeoutMs: settings.timeoutMs,
      secrets: [...secrets, ...used],
    });
    const sendWith = async (
      args: Record<string, unknown>,
      ctx: HandlerContext,
      token: string | undefined,
    ) => {
      const request = buildRequest(op, input, args, {
        baseUrl,
        credentials: token === undefined ? creds.credentials : withCallerToken(creds.credentials, token),
        userAgent,
        accept,
      });
      const sent = await send(request, {
        timeoutMs: settings.timeoutMs,
        retries: settings.retries,
        maxBytes: settings.maxResponseBytes,
        signal: ctx.signal,
        secretHeaders,
        secretQuery,
      });
      return { request, sent };
    };
    const handler = async (args: Record<string, unknown>, ctx: HandlerContext) => {
      const used: string[] = [];
      const callerToken = async (forceRefresh: boolean): Promise<string> => {
        const token = await ctx.upstreamToken({ forceRefresh });
        used.push(token);
        return token;
      };
      let outcome: Awaited<ReturnType<typeof sendWith>>;
      try {
        outcome = await sendWith(args, ctx, callsAsCaller ? await callerToken(false) : undefined);
        // RFC 6750 §3.1: a 401 says the token was not accepted, so the request was not carried
        // out; the provider may have revoked or rotated it early. Once more with a refreshed one.
        if (callsAsCaller && outcome.sent.kind === 'response' && outcome.sent.status === 401) {
          outcome = await sendWith(args, ctx, await callerToken(true));
        }
      } catch (err) {
        if (!(err instanceof ToolkitError && err.code === InternalCode.UpstreamAuth)) throw err;
        // No token to act as the caller with (another auth mode, or their sign-in has ended).
        return noCallerToken(
          responseContext(op.method.toUpperCase(), used),
          err.message,
        ) as ToolResult<JsonObject>;
      }
      const { request, sent } = outcome;
      ctx.logger.debug(
        {
          operation: op.label,
          outcome: sent.kind === 'response' ? sent.status : sent.kind,
          attempts: sent.attempts,
          ...(callsAsCaller ? { asCaller: true } : {}),
        },
        'openapi call',
      );
      // Structured content is validated against the output schema inside toToolResult.
      return toToolResult(sent, responseContext(request.method, used)) as ToolResult<JsonObject>;
    };
    try {
      def = defineTool(
        {
          name,
          title,
          description,
          input: input.schema,
          ...(output ? { output: output.schema } : {}),
          annotations: annotations(op, title),
          errors: OPENAPI_ERRORS,
        },
        handler,
      );
    } catch (err) {
      throw new ToolkitError(
        InternalCode.InvalidDefinition,
        `MCP_OPENAPI_SPEC: operation ${op.label} cannot be a tool: ${(err as Error).message}`,
        { cause: err },
      );
    }
    tools.push(def);
    offered.push(op);
  });
  return { tools, skipped, uncredentialed, offered };
}

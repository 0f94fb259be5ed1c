/**
 * Middleware per MCP method: cross-cutting code (an audit log, an authorisation rule, a
 * cache, a redaction step) without editing the core. A plugin calls `app.use({ ...hooks })`
 * in `register`; each hook is `(call, next) => result`, run in registration order around the
 * method's handler, after authentication and the edge's rate limits and inside the request's
 * span. A hook may read the call, change `call.params` (a tool's `arguments`, say) before
 * `next()`, answer without calling `next()`, throw, or change what `next()` returned.
 */

import { ProtocolError } from '../base/errors.ts';
import { type JsonObject, type JsonRpcRequest, safeText } from '../base/jsonrpc.ts';
import { toolFailure } from '../execution/results.ts';
import type { Registry } from '../registry/registry.ts';
import type { HandlerContext, ToolAnnotations } from '../registry/types.ts';
import type { RequestRecord } from './request-record.ts';
import { toolNamed } from './target.ts';

/** One call as middleware sees it. `params` may be replaced or changed before `next()`. */
export interface MiddlewareCall {
  /** The JSON-RPC method, e.g. `tools/call`. */
  readonly method: string;
  /** The request's params (for `tools/call`: `name`, `arguments`, `_meta`). */
  params: JsonObject;
  /** The handler context: identity, wire, session, `http`, logger, signal, ... */
  readonly ctx: HandlerContext;
  /** For `tools/call` of a known tool: its name and annotations (a cache keys on `readOnlyHint`). */
  readonly tool?: { readonly name: string; readonly annotations?: ToolAnnotations };
}

/** Calls the rest of the chain (and at its end the method's handler) with `call.params`. */
export type MiddlewareNext = () => Promise<JsonObject>;

export type MiddlewareHook = (call: MiddlewareCall, next: MiddlewareNext) => Promise<JsonObject> | JsonObject;

/**
 * A middleware: optional hooks by method. `onRequest` wraps every method; the others wrap one
 * method each, inside `onRequest`.
 *
 * @example
 * app.use({
 *   name: 'audit',
 *   async onCallTool(call, next) {
 *     const started = Date.now();
 *     const result = await next();
 *     call.ctx.logger.info({ tool: call.params.name, ms: Date.now() - started }, 'audit');
 *     return result;
 *   },
 * });
 */
export interface Middleware {
  /** Shown in logs when one of its hooks throws. */
  readonly name?: string;
  readonly onRequest?: MiddlewareHook;
  readonly onCallTool?: MiddlewareHook;
  readonly onListTools?: MiddlewareHook;
  readonly onReadResource?: MiddlewareHook;
  readonly onListResources?: MiddlewareHook;
  readonly onListResourceTemplates?: MiddlewareHook;
  readonly onGetPrompt?: MiddlewareHook;
  readonly onListPrompts?: MiddlewareHook;
  readonly onComplete?: MiddlewareHook;
}

type HookName = Exclude<keyof Middleware, 'name' | 'onRequest'>;

const HOOK_OF_METHOD: ReadonlyMap<string, HookName> = new Map<string, HookName>([
  ['tools/call', 'onCallTool'],
  ['tools/list', 'onListTools'],
  ['resources/read', 'onReadResource'],
  ['resources/list', 'onListResources'],
  ['resources/templates/list', 'onListResourceTemplates'],
  ['prompts/get', 'onGetPrompt'],
  ['prompts/list', 'onListPrompts'],
  ['completion/complete', 'onComplete'],
]);

const HOOK_NAMES: readonly (keyof Middleware)[] = ['onRequest', ...HOOK_OF_METHOD.values()];

/** Checks a middleware when it is added, so a typo fails at start-up rather than never running. */
export function checkMiddleware(middleware: Middleware): string | undefined {
  if (typeof middleware !== 'object' || middleware === null) return 'a middleware must be an object of hooks';
  const keys = Object.keys(middleware).filter((k) => k !== 'name');
  if (keys.length === 0) return 'a middleware needs at least one hook';
  for (const key of keys) {
    if (!HOOK_NAMES.includes(key as keyof Middleware)) {
      return `unknown middleware hook "${key}": use one of ${HOOK_NAMES.join(', ')}`;
    }
    if (typeof middleware[key as keyof Middleware] !== 'function')
      return `middleware hook "${key}" must be a function`;
  }
  return undefined;
}

/** The hooks that wrap `method`, outermost first: every `onRequest`, then the method's own. */
export function hooksFor(chain: readonly Middleware[], method: string): readonly MiddlewareHook[] {
  const own = HOOK_OF_METHOD.get(method);
  const hooks: MiddlewareHook[] = [];
  for (const m of chain) if (m.onRequest) hooks.push(m.onRequest);
  if (own) for (const m of chain) if (m[own]) hooks.push(m[own] as MiddlewareHook);
  return hooks;
}

/**
 * Runs `handler` inside `hooks`. Each hook's `next` runs the next hook (or the handler) with
 * `call.params` as it stands when `next` is called.
 */
function runHooks(
  hooks: readonly MiddlewareHook[],
  call: MiddlewareCall,
  handler: (params: JsonObject) => Promise<JsonObject>,
): Promise<JsonObject> {
  const step = async (i: number): Promise<JsonObject> => {
    if (i === hooks.length) return handler(call.params);
    return (hooks[i] as MiddlewareHook)(call, () => step(i + 1));
  };
  return step(0);
}

/**
 * Runs a method's handler inside its hooks. What a hook throws on `tools/call` (anything but a
 * protocol error) becomes the failure the model sees, as when the tool itself throws.
 */
export async function withMiddleware(
  hooks: readonly MiddlewareHook[],
  req: JsonRpcRequest,
  ctx: HandlerContext & { readonly record: Pick<RequestRecord, 'target'> },
  registry: Pick<Registry, 'tool'>,
  handler: (params: JsonObject) => Promise<JsonObject>,
): Promise<JsonObject> {
  const target = ctx.record.target;
  const def = target?.kind === 'tool' ? target.def : undefined;
  const call: MiddlewareCall = {
    method: req.method,
    params: { ...req.params },
    ctx,
    tool: def && { name: def.name, annotations: def.spec.annotations },
  };
  try {
    return await runHooks(hooks, call, handler);
  } catch (err) {
    if (req.method === 'tools/call' && !(err instanceof ProtocolError)) {
      // The tool the params name now: a hook may have renamed it before throwing.
      return toolFailure(toolNamed(target, safeText(call.params.name), registry), err);
    }
    throw err;
  }
}

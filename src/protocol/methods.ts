/**
 * The feature methods: tools, resources, prompts, completion, logging and subscriptions.
 * Each takes the request's params and context and returns the result object; wire rules
 * (resultType, caching fields, status codes) are the dispatcher's business.
 */

import { ErrorCode, InternalCode, ProtocolError, ToolkitError } from '../base/errors.ts';
import { isObject, type JsonObject } from '../base/jsonrpc.ts';
import { isLogLevel, LOG_LEVELS } from '../base/types.ts';
import { clientSupportsApps, isAppOnlySpec } from '../registry/apps.ts';
import { checkArguments, shapeToolResult, toolFailure } from '../registry/call-tool.ts';
import type { ToolDefinition } from '../registry/define.ts';
import type { Registry } from '../registry/registry.ts';
import { type ListingKind, paginate } from '../registry/registry.ts';
import type { Completer, PromptMessage } from '../registry/types.ts';
import type { Restrictable, Visibility } from '../registry/visibility.ts';
import { withDeadline } from './deadline.ts';
import { startHeartbeat } from './heartbeat.ts';
import { ClientAnswerError, type Hub, type ListenFilter } from './hub.ts';
import { type InputDeps, runWithInput } from './input.ts';
import type { RequestContext } from './request-context.ts';
import type { SessionStore } from './session.ts';
import { META } from './wire.ts';

export interface MethodDeps extends InputDeps {
  registry: Registry;
  hub: Hub;
  sessions: SessionStore;
  toolTimeoutMs: number;
  /** MCP_PROGRESS_HEARTBEAT_MS: 0 is off. */
  heartbeatMs: number;
  pageSize: number;
  /** Whether the caller may see and use an item (per-item scopes and visibility rules). */
  visible: Visibility;
  /** Checks before a handler runs (per-item scopes, per-tool limits); throws to refuse. */
  guard?: CallGuard;
  /** Long-running tools as tasks (src/tasks/ provides it); absent: every call is a plain call. */
  tasks?: TaskLane;
}

/**
 * What `tools/call` and `subscriptions/listen` need of the tasks extension. Declared here and
 * implemented in src/tasks/ (which the server assembly wires in), so the protocol layer does
 * not depend on the task engine.
 */
export interface TaskLane {
  /**
   * Whether this call runs as a task. Throws when the tool runs only as a task and the request
   * cannot take one.
   */
  runsAsTask(def: ToolDefinition, params: JsonObject | undefined, ctx: RequestContext): boolean;
  /** Creates the task (after the tool's `beforeTask` step) and answers with its handle. */
  start(
    def: ToolDefinition,
    args: unknown,
    params: JsonObject | undefined,
    ctx: RequestContext,
    deps: MethodDeps,
  ): Promise<JsonObject>;
  /** Of the `taskIds` a listen stream asks for, those it may follow (the caller's own). */
  listenable(requested: unknown, ctx: RequestContext): Promise<string[]>;
}

/**
 * Methods an extension adds to the method table (src/tasks/, src/skills/), with what the
 * server declares for them; the server assembly hands them to the dispatcher.
 */
export interface MethodSet {
  readonly methods: Readonly<Record<string, MethodHandler>>;
  /** `capabilities.extensions` entries declared on both wires. */
  readonly extensions?: JsonObject;
  /** `capabilities.extensions` entries declared on the 2026 wire only. */
  readonly extensions2026?: JsonObject;
  /** Top-level capabilities declared to 2025-wire clients on `since` or a later revision. */
  readonly capabilities2025?: { readonly since: string; readonly capabilities: JsonObject };
}

/**
 * What is checked before a handler runs, beyond visibility: the caller's scopes for the item
 * (403 `insufficient_scope`, so a client can step up) and a tool's own rate limit. Built once
 * where the server is assembled, from its authenticator and limiter.
 */
export interface CallGuard {
  readonly name: string;
  tool(def: ToolDefinition, ctx: RequestContext): void | Promise<void>;
  /** A resource, template or prompt about to be read or got. */
  item(spec: Restrictable, ctx: RequestContext): void;
}

export type MethodHandler = (
  params: JsonObject | undefined,
  ctx: RequestContext,
  deps: MethodDeps,
) => Promise<JsonObject>;

function requireString(params: JsonObject | undefined, key: string): string {
  const v = params?.[key];
  if (typeof v !== 'string' || v === '') {
    throw new ProtocolError(ErrorCode.InvalidParams, `params.${key} must be a non-empty string`);
  }
  return v;
}

function listResult(key: string, page: { items: JsonObject[]; nextCursor?: string }): JsonObject {
  const result: JsonObject = { [key]: page.items };
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
  return result;
}

/** Maps a handler failure: protocol errors pass through, timeouts and cancellations get a clear text. */
function rethrowHandlerError(err: unknown, what: string): never {
  if (err instanceof ProtocolError) throw err;
  if (err instanceof ClientAnswerError)
    throw new ProtocolError(ErrorCode.InternalError, `${what}: ${err.message}`);
  if (err instanceof ToolkitError && err.code === InternalCode.OutputInvalid) {
    throw new ProtocolError(ErrorCode.InternalError, err.message);
  }
  if (
    err instanceof ToolkitError &&
    (err.code === InternalCode.Timeout || err.code === InternalCode.Cancelled)
  ) {
    throw new ProtocolError(ErrorCode.InternalError, `${what} ${err.message}`);
  }
  throw err;
}

const toolsCall: MethodHandler = async (params, ctx, deps) => {
  const name = requireString(params, 'name');
  const def = deps.registry.tool(name);
  // A tool the caller may not see answers exactly as one that does not exist.
  if (!def || !deps.visible(def.spec, ctx.identity)) {
    throw new ProtocolError(ErrorCode.InvalidParams, `Unknown tool: ${name}`, { data: { name } });
  }
  const asTask = deps.tasks?.runsAsTask(def, params, ctx) === true;
  const args = params?.arguments;
  if (args !== undefined && !isObject(args)) {
    throw new ProtocolError(ErrorCode.InvalidParams, 'params.arguments must be an object');
  }
  const checked = checkArguments(def, args, ctx.protocolVersion);
  if (!checked.ok) return checked.result;
  if (deps.guard) await deps.guard.tool(def, ctx);
  // A task answers at once with its handle: nothing to keep alive.
  if (asTask)
    return (deps.tasks as TaskLane)
      .start(def, checked.value, params, ctx, deps)
      .catch((err) => toolCallFailure(def, ctx, err));
  const timeoutMs = def.spec.timeoutMs ?? deps.toolTimeoutMs;
  const stopHeartbeat = startHeartbeat(ctx, def.spec.heartbeatMs ?? deps.heartbeatMs);
  try {
    const out = await runWithInput(ctx, params, deps, () =>
      withDeadline(ctx, timeoutMs, () => def.handler(checked.value, ctx)),
    );
    return 'inputRequired' in out ? out.inputRequired : shapeToolResult(def, out.value);
  } catch (err) {
    return toolCallFailure(def, ctx, err);
  } finally {
    stopHeartbeat?.();
  }
};

/** A tools/call that threw: protocol errors pass through, anything else is a tool error the model sees. */
function toolCallFailure(def: ToolDefinition, ctx: RequestContext, err: unknown): JsonObject {
  if (err instanceof ProtocolError) throw err;
  if (err instanceof ToolkitError && err.code === InternalCode.OutputInvalid) {
    ctx.logger.error({ err }, 'tool output does not match its outputSchema');
    throw new ProtocolError(ErrorCode.InternalError, err.message);
  }
  return toolFailure(def, err);
}

function shapeContents(uri: string, mimeType: unknown, value: unknown): JsonObject[] {
  const base: JsonObject = { uri };
  if (typeof mimeType === 'string') base.mimeType = mimeType;
  if (typeof value === 'string') return [{ ...base, text: value }];
  if (Array.isArray(value)) return value as JsonObject[];
  if (isObject(value) && ('text' in value || 'blob' in value)) return [{ ...base, ...value }];
  throw new ToolkitError(
    InternalCode.OutputInvalid,
    `Resource ${uri}: a reader must return text, { blob } or contents`,
  );
}

const resourcesRead: MethodHandler = async (params, ctx, deps) => {
  const uri = requireString(params, 'uri');
  const found = deps.registry.resource(uri);
  const direct = found && deps.visible(found.spec, ctx.identity) ? found : undefined;
  const match = direct || found ? undefined : deps.registry.matchTemplate(uri);
  const matched = match && deps.visible(match.def.spec, ctx.identity) ? match : undefined;
  if (!direct && !matched) {
    // SEP-2164: not found is -32602 with the URI in data (never an empty contents array).
    throw new ProtocolError(ErrorCode.InvalidParams, `Resource not found: ${uri}`, { data: { uri } });
  }
  deps.guard?.item(direct ? direct.spec : (matched as NonNullable<typeof matched>).def.spec, ctx);
  const mimeType = direct ? direct.listing.mimeType : matched?.def.listing.mimeType;
  try {
    const out = await runWithInput(ctx, params, deps, () =>
      withDeadline(ctx, deps.toolTimeoutMs, async () =>
        direct ? direct.read(uri, ctx) : matched!.def.read(uri, matched!.variables, ctx),
      ),
    );
    if ('inputRequired' in out) return out.inputRequired;
    return { contents: shapeContents(uri, mimeType, out.value) };
  } catch (err) {
    return rethrowHandlerError(err, `Reading ${uri}`);
  }
};

function shapePrompt(value: unknown, description: string): JsonObject {
  if (typeof value === 'string') {
    return { description, messages: [{ role: 'user', content: { type: 'text', text: value } }] };
  }
  if (Array.isArray(value)) return { description, messages: value as PromptMessage[] };
  if (isObject(value) && Array.isArray(value.messages)) return value;
  throw new ToolkitError(InternalCode.OutputInvalid, 'A prompt must return text, messages or { messages }');
}

const promptsGet: MethodHandler = async (params, ctx, deps) => {
  const name = requireString(params, 'name');
  const def = deps.registry.prompt(name);
  if (!def || !deps.visible(def.spec, ctx.identity)) {
    throw new ProtocolError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`, { data: { name } });
  }
  deps.guard?.item(def.spec, ctx);
  const raw = params?.arguments ?? {};
  if (!isObject(raw)) throw new ProtocolError(ErrorCode.InvalidParams, 'params.arguments must be an object');
  const args: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v !== 'string')
      throw new ProtocolError(ErrorCode.InvalidParams, `Prompt argument "${k}" must be a string`);
    args[k] = v;
  }
  const missing = (def.spec.arguments ?? [])
    .filter((a) => a.required && args[a.name] === undefined)
    .map((a) => a.name);
  if (missing.length > 0) {
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      `Prompt ${name} is missing required arguments: ${missing.join(', ')}`,
    );
  }
  try {
    const out = await runWithInput(ctx, params, deps, () =>
      withDeadline(ctx, deps.toolTimeoutMs, async () => def.get(args, ctx)),
    );
    return 'inputRequired' in out ? out.inputRequired : shapePrompt(out.value, def.spec.description);
  } catch (err) {
    return rethrowHandlerError(err, `Prompt ${name}`);
  }
};

const MAX_COMPLETIONS = 100;

const completionComplete: MethodHandler = async (params, ctx, deps) => {
  const ref = params?.ref;
  const argument = params?.argument;
  if (
    !isObject(ref) ||
    !isObject(argument) ||
    typeof argument.name !== 'string' ||
    typeof argument.value !== 'string'
  ) {
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      'completion/complete needs ref and argument { name, value }',
    );
  }
  let completer: Completer | undefined;
  if (ref.type === 'ref/prompt') {
    const def = deps.registry.prompt(String(ref.name));
    if (!def) throw new ProtocolError(ErrorCode.InvalidParams, `Unknown prompt: ${String(ref.name)}`);
    completer = def.spec.arguments?.find((a) => a.name === argument.name)?.complete;
  } else if (ref.type === 'ref/resource') {
    const def = deps.registry.templateByName(String(ref.uri));
    if (!def && !deps.registry.resource(String(ref.uri))) {
      throw new ProtocolError(ErrorCode.InvalidParams, `Unknown resource template: ${String(ref.uri)}`);
    }
    completer = def?.spec.complete?.[argument.name];
  } else {
    throw new ProtocolError(ErrorCode.InvalidParams, 'ref.type must be ref/prompt or ref/resource');
  }
  const context =
    isObject(params?.context) && isObject(params.context.arguments) ? params.context.arguments : {};
  const values = completer
    ? await withDeadline(ctx, deps.toolTimeoutMs, async () =>
        completer(argument.value as string, {
          arguments: context as Record<string, string>,
          ctx,
        }),
      )
    : [];
  return {
    completion: {
      values: values.slice(0, MAX_COMPLETIONS),
      total: values.length,
      hasMore: values.length > MAX_COMPLETIONS,
    },
  };
};

const loggingSetLevel: MethodHandler = async (params, ctx, deps) => {
  const level = params?.level;
  if (!isLogLevel(level)) {
    throw new ProtocolError(ErrorCode.InvalidParams, `params.level must be one of ${LOG_LEVELS.join(', ')}`);
  }
  if (ctx.session) {
    ctx.session.logLevel = level;
    await deps.sessions.save(ctx.session);
  }
  return {};
};

const subscribe =
  (on: boolean): MethodHandler =>
  async (params, ctx, deps) => {
    const uri = requireString(params, 'uri');
    if (ctx.session) {
      if (on) ctx.session.subscriptions.add(uri);
      else ctx.session.subscriptions.delete(uri);
      await deps.sessions.save(ctx.session);
    }
    return {};
  };

/**
 * 2026 `subscriptions/listen`: acknowledge the honoured filter, then hold the stream open,
 * pushing matching list changes, until the client goes away.
 */
const subscriptionsListen: MethodHandler = async (params, ctx, deps) => {
  const requested = isObject(params?.notifications) ? params.notifications : {};
  const filter: ListenFilter = {};
  for (const key of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const) {
    if (requested[key] === true) filter[key] = true;
  }
  if (Array.isArray(requested.resourceSubscriptions)) {
    filter.resourceSubscriptions = requested.resourceSubscriptions.filter(
      (u): u is string => typeof u === 'string',
    );
  }
  if (requested.taskIds !== undefined)
    filter.taskIds = deps.tasks ? await deps.tasks.listenable(requested.taskIds, ctx) : [];
  const channel = ctx.channel;
  if (!channel)
    throw new ProtocolError(ErrorCode.InternalError, 'This transport cannot hold a listen stream');
  const subscriptionId = ctx.requestId;
  channel.send({
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { notifications: filter, _meta: { [META.subscriptionId]: subscriptionId } },
  });
  const detach = deps.hub.addListener(filter, subscriptionId, channel);
  try {
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  } finally {
    detach();
  }
  return { _meta: { [META.subscriptionId]: subscriptionId } };
};

/**
 * A list method. Items the caller may not see are left out before paging, so pages stay
 * full and cursors stay stable for that caller; without auth nothing is filtered.
 */
const list =
  (key: string, kind: ListingKind): MethodHandler =>
  async (params, ctx, deps) => {
    const identity = ctx.identity;
    // Tools only a view may call (MCP Apps visibility ['app']) go to hosts that render views,
    // which keep them from their model (SEP-1865); any other client would hand them to it.
    const hideAppOnly = kind === 'tools' && !clientSupportsApps(ctx.clientCapabilities);
    const items =
      identity === undefined || !deps.registry.restricts(kind)
        ? hideAppOnly
          ? deps.registry.toolListing('model')
          : deps.registry.listingOf(kind)
        : deps.registry.listingWhere(
            kind,
            (spec) => deps.visible(spec, identity) && !(hideAppOnly && isAppOnlySpec(spec)),
          );
    return listResult(key, paginate(items, params?.cursor, deps.pageSize));
  };

/**
 * The core method table, a Map so that only the names it holds are served: a plain object
 * would also answer `constructor`, `toString` or `__proto__` through Object.prototype. The
 * dispatcher adds the extensions' MethodSets to its own copy.
 */
export const CORE_METHODS: ReadonlyMap<string, MethodHandler> = new Map<string, MethodHandler>([
  ['tools/list', list('tools', 'tools')],
  ['tools/call', toolsCall],
  ['resources/list', list('resources', 'resources')],
  ['resources/templates/list', list('resourceTemplates', 'resourceTemplates')],
  ['resources/read', resourcesRead],
  ['resources/subscribe', subscribe(true)],
  ['resources/unsubscribe', subscribe(false)],
  ['prompts/list', list('prompts', 'prompts')],
  ['prompts/get', promptsGet],
  ['completion/complete', completionComplete],
  ['logging/setLevel', loggingSetLevel],
  ['subscriptions/listen', subscriptionsListen],
]);

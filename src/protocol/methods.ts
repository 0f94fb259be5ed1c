/**
 * The feature methods: tools, resources, prompts, completion, logging and subscriptions.
 * Each takes the request's params and context and returns the result object; wire rules
 * (resultType, caching fields, status codes) are the dispatcher's business.
 */

import { ErrorCode, ProtocolError } from '../base/errors.ts';
import { isObject, type JsonObject, safeText } from '../base/jsonrpc.ts';
import { Refusal } from '../base/refusals.ts';
import { isLogLevel, LOG_LEVELS } from '../base/types.ts';
import type { Caller } from '../execution/call.ts';
import { clientSupportsApps, isAppOnlySpec } from '../registry/apps.ts';
import type { ToolDefinition } from '../registry/define.ts';
import { type ListingKind, paginate, type Registry } from '../registry/registry.ts';
import type { Completer } from '../registry/types.ts';
import type { Restrictable, Visibility } from '../registry/visibility.ts';
import type { ClientRequests } from './hub/client-requests.ts';
import type { ListenFilter, ListenStreams } from './hub/listen-streams.ts';
import type { RequestContext } from './request-context.ts';
import { type SessionStore, saveSession, sessionOwner } from './session/store.ts';
import { promptNamed, resourceAt, toolNamed } from './target.ts';
import { META } from './wires/wire.ts';

export interface MethodDeps {
  registry: Registry;
  /** The parts of the hub the methods use (src/protocol/hub/). */
  hub: { readonly listenStreams: ListenStreams; readonly clientRequests: ClientRequests };
  sessions: SessionStore;
  /** The call wrapper: every tool, resource, prompt and completion handler runs through it. */
  caller: Caller<RequestContext>;
  /** How long a 2025-wire server-to-client request waits for its answer (tasks/result). */
  inputTimeoutMs: number;
  pageSize: number;
  /** Open `subscriptions/listen` streams one caller may hold on this replica. */
  maxListenStreams: number;
  /** Whether the caller may see and use an item (per-item scopes and visibility rules). */
  visible: Visibility;
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
  /**
   * Top-level capabilities `initialize` declares on a revision with the core tasks of
   * 2025-11-25 (SEP-1686), as the wire profile says (`tasks.declaredAt`).
   */
  readonly coreTasks?: JsonObject;
}

/**
 * A method: the request's params and context in, the result object out. The handlers that
 * hand the call to the call wrapper return its promise as it is (no `async` layer of their
 * own: each layer costs microtask turns, and more with a tracing context to carry); their
 * callers (the dispatcher, the middleware chain) run them inside `async` functions, so what
 * they throw before returning rejects like a rejection.
 */
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

const toolsCall: MethodHandler = (params, ctx, deps) => {
  const name = requireString(params, 'name');
  const def = toolNamed(ctx.record.target, name, deps.registry);
  // A tool the caller may not see answers exactly as one that does not exist.
  if (!def || !deps.visible(def.spec, ctx.identity)) {
    throw new ProtocolError(ErrorCode.InvalidParams, `Unknown tool: ${name}`, { data: { name } });
  }
  const tasks = deps.tasks;
  const asTask = tasks?.runsAsTask(def, params, ctx) === true;
  return deps.caller.tool(
    def,
    params,
    ctx,
    asTask ? (args) => (tasks as TaskLane).start(def, args, params, ctx, deps) : undefined,
  );
};

/** The resource or template match `uri` names, if this caller may see it (else as absent). */
function visibleResource(uri: string, ctx: RequestContext, deps: MethodDeps) {
  const target = resourceAt(ctx.record.target, uri, deps.registry);
  return target && deps.visible(target.def.spec, ctx.identity) ? target : undefined;
}

const resourcesRead: MethodHandler = (params, ctx, deps) => {
  const uri = requireString(params, 'uri');
  const target = visibleResource(uri, ctx, deps);
  if (target) return deps.caller.resource(target, uri, params, ctx);
  // SEP-2164: not found is -32602 with the URI in data (never an empty contents array).
  throw new ProtocolError(ErrorCode.InvalidParams, `Resource not found: ${uri}`, { data: { uri } });
};

const promptsGet: MethodHandler = (params, ctx, deps) => {
  const name = requireString(params, 'name');
  const def = promptNamed(ctx.record.target, name, deps.registry);
  if (!def || !deps.visible(def.spec, ctx.identity)) {
    throw new ProtocolError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`, { data: { name } });
  }
  return deps.caller.prompt(def, params, ctx);
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
  // A prompt or template the caller may not see answers exactly as one that does not exist;
  // argument names are looked up as own properties only (never `constructor`, `__proto__`).
  let completer: Completer | undefined;
  let spec: Restrictable;
  if (ref.type === 'ref/prompt') {
    const def = deps.registry.prompt(safeText(ref.name));
    if (!def || !deps.visible(def.spec, ctx.identity)) {
      throw new ProtocolError(ErrorCode.InvalidParams, `Unknown prompt: ${safeText(ref.name)}`);
    }
    spec = def.spec;
    completer = def.spec.arguments?.find((a) => a.name === argument.name)?.complete;
  } else if (ref.type === 'ref/resource') {
    const uri = safeText(ref.uri);
    const def = deps.registry.templateByName(uri);
    const found = def?.spec ?? deps.registry.resource(uri)?.spec;
    if (!found || !deps.visible(found, ctx.identity)) {
      throw new ProtocolError(ErrorCode.InvalidParams, `Unknown resource template: ${uri}`);
    }
    spec = found;
    const completers = def?.spec.complete;
    completer =
      completers && Object.hasOwn(completers, argument.name) ? completers[argument.name] : undefined;
  } else {
    throw new ProtocolError(ErrorCode.InvalidParams, 'ref.type must be ref/prompt or ref/resource');
  }
  const context =
    isObject(params?.context) && isObject(params.context.arguments) ? params.context.arguments : {};
  const values = await deps.caller.complete(
    spec,
    completer,
    argument.value,
    context as Record<string, string>,
    ctx,
  );
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
    await saveSession(deps.sessions, ctx.session);
  }
  return {};
};

const subscribe =
  (on: boolean): MethodHandler =>
  async (params, ctx, deps) => {
    const uri = requireString(params, 'uri');
    // A URI the caller may not see is acknowledged as any other but never recorded, so no
    // resources/updated for it ever reaches this caller (no oracle of hidden URIs); a URI
    // nothing serves yet is recorded, for a resource that may appear later.
    const target = resourceAt(ctx.record.target, uri, deps.registry);
    const hidden = target !== undefined && !deps.visible(target.def.spec, ctx.identity);
    if (ctx.session && !hidden) {
      if (on) ctx.session.subscriptions.add(uri);
      else ctx.session.subscriptions.delete(uri);
      await saveSession(deps.sessions, ctx.session);
    }
    return {};
  };

/**
 * 2026 `subscriptions/listen`: acknowledge the honoured filter, then hold the stream open,
 * pushing matching list changes, until the client goes away.
 */
const subscriptionsListen: MethodHandler = async (params, ctx, deps) => {
  // A caller is its identity, or with auth off its address: each may hold a bounded number.
  const caller = sessionOwner(ctx.identity) ?? `address:${ctx.record.address ?? 'local'}`;
  if (deps.hub.listenStreams.of(caller) >= deps.maxListenStreams) {
    throw Refusal.tooManyListenStreams(deps.maxListenStreams);
  }
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
  const detach = deps.hub.listenStreams.add(filter, subscriptionId, channel, ctx.identity, caller);
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

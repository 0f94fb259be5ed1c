/**
 * The feature methods: tools, resources, prompts, completion, logging and subscriptions.
 * Each takes the request's params and context and returns the result object; wire rules
 * (resultType, caching fields, status codes) are the dispatcher's business.
 */
import { checkArguments, describeThrown, shapeToolResult, toolError } from '../registry/call-tool.ts';
import type { Registry } from '../registry/registry.ts';
import { paginate } from '../registry/registry.ts';
import type { Completer, LogLevel, PromptMessage } from '../registry/types.ts';
import type { SkillCatalog } from '../skills/catalog.ts';
import { SKILL_METHODS } from '../skills/methods.ts';
import type { TaskEngine } from '../tasks/engine.ts';
import { callAsTask, listenableTasks, runsAsTask, TASK_METHODS } from '../tasks/methods.ts';
import { withDeadline } from './deadline.ts';
import { ErrorCode, InternalCode, ProtocolError, ToolkitError } from './errors.ts';
import { ClientAnswerError, type Hub, type ListenFilter } from './hub.ts';
import { type InputDeps, runWithInput } from './input.ts';
import { isObject, type JsonObject } from './jsonrpc.ts';
import type { RequestContext } from './request-context.ts';
import type { SessionStore } from './session.ts';
import { META } from './wire.ts';

export interface MethodDeps extends InputDeps {
  registry: Registry;
  hub: Hub;
  sessions: SessionStore;
  toolTimeoutMs: number;
  pageSize: number;
  /** Long-running tools as tasks (src/tasks/); absent: every call is a plain call. */
  tasks?: TaskEngine;
  /** The skills served (MCP_SKILLS_DIR, src/skills/); absent: skills/* are -32601. */
  skills?: SkillCatalog;
  /** Called before a tool handler runs (per-tool scopes, limits); throw to refuse. */
  beforeTool?: (
    tool: import('../registry/define.ts').ToolDefinition,
    ctx: RequestContext,
  ) => void | Promise<void>;
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
  if (!def) throw new ProtocolError(ErrorCode.InvalidParams, `Unknown tool: ${name}`, { data: { name } });
  const asTask = runsAsTask(def, params, ctx, deps);
  const args = params?.arguments;
  if (args !== undefined && !isObject(args)) {
    throw new ProtocolError(ErrorCode.InvalidParams, 'params.arguments must be an object');
  }
  const checked = checkArguments(def, args, ctx.protocolVersion);
  if (!checked.ok) return checked.result;
  if (deps.beforeTool) await deps.beforeTool(def, ctx);
  const timeoutMs = def.spec.timeoutMs ?? deps.toolTimeoutMs;
  try {
    if (asTask) return await callAsTask(def, checked.value, params, ctx, deps);
    const out = await runWithInput(ctx, params, deps, () =>
      withDeadline(ctx, timeoutMs, () => def.handler(checked.value, ctx)),
    );
    return 'inputRequired' in out ? out.inputRequired : shapeToolResult(def, out.value);
  } catch (err) {
    if (err instanceof ProtocolError) throw err;
    if (err instanceof ToolkitError && err.code === InternalCode.OutputInvalid) {
      ctx.logger.error({ err }, 'tool output does not match its outputSchema');
      throw new ProtocolError(ErrorCode.InternalError, err.message);
    }
    return toolError(describeThrown(err));
  }
};

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
  const direct = deps.registry.resource(uri);
  const matched = direct ? undefined : deps.registry.matchTemplate(uri);
  if (!direct && !matched) {
    // SEP-2164: not found is -32602 with the URI in data (never an empty contents array).
    throw new ProtocolError(ErrorCode.InvalidParams, `Resource not found: ${uri}`, { data: { uri } });
  }
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
  if (!def) throw new ProtocolError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`, { data: { name } });
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

const LEVELS = new Set<LogLevel>([
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
]);

const loggingSetLevel: MethodHandler = async (params, ctx, deps) => {
  const level = params?.level;
  if (typeof level !== 'string' || !LEVELS.has(level as LogLevel)) {
    throw new ProtocolError(ErrorCode.InvalidParams, `params.level must be one of ${[...LEVELS].join(', ')}`);
  }
  if (ctx.session) {
    ctx.session.logLevel = level as LogLevel;
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
  if (requested.taskIds !== undefined) filter.taskIds = await listenableTasks(requested.taskIds, ctx, deps);
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

export const METHODS: Readonly<Record<string, MethodHandler>> = {
  'tools/list': async (params, _ctx, deps) =>
    listResult('tools', paginate(deps.registry.toolListing(), params?.cursor, deps.pageSize)),
  'tools/call': toolsCall,
  'resources/list': async (params, _ctx, deps) =>
    listResult('resources', paginate(deps.registry.resourceListing(), params?.cursor, deps.pageSize)),
  'resources/templates/list': async (params, _ctx, deps) =>
    listResult('resourceTemplates', paginate(deps.registry.templateListing(), params?.cursor, deps.pageSize)),
  'resources/read': resourcesRead,
  'resources/subscribe': subscribe(true),
  'resources/unsubscribe': subscribe(false),
  'prompts/list': async (params, _ctx, deps) =>
    listResult('prompts', paginate(deps.registry.promptListing(), params?.cursor, deps.pageSize)),
  'prompts/get': promptsGet,
  'completion/complete': completionComplete,
  'logging/setLevel': loggingSetLevel,
  'subscriptions/listen': subscriptionsListen,
  ...TASK_METHODS,
  ...SKILL_METHODS,
};

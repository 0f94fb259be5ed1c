/**
 * The call wrapper, where a call becomes safe (docs/internals/architecture.md, "Rules the structure keeps":
 * "the execution unit is where a tool call becomes safe"). `Caller` owns a tool, resource or
 * prompt call from the resolved definition to the shaped result: arguments validated, the guard
 * (scopes, per-tool limits) consulted, the handler run under the request's signal with a
 * deadline (cancellation.ts) and progress heartbeats (heartbeat.ts), its input rounds run, its
 * result checked and shaped (results.ts), and what it throws mapped (a tool's failure becomes an
 * `isError` result the model sees; a broken output schema, a timeout or a cancellation a
 * -32603). The method handlers hand it the target (resolved once per request,
 * src/protocol/target.ts) and call it; nothing else runs a handler (the task engine runs a
 * task's rounds through `taskRound`).
 *
 * The request's server span is active around the whole request (the dispatcher runs it in the
 * span's context), so the handler runs inside it and `ctx.span` is that span.
 *
 * The execution unit sits above the registry (it runs the definitions the registry holds) and
 * below the protocol, so it declares what it needs of the layer above: the request context
 * (`CallContext`) and the input rounds (`InputRounds`, src/protocol/input.ts implements them on
 * both wires).
 */
import { ClientAnswerError, ErrorCode, InternalCode, ProtocolError, ToolkitError } from '../base/errors.ts';
import { isObject, type JsonObject } from '../base/jsonrpc.ts';
import type {
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from '../registry/define.ts';
import type { Completer, HandlerContext, InputRequired, ResourceReturn } from '../registry/types.ts';
import type { Restrictable } from '../registry/visibility.ts';
import type { Cancellable } from './cancellation.ts';
import { type Beating, startHeartbeat } from './heartbeat.ts';
import {
  checkArguments,
  isInputRequired,
  shapeContents,
  shapePrompt,
  shapeToolResult,
  toolFailure,
} from './results.ts';

/** What the wrapper needs of a request: the handler's context, its progress state and the cancellation it holds. */
export interface CallContext extends HandlerContext, Beating {
  /** The client's network address (HTTP), for per-client limits of anonymous callers. */
  readonly address: string | undefined;
  /** The request's one cancellation: every deadline of the call runs on it. */
  readonly cancellation: Cancellable;
  /**
   * The request's wire rule for invalid tool arguments: an `isError` result the model can
   * correct (SEP-1303) when true, else a -32602 protocol error.
   */
  readonly invalidArgumentsAsResult: boolean;
}

/**
 * What is checked before a handler runs, beyond visibility: the caller's scopes for the item
 * (403 `insufficient_scope`, so a client can step up) and a tool's own rate limit. Built once
 * where the server is assembled, from its authenticator and limiter; throws to refuse.
 */
export interface CallGuard {
  readonly name: string;
  tool(def: ToolDefinition, ctx: CallContext): void | Promise<void>;
  /** A resource, template or prompt about to be read or got. */
  item(spec: Restrictable, ctx: CallContext): void;
}

/** The outcome of input rounds: the handler's final value, or (2026) the input-required result to send. */
export type RoundsOutcome<T> = { value: T } | { inputRequired: JsonObject };

/**
 * Runs `attempt` until it returns something other than an input round: on the 2025 wire by
 * asking the client itself and running it again, on 2026 by ending the request with an
 * input-required result. Provided by the protocol layer (src/protocol/input.ts).
 */
export interface InputRounds<C extends CallContext> {
  /**
   * With `finish`, the promise settles with what it returns for the outcome (or the failure),
   * run in the rounds' own reaction: a tool call's result is shaped there, with no promise and
   * turn of the wrapper's own (every tool call passes here).
   */
  run<T>(
    ctx: C,
    params: JsonObject | undefined,
    attempt: () => Promise<T | InputRequired>,
  ): Promise<RoundsOutcome<T>>;
  run<T, R>(
    ctx: C,
    params: JsonObject | undefined,
    attempt: () => Promise<T | InputRequired>,
    finish: RoundsFinish<T, R>,
  ): Promise<R>;
}

/** What `InputRounds.run` hands the outcome (or the failure) to, in the rounds' own reaction. */
export interface RoundsFinish<T, R> {
  done(outcome: RoundsOutcome<T>): R;
  failed(err: unknown): R;
}

/** What a `resources/read` reads: a resource, or the template that matched the URI with its variables. */
export type ResourceTarget =
  | { readonly def: ResourceDefinition }
  | { readonly def: ResourceTemplateDefinition; readonly variables: Readonly<Record<string, string>> };

/** Creates a tool call's task instead of running its handler (src/tasks/), with the validated arguments. */
export type TaskStart = (args: unknown) => Promise<JsonObject>;

/** One round of a task's handler: the shaped result, or the input it asks for. */
export type TaskRound = { result: JsonObject } | { input: InputRequired };

export interface CallerOptions<C extends CallContext> {
  /** Scopes and per-tool limits (absent: nothing beyond visibility is checked). */
  guard?: CallGuard | undefined;
  input: InputRounds<C>;
  /** MCP_TOOL_TIMEOUT_MS: the deadline of every handler, unless a tool sets its own. */
  toolTimeoutMs: number;
  /** MCP_PROGRESS_HEARTBEAT_MS: 0 is off; a tool may set its own. */
  heartbeatMs?: number;
}

/**
 * @example
 * const caller = new Caller({ guard, input: createInputRounds({ hub, codec, inputTimeoutMs }), toolTimeoutMs: 60_000 });
 * const result = await caller.tool(def, params, ctx);
 */
export class Caller<C extends CallContext> {
  readonly #guard: CallGuard | undefined;
  readonly #input: InputRounds<C>;
  readonly #timeoutMs: number;
  readonly #heartbeatMs: number;

  constructor(options: CallerOptions<C>) {
    if (!(options.toolTimeoutMs > 0)) throw new RangeError('Caller: toolTimeoutMs must be positive');
    this.#guard = options.guard;
    this.#input = options.input;
    this.#timeoutMs = options.toolTimeoutMs;
    this.#heartbeatMs = options.heartbeatMs ?? 0;
  }

  /**
   * A `tools/call` of a visible tool: arguments validated (-32602 up to 2025-06-18, an
   * `isError` result from 2025-11-25, SEP-1303), the guard, then the handler in input rounds
   * under its deadline; or, with `startTask`, the task created in its place.
   */
  tool(
    def: ToolDefinition,
    params: JsonObject | undefined,
    ctx: C,
    startTask?: TaskStart,
  ): Promise<JsonObject> {
    // Not `async`: the call of every tool goes through here, and an async layer costs its
    // promise and turns on each (docs/performance.md). Whatever throws still rejects.
    let checked: ReturnType<typeof checkArguments>;
    let guarded: void | Promise<void>;
    try {
      const args = params?.arguments;
      if (args !== undefined && !isObject(args)) {
        throw new ProtocolError(ErrorCode.InvalidParams, 'params.arguments must be an object');
      }
      checked = checkArguments(def, args, ctx.invalidArgumentsAsResult);
      if (!checked.ok) return Promise.resolve(checked.result);
      guarded = this.#guard?.tool(def, ctx);
    } catch (err) {
      return Promise.reject(err);
    }
    const value = checked.value;
    if (guarded !== undefined) return guarded.then(() => this.#runTool(def, value, params, ctx, startTask));
    return this.#runTool(def, value, params, ctx, startTask);
  }

  /** A tool call past its checks: the task created, or the handler run in input rounds under its deadline. */
  #runTool(
    def: ToolDefinition,
    args: unknown,
    params: JsonObject | undefined,
    ctx: C,
    startTask: TaskStart | undefined,
  ): Promise<JsonObject> {
    // A task answers at once with its handle: nothing to keep alive.
    if (startTask) {
      try {
        return startTask(args).catch((err) => toolCallFailure(def, ctx, err));
      } catch (err) {
        return Promise.reject(err);
      }
    }
    const timeoutMs = def.spec.timeoutMs ?? this.#timeoutMs;
    const finish = new ToolFinish(def, ctx, startHeartbeat(ctx, def.spec.heartbeatMs ?? this.#heartbeatMs));
    try {
      // The result is shaped in the rounds' own reaction (`finish`): no promise of ours between.
      return this.#input.run(
        ctx,
        params,
        () => ctx.cancellation.withDeadline(timeoutMs, () => def.handler(args, ctx)),
        finish,
      );
    } catch (err) {
      return Promise.reject(err).then(undefined, (thrown: unknown) => finish.failed(thrown));
    }
  }

  /** A `resources/read` of a visible resource or template match: the guard, the reader, the contents. */
  async resource(
    target: ResourceTarget,
    uri: string,
    params: JsonObject | undefined,
    ctx: C,
  ): Promise<JsonObject> {
    const { def } = target;
    this.#guard?.item(def.spec, ctx);
    const read = async (): Promise<ResourceReturn> =>
      'variables' in target ? target.def.read(uri, target.variables, ctx) : target.def.read(uri, ctx);
    try {
      const out = await this.#input.run(ctx, params, () =>
        ctx.cancellation.withDeadline(this.#timeoutMs, read),
      );
      if ('inputRequired' in out) return out.inputRequired;
      return { contents: shapeContents(uri, def.listing.mimeType, out.value) };
    } catch (err) {
      return rethrowHandlerError(err, `Reading ${uri}`);
    }
  }

  /** A `prompts/get` of a visible prompt: the guard, its arguments checked (strings, required ones present), the messages. */
  async prompt(def: PromptDefinition, params: JsonObject | undefined, ctx: C): Promise<JsonObject> {
    this.#guard?.item(def.spec, ctx);
    const raw = params?.arguments ?? {};
    if (!isObject(raw))
      throw new ProtocolError(ErrorCode.InvalidParams, 'params.arguments must be an object');
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
        `Prompt ${def.name} is missing required arguments: ${missing.join(', ')}`,
      );
    }
    try {
      const out = await this.#input.run(ctx, params, () =>
        ctx.cancellation.withDeadline(this.#timeoutMs, async () => def.get(args, ctx)),
      );
      return 'inputRequired' in out ? out.inputRequired : shapePrompt(out.value, def.spec.description);
    } catch (err) {
      return rethrowHandlerError(err, `Prompt ${def.name}`);
    }
  }

  /**
   * A completer's candidates for an argument of the prompt or template `spec`, under the
   * deadline: the guard first, as for a call of the item itself (a listed item whose scopes
   * the caller lacks answers 403 `insufficient_scope`); no completer, no candidates.
   */
  async complete(
    spec: Restrictable,
    completer: Completer | undefined,
    value: string,
    context: Readonly<Record<string, string>>,
    ctx: C,
  ): Promise<string[]> {
    this.#guard?.item(spec, ctx);
    if (!completer) return [];
    return ctx.cancellation.withDeadline(this.#timeoutMs, async () =>
      completer(value, { arguments: context, ctx }),
    );
  }

  /**
   * A task tool's `beforeTask` step, on the call itself before the task exists (its input
   * rounds are ordinary rounds, SEP-2663): the input-required result to send when it asks, else
   * undefined (the answers so far are then in `ctx.inputResponses` and `ctx.requestState`).
   */
  async beforeTask(
    def: ToolDefinition,
    args: unknown,
    params: JsonObject | undefined,
    ctx: C,
  ): Promise<JsonObject | undefined> {
    const before = def.spec.beforeTask;
    if (!before) return undefined;
    const out = await this.#input.run(ctx, params, async () => (await before(args, ctx)) ?? undefined);
    return 'inputRequired' in out ? out.inputRequired : undefined;
  }

  /**
   * One round of a task's handler, detached from the request that created it: under the
   * task's deadline, the result shaped, or the input the handler asks for (the task then waits
   * in `input_required`). The guard ran when the task was created; what the handler throws is
   * the task engine's to record.
   */
  async taskRound(def: ToolDefinition, args: unknown, ctx: C, timeoutMs: number): Promise<TaskRound> {
    const value = await ctx.cancellation.withDeadline(timeoutMs, () => def.handler(args, ctx));
    return isInputRequired(value) ? { input: value } : { result: shapeToolResult(def, value) };
  }
}

/**
 * How a tool call's rounds end: the heartbeat stopped, the result shaped (a result that fails
 * its output schema is a failure too), or the failure mapped. One object per call, its methods
 * on the prototype (no closures).
 */
class ToolFinish implements RoundsFinish<unknown, JsonObject> {
  // Made per request: fields `private`, not `#private` (V8 defines each `#` field through a
  // keyed store call on every construction: docs/performance.md).
  private readonly _def: ToolDefinition;
  private readonly _ctx: HandlerContext;
  private readonly _stop: (() => void) | undefined;
  constructor(def: ToolDefinition, ctx: HandlerContext, stop: (() => void) | undefined) {
    this._def = def;
    this._ctx = ctx;
    this._stop = stop;
  }
  done(out: RoundsOutcome<unknown>): JsonObject {
    this._stop?.();
    try {
      return 'inputRequired' in out ? out.inputRequired : shapeToolResult(this._def, out.value);
    } catch (err) {
      return toolCallFailure(this._def, this._ctx, err);
    }
  }
  failed(err: unknown): JsonObject {
    this._stop?.();
    return toolCallFailure(this._def, this._ctx, err);
  }
}

/** A tools/call that threw: protocol errors pass through, anything else is a tool error the model sees. */
function toolCallFailure(def: ToolDefinition, ctx: HandlerContext, err: unknown): JsonObject {
  if (err instanceof ProtocolError) throw err;
  if (err instanceof ToolkitError && err.code === InternalCode.OutputInvalid) {
    ctx.logger.error({ err }, 'tool output does not match its outputSchema');
    throw new ProtocolError(ErrorCode.InternalError, err.message);
  }
  return toolFailure(def, err);
}

/** A resource or prompt that threw: protocol errors pass through, timeouts and cancellations get a clear text. */
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

/**
 * The dispatcher: one `handle(message | batch, exchange)` for every transport. It knows no
 * transport; what it needs from one arrives on the `Exchange` (headers for the 2026 checks,
 * the 2025 session, the caller's identity, a channel for messages tied to the request), and
 * HTTP status codes leave as data on the reply.
 */
import type { Span } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { ErrorCode, ProtocolError } from '../base/errors.ts';
import {
  type Classified,
  classify,
  errorResponse,
  isId,
  type JsonObject,
  type JsonRpcRequest,
  type JsonRpcResponse,
  success,
} from '../base/jsonrpc.ts';
import { SUPPORTED_VERSIONS } from '../base/versions.ts';
import type { Registry } from '../registry/registry.ts';
import { ALL_VISIBLE, type Visibility } from '../registry/visibility.ts';
import { ServerCapabilities } from './capabilities.ts';
import type { Exchange, Reply, ReplyThen } from './exchange.ts';
import type { CancelRelay } from './hub/cancel-relay.ts';
import { initialize } from './initialize.ts';
import { tooDeep, withinDepth } from './json-limits.ts';
import {
  CORE_METHODS,
  type MethodDeps,
  type MethodHandler,
  type MethodSet,
  type TaskLane,
} from './methods.ts';
import { hooksFor, type Middleware, type MiddlewareHook, withMiddleware } from './middleware.ts';
import type { RequestObserver } from './observer.ts';
import { RequestContext, type UpstreamTokenSource } from './request-context.ts';
import { Finish } from './request-finish.ts';
import { requestRecord } from './request-record.ts';
import { RunningRequests } from './running.ts';
import type { SessionStore } from './session/store.ts';
import { classifyWire } from './wires/classify.ts';
import type { WireProfile } from './wires/profile.ts';

export interface DispatcherOptions {
  registry: Registry;
  sessions: SessionStore;
  /** The parts of the hub the dispatcher and the methods use (src/protocol/hub/). */
  hub: MethodDeps['hub'] & { readonly cancels: CancelRelay };
  logger: Logger;
  serverInfo: { name: string; version: string; title?: string };
  instructions?: string;
  /** `capabilities.extensions` to advertise on both wires (e.g. MCP Apps), beside the core capabilities (capabilities.ts). */
  extensions?: JsonObject;
  /** The call wrapper, with the guard and the deadlines (src/execution/call.ts). */
  caller: MethodDeps['caller'];
  /** How long a 2025-wire server-to-client request waits for its answer. */
  inputTimeoutMs: number;
  pageSize: number;
  /** Open `subscriptions/listen` streams one caller may hold (default 16). */
  maxListenStreams?: number;
  maxBatch: number;
  /** Deepest nesting of objects and arrays a message may have (MCP_MAX_JSON_DEPTH). */
  maxJsonDepth: number;
  /** Who may see and use what (default: everything visible). */
  visible?: Visibility;
  /** Middleware from the plugins' `app.use`, in registration order. */
  middleware?: readonly Middleware[];
  /** Observes every request's outcome (logs, spans, metrics); must not throw. */
  observe?: RequestObserver;
  /** Methods the extensions add (tasks, skills), with what the server declares for them. */
  methodSets?: readonly MethodSet[];
  /** Runs task-enabled tools as tasks (src/tasks/). */
  tasks?: TaskLane;
  /** The callers' upstream tokens for `ctx.upstreamToken()` (MCP_AUTH=oauth-proxy); undefined: none. */
  upstreamTokens?: UpstreamTokenSource;
}

/** The abort reason of a request the client cancelled with notifications/cancelled. */
class ClientCancelled extends ProtocolError {
  constructor() {
    super(ErrorCode.InternalError, 'cancelled by the client');
  }
}

/**
 * Cancellation (2025-11-25 utilities): a request the client cancelled gets no response where
 * the transport allows silence (stdio); an HTTP POST still needs an answer to complete. Only
 * when the cancellation was the request's first abort: one that had already timed out answers
 * with its timeout.
 */
function silenced(ctx: RequestContext, ex: Exchange): boolean {
  return ex.transport === 'stdio' && ctx.abortReason instanceof ClientCancelled;
}

export class Dispatcher {
  readonly #o: DispatcherOptions;
  readonly #deps: MethodDeps;
  #capabilities: ServerCapabilities;
  readonly #sets: readonly MethodSet[];
  /** The core methods and the extensions' (a Map: see CORE_METHODS). */
  readonly #methods: ReadonlyMap<string, MethodHandler>;
  /** The requests running here: the one place presence and notifications/cancelled find them. */
  readonly #running = new RunningRequests<RequestContext>();
  /** Middleware hooks by method, outermost first; empty without middleware (nothing to pay). */
  readonly #hooks = new Map<string, readonly MiddlewareHook[]>();

  constructor(options: DispatcherOptions) {
    if (!(options.maxBatch > 0) || !(options.pageSize > 0) || !(options.maxJsonDepth > 0)) {
      throw new RangeError('Dispatcher: maxBatch, pageSize and maxJsonDepth must be positive');
    }
    this.#o = options;
    const sets = options.methodSets ?? [];
    this.#methods = new Map([...CORE_METHODS, ...sets.flatMap((set) => Object.entries(set.methods))]);
    this.#sets = sets;
    this.#capabilities = new ServerCapabilities(options.extensions, sets);
    this.#deps = {
      registry: options.registry,
      hub: options.hub,
      sessions: options.sessions,
      caller: options.caller,
      inputTimeoutMs: options.inputTimeoutMs,
      pageSize: options.pageSize,
      maxListenStreams: options.maxListenStreams ?? 16,
      visible: options.visible ?? ALL_VISIBLE,
      tasks: options.tasks,
    };
    const middleware = options.middleware ?? [];
    if (middleware.length > 0) {
      for (const method of this.#methods.keys()) {
        const hooks = hooksFor(middleware, method);
        if (hooks.length > 0) this.#hooks.set(method, hooks);
      }
    }
    options.hub.cancels.setCanceller((scope, id) => this.#running.cancel(scope, id, new ClientCancelled()));
  }

  /**
   * Replaces the server's own extensions (MCP Apps appears with the first view, also one a
   * plugin adds after start-up): initialize and `server/discover` answer with them from now on;
   * a session keeps what it negotiated.
   */
  setExtensions(extensions: JsonObject | undefined): void {
    this.#capabilities = new ServerCapabilities(extensions, this.#sets);
  }

  /** `serverInfo` as initialize and the 2026 `_meta` send it. */
  get serverInfo(): DispatcherOptions['serverInfo'] {
    return this.#o.serverInfo;
  }

  /**
   * The body of a `server/discover` result before the wire adds its fields: the server card
   * and the landing page are built from this same object, so they cannot drift from it.
   */
  discovery(): JsonObject {
    const result: JsonObject = {
      supportedVersions: SUPPORTED_VERSIONS,
      capabilities: this.#capabilities.discover,
    };
    if (this.#o.instructions) result.instructions = this.#o.instructions;
    return result;
  }

  /** Deepest nesting a message may have (MCP_MAX_JSON_DEPTH), for a transport that measures as it parses. */
  get maxJsonDepth(): number {
    return this.#o.maxJsonDepth;
  }

  /** How many requests are being handled right now (graceful shutdown waits for 0). */
  get inflightCount(): number {
    return this.#running.count;
  }

  /**
   * Handles one parsed JSON value: a message or a batch. Not `async` itself, nor is
   * `#handleOne`: a request's promise is handed back as it is, without another layer of
   * promise and the microtask turns each layer costs on every call.
   */
  handle(value: unknown, ex: Exchange): Promise<Reply>;
  /** With `then`, the reply goes to it in the request's own reaction (see ReplyThen). */
  handle<R>(value: unknown, ex: Exchange, then: ReplyThen<R>): Promise<R>;
  handle<R>(value: unknown, ex: Exchange, then?: ReplyThen<R>): Promise<Reply | R> {
    if (then === undefined) {
      if (Array.isArray(value)) return this.#handleBatch(value, ex);
      return this.#handleOne(value, ex);
    }
    // A request's reply goes to `then` in its own reaction; anything else is handed on after.
    if (!Array.isArray(value) && withinDepth(value, this.#o.maxJsonDepth)) {
      const c = classify(value);
      if (c.kind === 'request') return this.#request(c.message, ex, undefined, then) as Promise<R>;
    }
    let replied: Promise<Reply>;
    try {
      replied = this.handle(value, ex);
    } catch (err) {
      replied = Promise.reject(err);
    }
    return replied.then(
      (reply) => then.done(reply),
      (err: unknown) => then.failed(err),
    );
  }

  async #handleBatch(items: unknown[], ex: Exchange): Promise<Reply> {
    const reject = (message: string): Reply => ({
      body: errorResponse(null, new ProtocolError(ErrorCode.InvalidRequest, message)),
      status: 400,
    });
    if (items.length === 0) return reject('Invalid request: an empty batch');
    // Whether the negotiated revision has batches is the wire's rule; never for initialize itself.
    const profile = ex.profile ?? classifyWire(items, ex.headers);
    const version = ex.session?.initialized ? ex.session.protocolVersion : undefined;
    if (!profile.allowsBatches(version)) {
      return reject(
        `JSON-RPC batches are not supported on protocol ${version ?? '(not initialised)'}: send one message per request`,
      );
    }
    if (items.length > this.#o.maxBatch)
      return reject(`Batch too large: at most ${this.#o.maxBatch} messages`);
    const replies = await Promise.all(items.map((item) => this.#handleOne(item, ex, profile)));
    const bodies = replies
      .map((r) => r.body)
      .filter((b): b is JsonRpcResponse => b !== undefined && !Array.isArray(b));
    return bodies.length === 0 ? {} : { body: bodies };
  }

  /** `batch`: the profile a batch of which `value` is a member was admitted on. */
  #handleOne(value: unknown, ex: Exchange, batch?: WireProfile): Promise<Reply> {
    // At the door, before anything reads, echoes or validates client data (all of which may
    // recurse): a message nested past the limit is refused as a whole. A batch's members are
    // measured one by one, each from its own top. A body the HTTP edge walked as it parsed it
    // is not walked again (json-limits.ts).
    if (!withinDepth(value, this.#o.maxJsonDepth))
      return Promise.resolve(tooDeep(value, this.#o.maxJsonDepth, this.#o.logger));
    const c = classify(value);
    if (c.kind === 'request') return this.#request(c.message, ex, batch);
    return this.#handleOther(c, ex);
  }

  async #handleOther(c: Exclude<Classified, { kind: 'request' }>, ex: Exchange): Promise<Reply> {
    switch (c.kind) {
      case 'invalid':
        return {
          body: errorResponse(
            c.id,
            new ProtocolError(ErrorCode.InvalidRequest, `Invalid request: ${c.reason}`),
          ),
          status: 400,
        };
      case 'response':
        if (ex.session) this.#o.hub.clientRequests.deliver(ex.session.id, c.message);
        return {};
      case 'notification':
        await this.#notification(c.message.method, c.message.params, ex);
        return {};
    }
  }

  async #notification(method: string, params: JsonObject | undefined, ex: Exchange): Promise<void> {
    if (method === 'notifications/initialized') return;
    if (method === 'notifications/cancelled' && ex.session) {
      const id = params?.requestId;
      // Here or on the replica running it (CancelRelay.cancel relays what is not running here).
      if (isId(id)) this.#o.hub.cancels.cancel(ex.session.id, id);
    }
    // Other notifications (roots/list_changed, progress, ...) need no action here.
  }

  /**
   * Not `async`, as `handle`: the handler's promise gets one reaction for both outcomes (in
   * `#handleRequest`), which ends the request too (`Finish`), with no promise of this method's
   * own awaiting it. Whatever throws still rejects.
   */
  #request(
    req: JsonRpcRequest,
    ex: Exchange,
    batch: WireProfile | undefined,
    then?: ReplyThen<unknown>,
  ): Promise<Reply> {
    let finish: Finish;
    try {
      // The wire profile, chosen once: as the transport classified the message, else here (a
      // stream of messages, stdio). A batch's members are on the wire that admitted the batch.
      const profile = batch ?? ex.profile ?? classifyWire(req, ex.headers);
      // The request's one record: the observer and the request context both read it.
      const record = requestRecord(req, ex, profile, this.#o.registry);
      // Every request is observed (span, log line, metrics), refused ones included, and handled
      // inside its span's context (handlers' own spans and instrumented clients are its children).
      const observed = this.#o.observe?.start(record);
      // A session with a request in flight is not idle, however long the request runs.
      const release = ex.session === undefined ? undefined : this.#o.sessions.hold(ex.session);
      finish = new Finish(this.#o.logger, req, record, observed, release, then);
    } catch (err) {
      if (then === undefined) return Promise.reject(err);
      try {
        return Promise.resolve(then.failed(err) as Reply);
      } catch (thrown) {
        return Promise.reject(thrown);
      }
    }
    try {
      const observed = finish.observed;
      return observed
        ? observed.run(() => this.#handleRequest(req, ex, finish, observed.span))
        : this.#handleRequest(req, ex, finish);
    } catch (err) {
      return finish.settle(err);
    }
  }

  /**
   * One request on its wire: the profile's checks choose the handler (or a builtin), the
   * handler runs, and the profile completes the result with what its wire's results carry.
   */
  #handleRequest(req: JsonRpcRequest, ex: Exchange, finish: Finish, span?: Span): Promise<Reply> {
    // Not `async`: every request passes here, and an async layer costs its promise and the
    // turns to settle it; the method's promise gets one reaction instead, which ends the
    // request too (`finish`). What throws is answered as a failure.
    const record = finish.record;
    try {
      const profile = record.profile;
      const route = profile.route(req, ex, record, this.#methods);
      if (route === 'initialize') {
        const { sessions, serverInfo, instructions } = this.#o;
        return initialize(req, ex, profile, {
          sessions,
          capabilities: this.#capabilities,
          serverInfo,
          instructions,
        }).then(
          (reply) => finish.replied(reply),
          (err: unknown) => finish.failed(err),
        );
      }
      if (route === 'ping') return finish.settle(undefined, this.#answer(req, profile, {}));
      if (route === 'discover') return finish.settle(undefined, this.#answer(req, profile, this.discovery()));
      const session = profile.sessions ? ex.session : undefined;
      const ctx = new RequestContext(record, {
        session,
        channel: ex.channel,
        logger: this.#o.logger,
        upstreamTokens: this.#o.upstreamTokens,
        span,
      });
      // Entered once, here rather than in an async function of its own (a promise and an await
      // less per call): the client going away (HTTP connection closed, stdio connection
      // closed) and, on the 2025 wire, notifications/cancelled of `scope` find it and abort it.
      const presence = ex.presence;
      const scope = session?.id;
      this.#running.enter(ctx, req.id, presence, scope);
      let running: Promise<JsonObject>;
      try {
        // No middleware (the common case): no lookup.
        const hooks = this.#hooks.size === 0 ? undefined : this.#hooks.get(req.method);
        running =
          hooks === undefined
            ? route(req.params, ctx, this.#deps)
            : withMiddleware(hooks, req, ctx, this.#o.registry, (params) => route(params, ctx, this.#deps));
      } catch (err) {
        running = Promise.reject(err);
      }
      return running.then(
        (result) => {
          this.#running.leave(ctx, req.id, presence, scope);
          return finish.replied(silenced(ctx, ex) ? {} : this.#answer(req, profile, result));
        },
        (err: unknown) => {
          this.#running.leave(ctx, req.id, presence, scope);
          return silenced(ctx, ex) ? finish.replied({}) : finish.failed(err);
        },
      );
    } catch (err) {
      return finish.settle(err);
    }
  }

  /** The reply to a request that succeeded, its result completed with what its wire's results carry. */
  #answer(req: JsonRpcRequest, profile: WireProfile, result: JsonObject): Reply {
    profile.completeResult(req.method, result, this.#o.serverInfo);
    return { body: success(req.id, result) };
  }
}

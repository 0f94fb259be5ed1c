/**
 * The MCP endpoint's HTTP pipeline, written once for every host (STYLE habit 13: one pipeline,
 * thin adapters). The Fastify transport (src/transports/http/routes.ts) and the fetch handler
 * (src/transports/fetch/handler.ts) each adapt it in a few lines. A request meets, in this
 * order, and the first stage that refuses answers:
 *
 *   1. Host, then Origin            403  (DNS-rebinding protection; guards.ts)       admit()
 *   2. size from Content-Length     413  (POST, before anything is read)             admit()
 *   3. auth                         401, 403, 503 (the application's `identify`,      admit()
 *                                    else an API key or an OAuth bearer token); 429
 *                                    once an address's failures pass the rate limit
 *                                    (counted-auth.ts)
 *   4. body: media type, then JSON  415, 413 past the limit as read, 400/-32700       readJson()
 *   5. rate limit                   429, 503 (one token per request in the body;      respond()
 *                                    GET and DELETE cost one)
 *   6. method                       405 (PUT, PATCH, ...; GET and DELETE where the    respond()
 *                                    host keeps no sessions)
 *   7. Accept                       406                                               post.ts
 *   8. wire: the profile chosen     400 for an unknown MCP-Protocol-Version on the    post.ts
 *      (classifyWire), the session   2025 wire; 400/404 for a missing or unknown
 *                                    session (none kept: one made for the request)
 *   9. dispatch, then render        JSON, 202, or an SSE stream                       post.ts
 *
 * Auth runs after the Host and Origin checks, so a rebinding page learns nothing, and before
 * the body is read, so an anonymous caller cannot make the server read a large one. Every
 * refusal goes through refuse.ts: a JSON-RPC error body, a span, a count and a log line.
 */
import type { ProtocolError } from '../../base/errors.ts';
import { logEncodeFailure } from '../../base/jsonrpc.ts';
import { Refusal } from '../../base/refusals.ts';
import type { Identity } from '../../base/types.ts';
import { rateLimitError } from '../../ratelimit/errors.ts';
import { clientKey } from '../../ratelimit/limiter.ts';
import type { EdgeDeps, EventStore } from '../deps.ts';
import { authenticateCounted, knownCaller } from './counted-auth.ts';
import { handleDelete } from './delete.ts';
import { createMemoryEventStore } from './event-store.ts';
import { handleGet } from './get-stream.ts';
import { hostGuard } from './guards.ts';
import type { EdgeHost, EdgeRequest } from './host.ts';
import { InFlight } from './in-flight.ts';
import type { EdgeOptions, SessionMode } from './options.ts';
import { type Failed, handlePost } from './post.ts';
import { refuse } from './refuse.ts';
import type { RouteState } from './route-state.ts';
import { authRefusal, isJsonContentType, parseBody, parseRefusal, requestCost } from './rules.ts';

/** What `respond` gives back for a POST that answers its own failures (nothing to watch). */
const HANDLED: Promise<unknown> = Promise.resolve();

/** The pipeline for one endpoint, served by one host. */
export interface Edge<Req extends EdgeRequest = EdgeRequest, Res = unknown> {
  /**
   * Stages 1 to 3, before the body is read: undefined to go on, the refusal to send, or a
   * promise of either (only while auth runs, so a request without auth costs no promise).
   * The caller sends the refusal with `refuse(req, res, refusal, null)`.
   */
  admit(req: Req): ProtocolError | undefined | Promise<ProtocolError | undefined>;
  /** Stages 1 and 2 alone (for the routes beside the endpoint, which authenticate on their own). */
  screen(req: Req): ProtocolError | undefined;
  /** Stage 4: the body's text as JSON; throws the refusal (a ProtocolError) instead. */
  readJson(contentType: string | undefined, text: string): unknown;
  /** Stages 5 to 9 once the body is in `req.body`; resolves once answered. */
  respond(req: Req, res: Res): Promise<unknown>;
  /**
   * `respond` for a host that waits for nothing: a failure goes to `failed` instead of a
   * rejection (a POST then costs no reaction of the host's own).
   */
  answer(req: Req, res: Res, failed: (res: Res, err: unknown) => void): void;
  /** Sends a refusal and records it; `id` to echo (default: the body's). Returns `res`. */
  refuse(req: Req, res: Res, err: ProtocolError, id?: unknown): unknown;
  /** The SSE event store behind resumption. */
  readonly store: EventStore;
  /** The largest body read (stage 4 refuses past it, as read). */
  readonly maxBodyBytes: number;
  /**
   * Stops every request being dispatched now with `reason` as its answer (a JSON-RPC error,
   * with its HTTP status while the reply is still JSON): a drain past its deadline calls it so
   * that no call is left without an answer when the connections close.
   */
  interrupt(reason: ProtocolError): void;
}

export interface EdgeSetup<Req extends EdgeRequest, Res> {
  readonly deps: EdgeDeps;
  readonly options: EdgeOptions;
  readonly host: EdgeHost<Req, Res>;
  /** How the 2025 wire's sessions are kept. */
  readonly sessions: SessionMode;
  /** Default: the server's (`deps.eventStore`, shared by replicas), else one in memory. */
  readonly eventStore?: EventStore | undefined;
  /** Events kept per stream by the in-memory event store. */
  readonly eventRetention: number;
  /**
   * The embedding application's own word on who the caller is (its auth ran before ours): an
   * identity, with its scopes, or undefined to leave it to the server's authenticator (none:
   * anonymous). Runs at stage 3, in place of auth when it answers.
   */
  /**
   * Where the ends of call streams still being written go (the last event stored, the stream
   * released), so that a drain waits for them before the replica lets go of its shared state.
   */
  readonly finishing?: Set<Promise<void>> | undefined;
  readonly identify?: ((req: Req) => Identity | undefined | Promise<Identity | undefined>) | undefined;
}

/**
 * @example
 * const edge = createEdge({ deps, options: edgeOptions(http), host, sessions: 'stateful', eventRetention: 1000 });
 * const refusal = edge.admit(req); // then the body, then edge.respond(req, res)
 */
export function createEdge<Req extends EdgeRequest, Res>(setup: EdgeSetup<Req, Res>): Edge<Req, Res> {
  const { deps, options } = setup;
  const guard = hostGuard(options.hosts);
  const maxBody = options.limits.maxBodyBytes;
  const maxJsonDepth = deps.dispatcher.maxJsonDepth;
  const store =
    setup.eventStore ?? deps.eventStore ?? createMemoryEventStore({ retention: setup.eventRetention });
  const state: RouteState = {
    deps,
    options,
    host: setup.host as EdgeHost,
    store,
    sessions: setup.sessions,
    encodeFailed: logEncodeFailure(deps.logger),
    live: new Map(),
    standalone: new Map(),
    retiredStandalone: new Map(),
    openStreams: new Map(),
    dispatching: new InFlight(),
    finishing: setup.finishing ?? new Set(),
  };
  const { auth, limiter, logger } = deps;
  const limited = limiter !== undefined && limiter.burst > 0;
  const stateful = setup.sessions === 'stateful';

  const { identify } = setup;
  const byIdentity = (
    req: Req,
    identity: Identity | undefined,
  ): ProtocolError | undefined | Promise<ProtocolError | undefined> => {
    if (identity === undefined) return authenticated(req);
    req.mcpIdentity = identity;
    return undefined;
  };
  /** Stage 3 with the application's `identify` first: its identity, else our auth. */
  const identified = (req: Req): ProtocolError | undefined | Promise<ProtocolError | undefined> => {
    let given: Identity | undefined | Promise<Identity | undefined>;
    try {
      given = (identify as NonNullable<typeof identify>)(req);
    } catch (err) {
      return authRefusal(err, logger);
    }
    if (!(given instanceof Promise)) return byIdentity(req, given);
    return given.then(
      (identity) => byIdentity(req, identity),
      (err: unknown) => authRefusal(err, logger),
    );
  };

  const authenticated = (req: Req): Promise<ProtocolError | undefined> | undefined => {
    if (auth === undefined) return undefined;
    // Credentials accepted before: no promise, nor the turns it costs (counted-auth.ts).
    const known = knownCaller(deps, req.headers, req.ip);
    if (known !== undefined) {
      req.mcpIdentity = known;
      return undefined;
    }
    return authenticateCounted(deps, req.headers, req.ip).then((outcome) => {
      if (outcome.refusal) return outcome.refusal;
      req.mcpIdentity = outcome.identity;
      return undefined;
    });
  };

  /** Stages 1 and 2: a body is read for any method but GET and HEAD, so it is measured for them. */
  function screen(req: Req): ProtocolError | undefined {
    const host = req.headers.host as string | undefined;
    if (!guard.hostAllowed(host)) return Refusal.hostNotAllowed(host);
    const origin = req.headers.origin as string | undefined;
    if (!guard.originAllowed(origin)) return Refusal.originNotAllowed(origin);
    if (
      req.method !== 'GET' &&
      req.method !== 'HEAD' &&
      Number(req.headers['content-length'] ?? 0) > maxBody
    ) {
      return Refusal.bodyTooLarge(maxBody);
    }
    return undefined;
  }

  async function limitedRespond(req: Req, res: Res, key: string, cost: number): Promise<unknown> {
    const decision = await (limiter as NonNullable<typeof limiter>).consume(key, cost);
    if (!decision.allowed) return refuse(state, req, res, rateLimitError(decision));
    return route(req, res);
  }

  function route(req: Req, res: Res, failed?: Failed): Promise<unknown> {
    switch (req.method) {
      case 'POST':
        return handlePost(state, req, res, failed);
      case 'GET':
        if (stateful) return handleGet(state, req, res);
        break;
      case 'DELETE':
        if (stateful) return handleDelete(state, req, res);
        break;
    }
    const refusal = stateful ? Refusal.methodNotAllowed() : Refusal.statelessMethodNotAllowed(req.method);
    return Promise.resolve(refuse(state, req, res, refusal, null));
  }

  /**
   * Stages 5 to 9. With `failed`, a POST that reaches its handler answers its own failures and
   * HANDLED comes back; anything else is the promise to watch.
   */
  function respond(req: Req, res: Res, failed?: Failed): Promise<unknown> {
    if (limited) {
      const cost = requestCost(req.body);
      if (cost > 0) {
        const key = clientKey(req.mcpIdentity, req.ip);
        // Buckets in this process answer at once: no promise, nor the turns it costs.
        const decision = (limiter as NonNullable<typeof limiter>).consumeNow(key, cost);
        if (decision === undefined) return limitedRespond(req, res, key, cost);
        if (!decision.allowed) return Promise.resolve(refuse(state, req, res, rateLimitError(decision)));
      }
    }
    if (failed !== undefined && req.method === 'POST') {
      handlePost(state, req, res, failed);
      return HANDLED;
    }
    return route(req, res);
  }

  return {
    store,
    maxBodyBytes: maxBody,
    screen,
    admit(req) {
      return screen(req) ?? (identify ? identified(req) : authenticated(req));
    },
    readJson(contentType, text) {
      if (!isJsonContentType(contentType)) throw Refusal.unsupportedMediaType();
      try {
        return parseBody(text, maxJsonDepth);
      } catch (err) {
        throw parseRefusal(err as Error & { code?: unknown });
      }
    },
    respond: (req, res) => respond(req, res),
    answer(req, res, failed) {
      const settled = respond(req, res, failed as Failed);
      // A POST past the rate limit takes `failed` itself; anything else is caught here.
      if (settled !== HANDLED) settled.then(undefined, (err: unknown) => failed(res, err));
    },
    refuse: (req, res, err, id) => refuse(state, req, res, err, id),
    interrupt(reason) {
      state.dispatching.interrupt(reason);
    },
  };
}

/**
 * A tool call forwarded upstream, and what the upstream asks of the client meanwhile. The
 * official client answers the upstream's `elicitation/create`, `sampling/createMessage` and
 * `roots/list` through handlers that hand each request to the call in flight on that
 * connection; the call's handler turns it into one of our input rounds (`ctx.askInput`), so
 * on the 2025 wire our client gets a server-to-client request and on the 2026 wire an
 * `input_required` result. The next round's `ctx.inputResponses` answers the upstream, and
 * the handler waits for the upstream's next request or its result.
 *
 * The upstream call outlives a 2026 round: it is held here, in this process, by a random id
 * carried in the round's (sealed) `requestState`, and given up after MCP_PROXY_INPUT_TIMEOUT_MS
 * without an answer. The protocol does not say which call an upstream request belongs to, so
 * one is routed only when exactly one call is in flight on the connection.
 */
import { randomUUID } from 'node:crypto';
import type {
  HandlerContext,
  InputRequest,
  InputRequired,
  JsonObject,
  Logger,
  LogLevel,
  ToolResult,
} from '@mcp-toolkit/server';
import {
  type Client,
  ProtocolErrorCode,
  ProtocolError as UpstreamProtocolError,
} from '@modelcontextprotocol/client';
import { toolFailure } from './errors.ts';
import { ownMeta } from './meta.ts';
import type { ProxySettings } from './settings.ts';
import { metaOf, startClientSpan, toolOutcome } from './trace.ts';

/** Our own deadline (ctx.signal) bounds a call; the client's per-request timer must not. */
const NO_CLIENT_TIMEOUT = 24 * 60 * 60 * 1000;

type AskMethod = InputRequest['method'];
type CallResult = Awaited<ReturnType<Client['callTool']>>;
type Outcome = { ok: true; value: CallResult } | { ok: false; error: unknown };
/** What a round tells our client: the upstream's unanswered requests, or the call's outcome. */
type Next = { asks: Record<string, InputRequest> } | { outcome: Outcome };

/** The client capability each upstream request needs of our caller. */
const CAPABILITY_OF: Record<AskMethod, 'elicitation' | 'sampling' | 'roots'> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** An upstream request waiting for our client's answer. */
interface Ask {
  readonly request: InputRequest;
  answer(result: JsonObject): void;
  refuse(err: Error): void;
}

/** The state a round carries: which held call it continues. */
interface RoundState {
  proxyCall: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Whether the caller declared what `request` needs (an URL elicitation needs `elicitation.url`). */
function callerCan(capabilities: JsonObject, request: InputRequest): boolean {
  const cap = capabilities[CAPABILITY_OF[request.method]];
  if (!isObject(cap)) return false;
  if (request.method === 'elicitation/create' && request.params.mode === 'url') return isObject(cap.url);
  return true;
}

/** Thrown to the upstream for a request no caller can answer: what a client without the method says. */
function refusal(message: string): Error {
  return new UpstreamProtocolError(ProtocolErrorCode.MethodNotFound, message);
}

/** One upstream tool call, held across our rounds until its result. */
export class HeldCall {
  readonly id = randomUUID();
  readonly owner: string | undefined;
  readonly abort = new AbortController();
  /** The current round's context (progress and logs go to it); undefined between 2026 rounds. */
  ctx: HandlerContext | undefined;
  /** The caller's capabilities, as of its last round. */
  capabilities: JsonObject;
  readonly #outstanding = new Map<string, Ask>();
  #seq = 0;
  /** Progress notifications sent on, awaited before the result so that none comes after it. */
  readonly sent: Promise<void>[] = [];
  #outcome: Outcome | undefined;
  /** The rounds waiting for news (two retries of one 2026 round may wait at once). */
  readonly #waiting = new Set<() => void>();
  #expiry: NodeJS.Timeout | undefined;

  /** The connection it runs on. */
  readonly inFlight: InFlight;

  constructor(ctx: HandlerContext, inFlight: InFlight) {
    this.inFlight = inFlight;
    this.owner = ctx.identity?.clientId;
    this.capabilities = ctx.clientCapabilities as JsonObject;
  }

  /** The upstream's request, routed to this call: resolves with our client's answer. */
  ask(request: InputRequest): Promise<JsonObject> {
    if (!callerCan(this.capabilities, request)) {
      return Promise.reject(
        refusal(
          `the client behind this proxy did not declare the ${CAPABILITY_OF[request.method]} capability`,
        ),
      );
    }
    return new Promise<JsonObject>((resolve, reject) => {
      const key = `upstream-${++this.#seq}`;
      this.#outstanding.set(key, {
        request,
        answer: (r) => {
          this.#outstanding.delete(key);
          resolve(r);
        },
        refuse: (err) => {
          this.#outstanding.delete(key);
          reject(err);
        },
      });
      this.#notify();
    });
  }

  settle(outcome: Outcome): void {
    this.#outcome = outcome;
    for (const ask of [...this.#outstanding.values()]) ask.refuse(new Error('the call has ended'));
    this.#notify();
  }

  /** Passes our client's answers (by the keys we asked with) to the upstream. */
  answer(responses: Readonly<Record<string, unknown>> | undefined): void {
    for (const [key, ask] of [...this.#outstanding]) {
      const r = responses?.[key];
      if (isObject(r)) ask.answer(r as JsonObject);
    }
  }

  /** The next thing to tell our client: the upstream's unanswered requests, or its outcome. */
  async next(signal: AbortSignal): Promise<Next> {
    for (;;) {
      if (this.#outstanding.size > 0) {
        return { asks: Object.fromEntries([...this.#outstanding].map(([key, ask]) => [key, ask.request])) };
      }
      if (this.#outcome !== undefined) return { outcome: this.#outcome };
      signal.throwIfAborted();
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener('abort', done);
          this.#waiting.delete(done);
          resolve();
        };
        this.#waiting.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** Gives the call up after `ms` without a round (our client never came back). */
  expireIn(ms: number, onExpiry: () => void): void {
    clearTimeout(this.#expiry);
    this.#expiry = setTimeout(onExpiry, ms);
    this.#expiry.unref();
  }

  keep(): void {
    clearTimeout(this.#expiry);
  }

  #notify(): void {
    for (const wake of [...this.#waiting]) wake();
  }
}

/**
 * The tool calls in flight on one upstream connection, and the routing of what the upstream
 * sends outside any response: its requests to the client and its log messages.
 */
export class InFlight {
  readonly #calls = new Set<HeldCall>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  add(call: HeldCall): void {
    this.#calls.add(call);
  }

  delete(call: HeldCall): void {
    this.#calls.delete(call);
  }

  /** The one call an upstream message can belong to, or undefined when none or several are running. */
  #only(): HeldCall | undefined {
    return this.#calls.size === 1 ? [...this.#calls][0] : undefined;
  }

  /** The official client's handler for the upstream's elicitation, sampling and roots requests. */
  ask(method: AskMethod, params: Record<string, unknown> | undefined): Promise<JsonObject> {
    const call = this.#only();
    if (call === undefined) {
      const why =
        this.#calls.size === 0
          ? 'it was sent outside a tool call, so there is no client to ask'
          : 'several tool calls are running on this connection and the request does not say which one it belongs to';
      this.#logger.debug({ method, inFlight: this.#calls.size }, 'upstream request not forwarded');
      return Promise.reject(refusal(`the proxy cannot forward ${method}: ${why}`));
    }
    return call.ask({ method, params: (params ?? {}) as JsonObject });
  }

  /** The upstream's `notifications/message`: the running call's log, else our own log. */
  log(params: { level: LogLevel; data?: unknown; logger?: string }): void {
    const ctx = this.#only()?.ctx;
    if (ctx !== undefined) {
      ctx.log(params.level, params.data, params.logger).catch(() => {});
      return;
    }
    this.#logger.debug({ upstreamLog: params }, 'upstream log message');
  }
}

/** The calls held between rounds, by id (a process-wide table: the state names the id). */
const held = new Map<string, HeldCall>();

/** 2025 wire: the held call of a request whose rounds run inside it, and how to give it up. */
const roundsOf = new WeakMap<HandlerContext, { call: HeldCall; end: (reason: unknown) => void }>();

/**
 * Called when a 2025-wire `tools/call` request has been answered: a call it still holds lost
 * its round (our client cancelled, answered with an error, or did not answer in time), so the
 * upstream call is cancelled instead of waiting for MCP_PROXY_INPUT_TIMEOUT_MS.
 */
export function releaseRounds(ctx: HandlerContext): void {
  const rounds = roundsOf.get(ctx);
  roundsOf.delete(ctx);
  if (rounds !== undefined && held.get(rounds.call.id) === rounds.call) {
    rounds.end(new Error('the request asking our client for input ended'));
  }
}

/** What a call needs of its upstream connection. */
export interface Connection {
  readonly inFlight: InFlight;
  client(signal: AbortSignal): Promise<Client>;
}

export interface ForwardOptions {
  /** The request's upstream connection (shared, or its session's). */
  readonly upstream: (ctx: HandlerContext) => Promise<Connection>;
  readonly name: string;
  readonly inputTimeoutMs: number;
  /** Where the upstream is, for the upstream call's span. */
  readonly settings: ProxySettings;
}

/** The client's options for the upstream call: its own signal, progress passed to the current round. */
function callOptions(call: HeldCall, ctx: HandlerContext) {
  return {
    signal: call.abort.signal,
    timeout: NO_CLIENT_TIMEOUT,
    ...(ctx.meta.progressToken !== undefined
      ? {
          resetTimeoutOnProgress: true,
          onprogress: (p: { progress: number; total?: number; message?: string }) => {
            const now = call.ctx;
            if (now !== undefined)
              call.sent.push(now.progress(p.progress, p.total, p.message).catch(() => {}));
          },
        }
      : {}),
  };
}

function toResult(r: CallResult): ToolResult<JsonObject> {
  const meta = ownMeta(r._meta);
  return {
    kind: 'tool_result',
    content: r.content as ToolResult<JsonObject>['content'] & object,
    ...(r.isError === true ? { isError: true } : {}),
    ...(r.structuredContent !== undefined && r.isError !== true
      ? { structured: r.structuredContent as JsonObject }
      : {}),
    ...(meta !== undefined ? { meta } : {}),
  };
}

function gone(): ToolResult<JsonObject> {
  return {
    kind: 'tool_result',
    isError: true,
    content: [
      {
        type: 'text',
        text: 'The upstream call this answer belongs to is no longer held by this server (it was given up after waiting for the answer, the server restarted, or the answer reached another replica). Call the tool again.',
      },
    ],
  };
}

/**
 * One round of a forwarded tool call: starts the upstream call (first round) or answers its
 * pending requests (later rounds), then waits for the upstream's next request, which ends the
 * round with `ctx.askInput`, or for its result.
 */
export async function forwardToolCall(
  o: ForwardOptions,
  args: Record<string, unknown>,
  ctx: HandlerContext,
): Promise<ToolResult<JsonObject> | InputRequired> {
  let call: HeldCall;
  if (ctx.requestState !== undefined) {
    const state = ctx.requestState as Partial<RoundState> | undefined;
    const found = typeof state?.proxyCall === 'string' ? held.get(state.proxyCall) : undefined;
    if (found === undefined || found.owner !== ctx.identity?.clientId) return gone();
    call = found;
    call.keep();
    call.capabilities = ctx.clientCapabilities as JsonObject;
    call.answer(ctx.inputResponses);
  } else {
    let client: Client;
    let connection: Connection;
    try {
      connection = await o.upstream(ctx);
      client = await connection.client(ctx.signal);
    } catch (err) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      return toolFailure(err);
    }
    call = new HeldCall(ctx, connection.inFlight);
    const started = call;
    started.inFlight.add(started);
    // The upstream call's span: a child of this first round's span, ended with the call.
    const span = startClientSpan({ method: 'tools/call', name: o.name }, o.settings, client);
    span
      .run(() =>
        client.callTool(
          { name: o.name, arguments: args, ...metaOf(span) },
          { ...callOptions(started, ctx), headers: span.headers },
        ),
      )
      .then(
        (value) => {
          span.end(toolOutcome(value));
          started.settle({ ok: true, value });
        },
        (error: unknown) => {
          span.end({ ok: false, error }, started.abort.signal.aborted);
          started.settle({ ok: false, error });
        },
      )
      // Still held, if a round is being asked: the next round picks the outcome up.
      .finally(() => started.inFlight.delete(started));
  }
  const end = (reason: unknown) => {
    call.keep();
    held.delete(call.id);
    call.inFlight.delete(call);
    call.abort.abort(reason);
  };
  call.ctx = ctx;
  let next: Next;
  try {
    next = await call.next(ctx.signal);
  } catch (err) {
    // Our client cancelled, or our deadline passed: the upstream call is cancelled too.
    end(err);
    throw err;
  } finally {
    call.ctx = undefined;
  }
  if ('outcome' in next) {
    held.delete(call.id);
    await Promise.all(call.sent.splice(0));
    if (next.outcome.ok) return toResult(next.outcome.value);
    if (ctx.signal.aborted) throw ctx.signal.reason;
    return toolFailure(next.outcome.error);
  }
  // The round ends asking our client; the upstream call waits here for the answer, given up
  // when none comes in time (a 2026 client that does not retry) or, on the 2025 wire, when
  // the request that carries the rounds ends without another round (releaseRounds).
  held.set(call.id, call);
  call.expireIn(o.inputTimeoutMs, () => end(new Error('no answer from the client in time')));
  if (ctx.wire === '2025') roundsOf.set(ctx, { call, end });
  const state: RoundState = { proxyCall: call.id };
  return ctx.askInput(next.asks, state);
}

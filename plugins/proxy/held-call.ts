/**
 * An upstream tool call in flight, and the routing of what the upstream sends outside any
 * response. The protocol does not say which call an upstream request (elicitation, sampling,
 * roots) or log message belongs to, so the proxy hands one to a call only when no other call
 * on the connection could have sent it.
 *
 * A call that has asked our client something and waited longer than PARKED_AFTER_MS for the
 * answer is *parked*: it waits on our client, not on the upstream, so a new upstream request is
 * not taken for one of its own. Without that, one abandoned 2026 round (a client that never
 * retries) would make every other caller's upstream requests ambiguous, and so refused, until
 * MCP_PROXY_INPUT_TIMEOUT_MS gave it up. A request that arrives while another call has only
 * just asked waits for that call to park (requests one call sends together arrive together).
 */
import { randomUUID } from 'node:crypto';
import type { HandlerContext, InputRequest, JsonObject, Logger, LogLevel } from '@mcp-toolkit/server';
import {
  type Client,
  ProtocolErrorCode,
  ProtocolError as UpstreamProtocolError,
} from '@modelcontextprotocol/client';

/** How long a call's question goes unanswered before the call counts as parked. */
export const PARKED_AFTER_MS = 1_000;
/** The longest an upstream request waits for the calls that have just asked to park. */
const ROUTE_WAIT_MS = 5 * PARKED_AFTER_MS;

export type AskMethod = InputRequest['method'];
export type CallResult = Awaited<ReturnType<Client['callTool']>>;
export type Outcome = { ok: true; value: CallResult } | { ok: false; error: unknown };
/** What a round tells our client: the upstream's unanswered requests, or the call's outcome. */
export type Next = { asks: Record<string, InputRequest> } | { outcome: Outcome };

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
  /** When the oldest unanswered question was asked (undefined while none is). */
  #askedAt: number | undefined;
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

  /** When the call parks (or parked), while it waits on our client; undefined while it does not. */
  parksAt(): number | undefined {
    return this.#askedAt === undefined ? undefined : this.#askedAt + PARKED_AFTER_MS;
  }

  /** The upstream's questions still unanswered, as JSON text (what holding them costs). */
  questionsSize(): number {
    let size = 0;
    for (const ask of this.#outstanding.values()) size += JSON.stringify(ask.request).length;
    return size;
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
      const done = () => {
        this.#outstanding.delete(key);
        if (this.#outstanding.size === 0) this.#askedAt = undefined;
      };
      this.#askedAt ??= Date.now();
      this.#outstanding.set(key, {
        request,
        answer: (r) => {
          done();
          resolve(r);
        },
        refuse: (err) => {
          done();
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

  /**
   * The one call an upstream message can belong to at `now`: the one call not parked, else the
   * one call in flight. `wait` says how long until a call that has just asked parks, when that
   * could settle a tie.
   */
  #owner(now: number): { call?: HeldCall; wait?: number } {
    const live: HeldCall[] = [];
    let soonest = Number.POSITIVE_INFINITY;
    for (const call of this.#calls) {
      const parksAt = call.parksAt();
      if (parksAt !== undefined && parksAt <= now) continue;
      live.push(call);
      if (parksAt !== undefined) soonest = Math.min(soonest, parksAt);
    }
    if (live.length === 1) return { call: live[0] };
    if (live.length === 0 && this.#calls.size === 1) return { call: [...this.#calls][0] };
    return Number.isFinite(soonest) && live.length > 1 ? { wait: soonest - now } : {};
  }

  /** The official client's handler for the upstream's elicitation, sampling and roots requests. */
  async ask(method: AskMethod, params: Record<string, unknown> | undefined): Promise<JsonObject> {
    const deadline = Date.now() + ROUTE_WAIT_MS;
    for (;;) {
      const now = Date.now();
      const { call, wait } = this.#owner(now);
      if (call !== undefined) return call.ask({ method, params: (params ?? {}) as JsonObject });
      if (wait === undefined || now + wait > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, wait + 1));
    }
    const why =
      this.#calls.size === 0
        ? 'it was sent outside a tool call, so there is no client to ask'
        : 'several tool calls are running on this connection and the request does not say which one it belongs to';
    this.#logger.debug({ method, inFlight: this.#calls.size }, 'upstream request not forwarded');
    throw refusal(`the proxy cannot forward ${method}: ${why}`);
  }

  /** The upstream's `notifications/message`: the running call's log, else our own log. */
  log(params: { level: LogLevel; data?: unknown; logger?: string }): void {
    const ctx = this.#owner(Date.now()).call?.ctx;
    if (ctx !== undefined) {
      ctx.log(params.level, params.data, params.logger).catch(() => {});
      return;
    }
    this.#logger.debug({ upstreamLog: params }, 'upstream log message');
  }
}

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
 * carried in the round's (sealed) `requestState`, in a table whose size is bounded per client
 * and overall (parking.ts), and given up after MCP_PROXY_INPUT_TIMEOUT_MS without an answer.
 * Which call an upstream request belongs to is decided in held-call.ts.
 */
import type { HandlerContext, InputRequired, JsonObject, Logger, ToolResult } from '@mcp-toolkit/server';
import type { Client } from '@modelcontextprotocol/client';
import { toolFailure } from './errors.ts';
import { type CallResult, HeldCall, type InFlight, type Next } from './held-call.ts';
import { ownMeta } from './meta.ts';
import { PARKED_OVERHEAD_BYTES, type Parking, parkingClient } from './parking.ts';
import type { ProxySettings } from './settings.ts';
import { metaOf, startClientSpan, toolOutcome } from './trace.ts';

/** Our own deadline (ctx.signal) bounds a call; the client's per-request timer must not. */
const NO_CLIENT_TIMEOUT = 24 * 60 * 60 * 1000;

/** The state a round carries: which held call it continues. */
interface RoundState {
  proxyCall: string;
}

/** 2025 wire: the held call of a request whose rounds run inside it, and how to give it up. */
const roundsOf = new WeakMap<
  HandlerContext,
  { call: HeldCall; parking: Parking; end: (reason: unknown) => void }
>();

/**
 * Called when a 2025-wire `tools/call` request has been answered: a call it still holds lost
 * its round (our client cancelled, answered with an error, or did not answer in time), so the
 * upstream call is cancelled instead of waiting for MCP_PROXY_INPUT_TIMEOUT_MS.
 */
export function releaseRounds(ctx: HandlerContext): void {
  const rounds = roundsOf.get(ctx);
  roundsOf.delete(ctx);
  if (rounds !== undefined && rounds.parking.get(rounds.call.id) === rounds.call) {
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
  /** The calls held for our clients' answers (one table per proxy plugin). */
  readonly parking: Parking;
  /** The plugin's logger: a call given up is logged there (its request has been answered). */
  readonly logger: Logger;
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

/** A call that asked our client for input past a bound on held calls: given up, and why. */
function parkingRefused(why: string): ToolResult<JsonObject> {
  return {
    kind: 'tool_result',
    isError: true,
    content: [
      {
        type: 'text',
        text: `The upstream asked for client input, but the call was not held for the answer: ${why}. It was cancelled upstream. Answer or abandon the calls waiting for input (they are given up after MCP_PROXY_INPUT_TIMEOUT_MS), then call the tool again.`,
      },
    ],
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
    const found = typeof state?.proxyCall === 'string' ? o.parking.get(state.proxyCall) : undefined;
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
    o.parking.delete(call.id);
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
    o.parking.delete(call.id);
    await Promise.all(call.sent.splice(0));
    if (next.outcome.ok) return toResult(next.outcome.value);
    if (ctx.signal.aborted) throw ctx.signal.reason;
    return toolFailure(next.outcome.error);
  }
  // The round ends asking our client; the upstream call waits here for the answer, given up
  // when none comes in time (a 2026 client that does not retry) or, on the 2025 wire, when
  // the request that carries the rounds ends without another round (releaseRounds).
  // Its weight: the arguments (each round of a call carries the same) and the questions.
  const bytes = PARKED_OVERHEAD_BYTES + JSON.stringify(args).length + call.questionsSize();
  const refused = o.parking.park(call, parkingClient(ctx), bytes);
  if (refused !== undefined) {
    end(new Error(refused));
    ctx.logger.warn({ tool: o.name, ...o.parking.size }, `upstream tool call not held: ${refused}`);
    return parkingRefused(refused);
  }
  call.expireIn(o.inputTimeoutMs, () => {
    end(new Error('no answer from the client in time'));
    o.logger.info(
      { tool: o.name, inputTimeoutMs: o.inputTimeoutMs },
      'upstream tool call given up: no answer from the client within MCP_PROXY_INPUT_TIMEOUT_MS',
    );
  });
  if (ctx.inputRoundsInRequest) roundsOf.set(ctx, { call, parking: o.parking, end });
  const state: RoundState = { proxyCall: call.id };
  return ctx.askInput(next.asks, state);
}

/**
 * Asking the client for input, in rounds, whichever wire (SEP-2322 on 2026; real
 * server-to-client requests on 2025). A handler returns `ctx.askInput({...}, state)`; when
 * the answers are in it runs again from the top with `ctx.inputResponses` and
 * `ctx.requestState`. Each wire profile runs its rounds (`runInput`, src/protocol/wires/):
 * - 2025: the framework sends every request of the round concurrently on the call's stream,
 *   awaits the answers (timeout, cancellation) and re-runs the handler itself.
 * - 2026: the round ends with an input-required result carrying sealed `requestState`; the
 *   client's retry (with `inputResponses`) re-runs the handler.
 */

import { ErrorCode, ProtocolError } from '../base/errors.ts';
import { isObject, type JsonObject, safeText } from '../base/jsonrpc.ts';
import type { InputRounds, RoundsFinish, RoundsOutcome } from '../execution/call.ts';
import type { InputRequest, InputRequired } from '../registry/types.ts';
import type { DeprecatedInputNotices } from './deprecated-input.ts';
import type { ClientRequests } from './hub/client-requests.ts';
import type { RequestContext } from './request-context.ts';
import type { StateCodec } from './state-codec.ts';
import type { RoundDeps } from './wires/profile.ts';

const CAPABILITY_OF: Record<InputRequest['method'], 'elicitation' | 'sampling' | 'roots'> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

export interface InputDeps {
  /** Where a 2025-wire request waits for the client's answer. */
  hub: { readonly clientRequests: ClientRequests };
  codec: StateCodec;
  inputTimeoutMs: number;
  /** Told of every round a tool asks, to warn once per tool of deprecated features (SEP-2577). */
  notices?: DeprecatedInputNotices;
}

/** -32021 (HTTP 400) when a request of the round needs a capability the client did not declare. */
export function checkCapabilities(ctx: RequestContext, round: InputRequired): void {
  const missing: Record<string, JsonObject> = {};
  for (const request of Object.values(round.requests)) {
    const cap = CAPABILITY_OF[request.method];
    if (cap === undefined) {
      throw new ProtocolError(
        ErrorCode.InternalError,
        `Unsupported input request method: ${safeText(request.method)}`,
      );
    }
    if (!isObject((ctx.clientCapabilities as JsonObject)[cap])) missing[cap] = {};
  }
  if (Object.keys(missing).length > 0) {
    throw new ProtocolError(
      ErrorCode.MissingRequiredClientCapability,
      `This request needs client capabilities the client did not declare: ${Object.keys(missing).join(', ')}`,
      { httpStatus: 400, data: { requiredCapabilities: missing } },
    );
  }
}

/**
 * What every round goes through before it reaches the client, whichever wire: the client's
 * capabilities checked (-32021), and a tool's first round that asks for sampling or roots
 * reported (deprecated-input.ts).
 */
export function admitRound(ctx: RequestContext, round: InputRequired, deps: InputDeps): void {
  checkCapabilities(ctx, round);
  if (deps.notices !== undefined && ctx.record.method === 'tools/call')
    deps.notices.onRound(ctx.record.targetName, round);
}

/** The outcome as it is: a caller without a `finish` of its own gets the outcome, or the rejection. */
const AS_IS: RoundsFinish<unknown, RoundsOutcome<unknown>> = {
  done: (outcome) => outcome,
  failed: (err) => {
    throw err;
  },
};

/**
 * The input rounds the call wrapper (src/execution/call.ts) runs handlers in.
 *
 * @example
 * new Caller({ input: createInputRounds({ hub, codec, inputTimeoutMs: 300_000 }), toolTimeoutMs: 60_000 });
 */
export function createInputRounds(deps: InputDeps): InputRounds<RequestContext> {
  const rounds: RoundDeps<RequestContext> = {
    clientRequests: deps.hub.clientRequests,
    codec: deps.codec,
    inputTimeoutMs: deps.inputTimeoutMs,
    admit: (ctx, round) => admitRound(ctx, round, deps),
  };
  // How a round reaches the client is the request's wire profile's (src/protocol/wires/).
  function run<T, R>(
    ctx: RequestContext,
    params: JsonObject | undefined,
    attempt: () => Promise<T | InputRequired>,
    finish?: RoundsFinish<T, R>,
  ): Promise<R | RoundsOutcome<T>> {
    const then = finish ?? (AS_IS as RoundsFinish<T, RoundsOutcome<T>>);
    return ctx.record.profile.runInput<RequestContext, T, R | RoundsOutcome<T>>(
      ctx,
      params,
      rounds,
      attempt,
      then,
    );
  }
  return { run } as InputRounds<RequestContext>;
}

/**
 * Asking the client for input, in rounds, whichever wire (SEP-2322 on 2026; real
 * server-to-client requests on 2025). A handler returns `ctx.askInput({...}, state)`; when
 * the answers are in it runs again from the top with `ctx.inputResponses` and
 * `ctx.requestState`.
 * - 2025: the framework sends every request of the round concurrently on the call's stream,
 *   awaits the answers (timeout, cancellation) and re-runs the handler itself.
 * - 2026: the round ends with an input-required result carrying sealed `requestState`; the
 *   client's retry (with `inputResponses`) re-runs the handler.
 */

import { ErrorCode, ProtocolError } from '../base/errors.ts';
import { isObject, type JsonObject, safeText } from '../base/jsonrpc.ts';
import type { InputRounds } from '../execution/call.ts';
import { isInputRequired } from '../execution/results.ts';
import type { InputRequest, InputRequired } from '../registry/types.ts';
import type { ClientRequests } from './hub/client-requests.ts';
import type { RequestContext } from './request-context.ts';
import type { StateCodec } from './state-codec.ts';

const CAPABILITY_OF: Record<InputRequest['method'], 'elicitation' | 'sampling' | 'roots'> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** Rounds a 2025-wire call may take before we call it a loop. */
const MAX_ROUNDS = 16;

export interface InputDeps {
  /** Where a 2025-wire request waits for the client's answer. */
  hub: { readonly clientRequests: ClientRequests };
  codec: StateCodec;
  inputTimeoutMs: number;
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

/** What binds sealed state to one request: the method and its target. */
function bindingOf(ctx: RequestContext, params: JsonObject | undefined): string {
  const target = params?.name ?? params?.uri ?? '';
  return `${ctx.method}\u0000${safeText(target)}`;
}

/**
 * The client's answers by key, keeping only result objects: an answer of another type (a
 * number, null) counts as no answer, so the handler asks again (SEP-2322: validate
 * inputResponses). Undefined when nothing usable came back.
 */
export function wellFormedResponses(value: unknown): Record<string, JsonObject> | undefined {
  if (!isObject(value)) return undefined;
  const out: Record<string, JsonObject> = {};
  for (const [key, answer] of Object.entries(value)) if (isObject(answer)) out[key] = answer;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Runs `attempt` until it returns something other than an input round.
 * On 2026 returns either the final value or the input-required result object.
 */
async function runWithInput<T>(
  ctx: RequestContext,
  params: JsonObject | undefined,
  deps: InputDeps,
  attempt: () => Promise<T | InputRequired>,
): Promise<{ value: T } | { inputRequired: JsonObject }> {
  if (ctx.wire === '2026') {
    const bind = bindingOf(ctx, params);
    if (params?.requestState !== undefined) ctx.requestState = deps.codec.open(params.requestState, bind);
    ctx.inputResponses = wellFormedResponses(params?.inputResponses);
    const out = await attempt();
    if (!isInputRequired(out)) return { value: out };
    checkCapabilities(ctx, out);
    return {
      inputRequired: {
        resultType: 'input_required',
        inputRequests: out.requests as unknown as JsonObject,
        requestState: deps.codec.seal(out.state, bind),
      },
    };
  }
  for (let round = 0; ; round++) {
    const out = await attempt();
    if (!isInputRequired(out)) return { value: out };
    if (round >= MAX_ROUNDS) {
      throw new ProtocolError(
        ErrorCode.InternalError,
        `Handler asked for input more than ${MAX_ROUNDS} times`,
      );
    }
    checkCapabilities(ctx, out);
    const channel = ctx.channel;
    const scope = ctx.session?.id;
    if (!channel || scope === undefined) {
      throw new ProtocolError(
        ErrorCode.InternalError,
        'This transport cannot carry server-to-client requests',
      );
    }
    const entries = Object.entries(out.requests);
    // One failed request ends the round: its siblings are cancelled rather than left waiting.
    const sibling = new AbortController();
    const signal = AbortSignal.any([ctx.signal, sibling.signal]);
    const answers = await Promise.all(
      entries.map(([, req]) =>
        deps.hub.clientRequests.request(scope, channel, req.method, req.params, {
          timeoutMs: deps.inputTimeoutMs,
          signal,
        }),
      ),
    ).catch((err: unknown) => {
      sibling.abort();
      throw err;
    });
    const byKey: Record<string, unknown> = {};
    entries.forEach(([key], i) => {
      byKey[key] = answers[i];
    });
    ctx.inputResponses = byKey;
    ctx.requestState = out.state;
  }
}

/**
 * The input rounds the call wrapper (src/execution/call.ts) runs handlers in.
 *
 * @example
 * new Caller({ input: createInputRounds({ hub, codec, inputTimeoutMs: 300_000 }), toolTimeoutMs: 60_000 });
 */
export function createInputRounds(deps: InputDeps): InputRounds<RequestContext> {
  return { run: (ctx, params, attempt) => runWithInput(ctx, params, deps, attempt) };
}

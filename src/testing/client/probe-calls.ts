/** A tool call through the kit's client, with the input rounds of the 2026 wire (SEP-2322). */
import { isObject, type JsonObject } from '../../base/jsonrpc.ts';
import type { Answer } from './answer.ts';
import { answerFor, type ClientAnswers, type ClientCapability } from './client-answers.ts';

/** Input rounds a 2026 call may take before the kit stops answering. */
const MAX_INPUT_ROUNDS = 8;

/** What a call reads of the kit's client (probe-client.ts, which calls it through `callTool`). */
export interface CallingClient {
  readonly callTimeoutMs: number;
  readonly clientCapabilities: readonly ClientCapability[];
  readonly clientAnswers: ClientAnswers;
  request(method: string, params: JsonObject, options: { timeoutMs: number }): Promise<Answer>;
}

/**
 * Calls a tool on the client's wire with the per-call timeout (`extra` params on every round).
 * On 2026, an input-required result whose every request this client can answer is retried with
 * the answers, up to a few rounds; what it cannot answer is returned as it came.
 */
export async function callWithInput(
  client: CallingClient,
  name: string,
  args: unknown,
  options: { timeoutMs?: number; extra?: JsonObject } = {},
): Promise<Answer> {
  const params: JsonObject = { ...options.extra, name, arguments: args as JsonObject };
  const timeoutMs = options.timeoutMs ?? client.callTimeoutMs;
  let answer = await client.request('tools/call', params, { timeoutMs });
  for (let round = 0; round < MAX_INPUT_ROUNDS; round++) {
    if (answer.kind !== 'result' || answer.result.resultType !== 'input_required') return answer;
    const requests = isObject(answer.result.inputRequests) ? answer.result.inputRequests : {};
    const responses: JsonObject = {};
    for (const [k, r] of Object.entries(requests)) {
      const got = isObject(r)
        ? answerFor(String(r.method), r.params, client.clientCapabilities, client.clientAnswers)
        : undefined;
      if (got === undefined) return answer;
      responses[k] = got;
    }
    const retry: JsonObject = { ...params, inputResponses: responses };
    if (answer.result.requestState !== undefined) retry.requestState = answer.result.requestState;
    answer = await client.request('tools/call', retry, { timeoutMs });
  }
  return answer;
}

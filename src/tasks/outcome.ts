/**
 * How a task's round ends, as the fields its record takes: a result (`completed`, a tool
 * error included), a JSON-RPC error (`failed`), or an input round (`input_required`), and
 * the abort reasons that end a handler early.
 */
import { ErrorCode, InternalCode, ProtocolError, ToolkitError } from '../base/errors.ts';
import { toolFailure } from '../execution/results.ts';
import { checkCapabilities } from '../protocol/input.ts';
import type { ToolDefinition } from '../registry/define.ts';
import type { InputRequired } from '../registry/types.ts';
import type { TaskContext } from './task-context.ts';
import type { TaskRecord } from './types.ts';

/** What ended a task's round: the fields its record takes. */
export type Outcome = Partial<
  Pick<
    TaskRecord,
    | 'status'
    | 'statusMessage'
    | 'result'
    | 'error'
    | 'inputRequests'
    | 'inputKeys'
    | 'answers'
    | 'state'
    | 'rounds'
  >
>;

/** The abort reason of a task the client cancelled. */
export class TaskCancelled extends ToolkitError {
  constructor() {
    super(InternalCode.Cancelled, 'the task was cancelled');
  }
}

/** The abort reason of tasks still running when the server stops. */
export class ServerStopping extends ToolkitError {
  constructor() {
    super(InternalCode.Cancelled, 'the server stopped before the task finished');
  }
}

/**
 * The key a client sees for the handler's `key` in input round `round`: the handler's own in
 * round 1, `key~N` in round N. Injective, so keys are unique over a task's life (SEP-2663:
 * a key is never reused after its answer arrived) whatever keys the handler picks.
 */
export function wireKey(key: string, round: number): string {
  if (round > 1 || /~\d+$/.test(key)) return `${key}~${round}`;
  return key;
}

export const unknownTask = (taskId: unknown) =>
  new ProtocolError(
    ErrorCode.InvalidParams,
    `Unknown task: ${String(taskId)} (never created, expired, or not yours)`,
    {
      data: { taskId },
    },
  );

export function failureOf(err: unknown, reason: unknown, def?: ToolDefinition): Outcome {
  if (err instanceof ProtocolError)
    return { status: 'failed', error: err.toJSON(), statusMessage: err.message };
  if (
    reason instanceof ServerStopping ||
    (err instanceof ToolkitError && err.code === InternalCode.OutputInvalid)
  ) {
    const message = err instanceof Error ? err.message : String(err);
    return { status: 'failed', error: { code: ErrorCode.InternalError, message }, statusMessage: message };
  }
  // As in a plain call: a tool that throws reports an isError result the model sees (a
  // declared error with its code and data).
  return { status: 'completed', result: toolFailure(def, err) };
}

/** The handler asked for input: the task waits in `input_required` with these requests. */
export function inputRoundOf(ctx: TaskContext, record: TaskRecord, round: InputRequired): Outcome {
  const entries = Object.entries(round.requests);
  if (entries.length === 0) {
    throw new ProtocolError(ErrorCode.InternalError, `Tool ${record.tool} asked for input with no requests`);
  }
  checkCapabilities(ctx, round);
  const rounds = record.rounds + 1;
  const inputRequests: TaskRecord['inputRequests'] = {};
  const inputKeys: Record<string, string> = {};
  for (const [key, request] of entries) {
    const shown = wireKey(key, rounds);
    inputRequests[shown] = request;
    inputKeys[shown] = key;
  }
  return { status: 'input_required', inputRequests, inputKeys, answers: {}, state: round.state, rounds };
}

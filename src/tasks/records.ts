/**
 * How a task's record changes, as pure functions of the record: created, answered, cancelled,
 * settled after a round, failed when its replica died. The engine applies them through the
 * store's atomic `update` (which may retry them when another writer got there first), so they
 * must not look at anything but their arguments. Undefined means "leave the record as it is".
 */

import { randomUUID } from 'node:crypto';
import { ErrorCode } from '../base/errors.ts';
import type { JsonObject } from '../base/jsonrpc.ts';
import type { RequestContext } from '../protocol/request-context.ts';
import type { ToolDefinition } from '../registry/define.ts';
import type { Outcome } from './outcome.ts';
import { ownerOf } from './owner.ts';
import { isTerminal, type TaskRecord } from './types.ts';

/** A new `working` task for this call; `seed` carries the answers and state of rounds resolved before it. */
export function newRecord(
  def: ToolDefinition,
  args: unknown,
  ctx: RequestContext,
  o: {
    now: number;
    ttlMs: number;
    pollIntervalMs: number;
    runner: string;
    seed?: Pick<TaskRecord, 'answers' | 'state'> | undefined;
  },
): TaskRecord {
  return {
    taskId: randomUUID(),
    owner: ownerOf(ctx),
    wire: ctx.wire,
    protocolVersion: ctx.protocolVersion,
    tool: def.name,
    args,
    clientCapabilities: ctx.clientCapabilities as JsonObject,
    meta: ctx.meta,
    requestId: ctx.requestId,
    status: 'working',
    createdAt: o.now,
    lastUpdatedAt: o.now,
    ttlMs: o.ttlMs,
    pollIntervalMs: o.pollIntervalMs,
    rounds: 0,
    runner: o.runner,
    ...(ctx.sessionId === undefined ? {} : { sessionId: ctx.sessionId }),
    ...(ctx.identity === undefined ? {} : { identity: ctx.identity }),
    ...(o.seed?.answers === undefined ? {} : { answers: o.seed.answers }),
    ...(o.seed?.state === undefined ? {} : { state: o.seed.state }),
  };
}

/**
 * An `input_required` task takes the answers to its outstanding requests (unknown or answered
 * keys are ignored); once none is outstanding it is `working` again, on `runner`.
 */
export function withAnswers(
  r: TaskRecord,
  answers: Readonly<Record<string, JsonObject>>,
  now: number,
  runner: string,
): TaskRecord | undefined {
  if (r.status !== 'input_required' || !r.inputRequests) return undefined;
  const pending = { ...r.inputRequests };
  const collected = { ...r.answers };
  let took = false;
  for (const [key, answer] of Object.entries(answers)) {
    if (!(key in pending)) continue;
    collected[r.inputKeys?.[key] ?? key] = answer;
    delete pending[key];
    took = true;
  }
  if (!took) return undefined;
  const next: TaskRecord = { ...r, answers: collected, inputRequests: pending, lastUpdatedAt: now };
  if (Object.keys(pending).length === 0) {
    next.status = 'working';
    next.inputRequests = undefined;
    next.inputKeys = undefined;
    next.statusMessage = undefined;
    next.runner = runner;
  }
  return next;
}

/** Cancelled at the client's request, unless it has ended already. */
export function cancelled(r: TaskRecord, now: number): TaskRecord | undefined {
  if (isTerminal(r.status)) return undefined;
  return {
    ...r,
    status: 'cancelled',
    statusMessage: 'Cancelled at the client’s request',
    inputRequests: undefined,
    inputKeys: undefined,
    runner: undefined,
    lastUpdatedAt: now,
  };
}

/** How a round ended, recorded; a round that did not end waiting for input leaves no input state. */
export function settled(r: TaskRecord, outcome: Outcome, now: number): TaskRecord {
  const next: TaskRecord = { ...r, ...outcome, runner: undefined, lastUpdatedAt: now };
  if (outcome.status !== 'input_required') {
    next.inputRequests = undefined;
    next.inputKeys = undefined;
    next.answers = undefined;
    next.state = undefined;
  }
  return next;
}

/** A working task whose replica (`runner`) stopped renewing its lease will never finish: failed. */
export function orphaned(r: TaskRecord, runner: string, now: number): TaskRecord | undefined {
  if (r.status !== 'working' || r.runner !== runner) return undefined;
  const message = 'The server replica running this task stopped before it finished';
  return {
    ...r,
    status: 'failed',
    error: { code: ErrorCode.InternalError, message },
    statusMessage: message,
    runner: undefined,
    lastUpdatedAt: now,
  };
}

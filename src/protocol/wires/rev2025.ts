/**
 * The stateful 2025 wire (revisions 2024-11-05 to 2025-11-25): `initialize` opens a session
 * (Mcp-Session-Id over HTTP, the connection over stdio) that holds the negotiated version, the
 * client's capabilities and its log level; input rounds are real server-to-client requests on
 * the call's stream; tasks are the core tasks of 2025-11-25 (SEP-1686).
 */
import { ErrorCode, ProtocolError } from '../../base/errors.ts';
import { isObject } from '../../base/jsonrpc.ts';
import { Refusal } from '../../base/refusals.ts';
import type { ClientCapabilities } from '../../base/spec-types.ts';
import { logLevelRank } from '../../base/types.ts';
import { LATEST_2025, SUPPORTED_VERSIONS, VERSION_2026, VERSIONS_2025 } from '../../base/versions.ts';
import { isInputRequired } from '../../execution/results.ts';
import type { InputRequired } from '../../registry/types.ts';
import type { InputOutcome, RoundContext, RoundDeps, TaskWire, WireProfile } from './profile.ts';
import { created2025, task2025 } from './task-shapes.ts';
import { header } from './wire.ts';

/** Methods of the 2026 wire only. */
const ADDED_IN_2026 = new Set(['server/discover', 'subscriptions/listen']);

/** Rounds a 2025-wire call may take before we call it a loop. */
const MAX_ROUNDS = 16;

const NO_CAPABILITIES: ClientCapabilities = Object.freeze({});

// The revisions of this wire differ in a few rules; each is dated here. Revisions are dated
// strings, so a plain comparison orders them.

/** The last revision with JSON-RPC batches (added in 2025-03-26, removed in 2025-06-18). */
const LAST_WITH_BATCHES = '2025-03-26';

/** SEP-1303: from 2025-11-25 invalid tool arguments are a tool execution error, not -32602. */
const INVALID_ARGS_AS_RESULT_SINCE = '2025-11-25';

/** SEP-1699: from 2025-11-25 a reply stream may be closed early and resumed with Last-Event-ID. */
const RESUMABLE_SINCE = '2025-11-25';

/** SEP-1686: the core tasks (`params.task`, `tasks/get|result|list|cancel`) exist from 2025-11-25. */
const CORE_TASKS_VERSION = '2025-11-25';

/**
 * The version a request that names none is served at (2025-11-25 transports, "Protocol Version
 * Header": the server SHOULD assume 2025-03-26).
 */
const UNNAMED_VERSION = '2025-03-26';

function hasCoreTasks(version: string): boolean {
  return version >= CORE_TASKS_VERSION;
}

/** Negotiation (lifecycle spec): echo a supported requested version, else offer our latest. */
function negotiate(requested: unknown): string {
  return typeof requested === 'string' && (VERSIONS_2025 as readonly string[]).includes(requested)
    ? requested
    : LATEST_2025;
}

/** The TTL a 2025 client asked for in `params.task.ttl`, when it is a positive integer. */
function requestedTtl(task: unknown): number | undefined {
  const ttl = isObject(task) ? task.ttl : undefined;
  return typeof ttl === 'number' && Number.isInteger(ttl) && ttl > 0 ? ttl : undefined;
}

const tasks: TaskWire = {
  // SEP-1686: the client asks with `params.task`.
  requested: (params, ctx) => isObject(params?.task) && hasCoreTasks(ctx.protocolVersion),
  // SEP-1686 tool-level negotiation: a tool that requires a task, called without one.
  required: (tool) =>
    new ProtocolError(
      ErrorCode.MethodNotFound,
      `Tool ${tool} runs only as a task: call it with params.task (protocol ${CORE_TASKS_VERSION} or later)`,
    ),
  checkSurface(method, ctx) {
    if (!hasCoreTasks(ctx.protocolVersion) || method === 'tasks/update') {
      throw new ProtocolError(
        ErrorCode.MethodNotFound,
        `Method not found: ${method} (not on protocol ${ctx.protocolVersion})`,
      );
    }
  },
  ttlMs: (params) => requestedTtl(params?.task),
  declaredAt: hasCoreTasks,
  created: created2025,
  state: task2025,
  // SEP-1686: the cancelled task; a task already terminal cannot be cancelled (-32602).
  cancelled(task, alreadyEnded) {
    if (alreadyEnded) {
      throw new ProtocolError(ErrorCode.InvalidParams, `Task ${task.taskId} is already ${task.status}`, {
        data: { taskId: task.taskId, status: task.status },
      });
    }
    return task2025(task);
  },
  // SEP-1686: the original progressToken stays valid for the task's life.
  meta: (meta) => meta,
};

const profile: WireProfile = {
  wire: '2025',
  versions: VERSIONS_2025,
  sessions: true,
  inputRoundsInRequest: true,
  tasks,

  negotiate,

  headerVersion: (headers) => negotiate(header(headers, 'mcp-protocol-version') ?? UNNAMED_VERSION),

  allowsBatches: (version) => version !== undefined && version <= LAST_WITH_BATCHES,

  invalidArgumentsAsResult: (version) => version >= INVALID_ARGS_AS_RESULT_SINCE,

  clientFacts(_meta, session) {
    return {
      protocolVersion: session?.protocolVersion ?? '',
      clientInfo: session?.clientInfo,
      clientCapabilities: session?.clientCapabilities ?? NO_CAPABILITIES,
      logLevel: undefined,
    };
  },

  route(req, ex, _record, methods) {
    // 2025-11-25 "Lifecycle": initialize opens the session; ping is answered at any time.
    if (req.method === 'initialize') return 'initialize';
    if (req.method === 'ping') return 'ping';
    if (!ex.session?.initialized) {
      throw new ProtocolError(ErrorCode.InvalidRequest, 'Server not initialized: send initialize first');
    }
    if (ADDED_IN_2026.has(req.method)) {
      throw this.methodNotFound(`Method not found: ${req.method} (protocol ${VERSION_2026} only)`);
    }
    const handler = methods.get(req.method);
    if (!handler) throw this.methodNotFound(`Method not found: ${req.method}`);
    return handler;
  },

  methodNotFound(message) {
    return new ProtocolError(ErrorCode.MethodNotFound, message);
  },

  completeResult() {},

  // The session's level; before any logging/setLevel every message goes out.
  logs(level, _requestLevel, sessionLevel) {
    return sessionLevel === undefined || logLevelRank(level) >= logLevelRank(sessionLevel);
  },

  // The framework sends every request of the round concurrently on the call's stream, awaits
  // the answers (timeout, cancellation) and runs the handler again itself.
  runInput(ctx, _params, deps, attempt, finish) {
    return rounds2025(ctx, deps, attempt).then(
      (outcome) => finish.done(outcome),
      (err: unknown) => finish.failed(err),
    );
  },

  resumable: (session) => session.protocolVersion >= RESUMABLE_SINCE,

  versionHeaderRefusal(headers) {
    const pv = header(headers, 'mcp-protocol-version');
    return pv !== undefined && !SUPPORTED_VERSIONS.includes(pv)
      ? Refusal.unsupportedProtocolVersion(pv, SUPPORTED_VERSIONS)
      : undefined;
  },
};

export const REV2025: WireProfile = Object.freeze(profile);

/** The 2025 wire's input rounds: each one asked of the client on the call's stream, then the handler again. */
async function rounds2025<C extends RoundContext, T>(
  ctx: C,
  deps: RoundDeps<C>,
  attempt: () => Promise<T | InputRequired>,
): Promise<InputOutcome<T>> {
  for (let round = 0; ; round++) {
    const out = await attempt();
    if (!isInputRequired(out)) return { value: out };
    if (round >= MAX_ROUNDS) {
      throw new ProtocolError(
        ErrorCode.InternalError,
        `Handler asked for input more than ${MAX_ROUNDS} times`,
      );
    }
    deps.admit(ctx, out);
    const channel = ctx.channel;
    const scope = ctx.sessionId;
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
        deps.clientRequests.request(scope, channel, req.method, req.params, {
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

import type { Logger } from 'pino';
import { ErrorCode, ProtocolError } from '../base/errors.ts';
import type { JsonRpcMessage } from '../base/jsonrpc.ts';
import type { Caller } from '../execution/call.ts';
import type { OutboundChannel } from '../protocol/hub/channel.ts';
import type { ListenStreams } from '../protocol/hub/listen-streams.ts';
import type { SessionStreams } from '../protocol/hub/session-streams.ts';
import type { RequestContext } from '../protocol/request-context.ts';
import type { SessionStore } from '../protocol/session/store.ts';
import { profileOf } from '../protocol/wires/classify.ts';
import { detailed2026, task2025, withRelatedTask } from '../protocol/wires/task-shapes.ts';
import { wellFormedResponses } from '../protocol/wires/wire.ts';
import type { ToolDefinition } from '../registry/define.ts';
import type { Registry } from '../registry/registry.ts';
import {
  failureOf,
  inputRoundOf,
  type Outcome,
  ServerStopping,
  TaskCancelled,
  unknownTask,
} from './outcome.ts';
import { ownerOf } from './owner.ts';
import { cancelled, newRecord, orphaned, settled, withAnswers } from './records.ts';
import { TaskContext } from './task-context.ts';
import {
  isTerminal,
  type ReplicaLiveness,
  type TaskBus,
  type TaskEvent,
  type TaskRecord,
  type TaskStore,
} from './types.ts';

export interface TaskEngineOptions {
  registry: Registry;
  /** The call wrapper: a task's rounds run through it, as a plain call's handler does. */
  caller: Caller<RequestContext>;
  /** Where a task's notifications go (src/protocol/hub/). */
  hub: { readonly sessionStreams: SessionStreams; readonly listenStreams: ListenStreams };
  sessions: SessionStore;
  store: TaskStore;
  bus: TaskBus;
  /** Across replicas: which replicas still run; absent on one replica. */
  liveness?: ReplicaLiveness;
  logger: Logger;
  /** MCP_TASK_TTL_MS: how long a task is kept from its creation (the longest a client may ask for). */
  ttlMs: number;
  /** MCP_TASK_POLL_INTERVAL_MS: the `pollIntervalMs` hint. */
  pollIntervalMs: number;
  now?: () => number;
}

export class TaskEngine {
  readonly #o: TaskEngineOptions;
  readonly #now: () => number;
  readonly #running = new Map<string, TaskContext>();
  readonly #runs = new Set<Promise<void>>();
  readonly #waiters = new Map<string, Set<() => void>>();
  readonly #unsubscribe: () => void;
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(options: TaskEngineOptions) {
    if (!(options.ttlMs > 0) || !(options.pollIntervalMs > 0)) {
      throw new RangeError('TaskEngine: ttlMs and pollIntervalMs must be positive');
    }
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#unsubscribe = options.bus.subscribe((event) => this.#onEvent(event));
  }

  get self(): string {
    return this.#o.liveness?.self ?? 'local';
  }

  /** Tasks whose handler runs in this process now. */
  get runningCount(): number {
    return this.#running.size;
  }

  /**
   * Creates the task durably (a `tasks/get` anywhere finds it once this resolves), then starts
   * its handler. `seed` carries the answers and state of MRTR rounds resolved before the task.
   */
  async create(
    def: ToolDefinition,
    args: unknown,
    ctx: RequestContext,
    options: { ttlMs?: number; seed?: Pick<TaskRecord, 'answers' | 'state'> } = {},
  ): Promise<TaskRecord> {
    if (this.#closed)
      throw new ProtocolError(ErrorCode.ServiceUnavailable, 'The server is stopping: try again');
    const record = newRecord(def, args, ctx, {
      now: this.#now(),
      ttlMs: Math.min(options.ttlMs ?? this.#o.ttlMs, this.#o.ttlMs),
      pollIntervalMs: this.#o.pollIntervalMs,
      runner: this.self,
      seed: options.seed,
    });
    await this.#o.store.create(record);
    this.#launch(record);
    return record;
  }

  /** The caller's task, or -32602 as for an unknown id. A dead replica's task is failed first. */
  async owned(taskId: unknown, caller: Pick<RequestContext, 'identity' | 'sessionId'>): Promise<TaskRecord> {
    if (typeof taskId !== 'string' || taskId === '') {
      throw new ProtocolError(ErrorCode.InvalidParams, 'params.taskId must be a non-empty string');
    }
    const record = await this.#o.store.get(taskId);
    if (!record || record.owner !== ownerOf(caller)) throw unknownTask(taskId);
    return this.#reapIfOrphaned(record);
  }

  /** Delivers input responses to an `input_required` task; unknown or answered keys are ignored. */
  async answer(taskId: string, responses: unknown, caller: Pick<RequestContext, 'identity' | 'sessionId'>) {
    const record = await this.owned(taskId, caller);
    const answers = wellFormedResponses(responses) ?? {};
    if (record.status !== 'input_required' || Object.keys(answers).length === 0) return;
    const self = this.self;
    const res = await this.#o.store.update(taskId, (r) => withAnswers(r, answers, this.#now(), self));
    if (!res?.changed) return;
    this.#announce(res.record);
    if (res.record.status === 'working') this.#launch(res.record);
  }

  /** Cancels the caller's task wherever it runs; a terminal task is left as it is. */
  async cancel(
    taskId: string,
    caller: Pick<RequestContext, 'identity' | 'sessionId'>,
  ): Promise<{ record: TaskRecord; changed: boolean }> {
    const record = await this.owned(taskId, caller);
    if (isTerminal(record.status)) return { record, changed: false };
    const res = await this.#o.store.update(taskId, (r) => cancelled(r, this.#now()));
    if (!res) throw unknownTask(taskId);
    if (res.changed) {
      this.#running.get(taskId)?.abort(new TaskCancelled());
      this.#o.bus.publish({ type: 'cancel', taskId });
      this.#announce(res.record);
    }
    return res;
  }

  /** Resolves at the task's next change here, after `maxMs`, or when `signal` aborts. */
  waitForChange(taskId: string, signal: AbortSignal, maxMs: number): Promise<void> {
    return new Promise((resolve) => {
      let set = this.#waiters.get(taskId);
      if (!set) {
        set = new Set();
        this.#waiters.set(taskId, set);
      }
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        const s = this.#waiters.get(taskId);
        s?.delete(done);
        if (s?.size === 0) this.#waiters.delete(taskId);
        resolve();
      };
      const timer = setTimeout(done, maxMs);
      set.add(done);
      if (signal.aborted) done();
      else signal.addEventListener('abort', done, { once: true });
    });
  }

  /** The caller's tasks, newest first (2025 `tasks/list`). */
  list(caller: Pick<RequestContext, 'identity' | 'sessionId'>, cursor: string | undefined, limit: number) {
    return this.#o.store.list(ownerOf(caller), cursor, limit);
  }

  /** Of `taskIds`, those the caller owns: the ones a listen stream may follow. */
  async ownedAmong(taskIds: readonly string[], caller: Pick<RequestContext, 'identity' | 'sessionId'>) {
    const owner = ownerOf(caller);
    const records = await Promise.all(taskIds.map((id) => this.#o.store.get(id)));
    return taskIds.filter((_, i) => records[i]?.owner === owner);
  }

  /**
   * The drain of a stopping server: lets the handlers running here finish until `until` (a
   * Date.now() value), as the HTTP drain lets calls in flight finish. A task created or resumed
   * meanwhile (a load balancer still sends traffic until it sees /readyz 503) is in-flight work
   * and runs too. Then `close()`: what still runs is aborted and its task failed.
   */
  async drain(until: number): Promise<void> {
    while (this.#runs.size > 0 && this.#closing === undefined && Date.now() < until) {
      let timer: NodeJS.Timeout | undefined;
      const timeUp = new Promise<void>((r) => {
        timer = setTimeout(r, until - Date.now());
      });
      await Promise.race([Promise.allSettled([...this.#runs]), timeUp]);
      clearTimeout(timer);
    }
    await this.close();
  }

  /**
   * Stops: new tasks are refused (-32039, try again: another replica takes them), running
   * handlers are aborted and their tasks failed ("the server stopped before the task
   * finished"); resolves once that is stored. Every call gets the same promise.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true;
      for (const ctx of this.#running.values()) ctx.abort(new ServerStopping());
      // A handler that ignores its signal does not hold this up: its round rejects at the
      // abort (src/execution/cancellation.ts), and the process exits with it still running.
      await Promise.allSettled([...this.#runs]);
      this.#unsubscribe();
      for (const set of this.#waiters.values()) for (const wake of set) wake();
    })();
    return this.#closing;
  }

  #launch(record: TaskRecord): void {
    const run = this.#run(record).catch((err: unknown) =>
      this.#o.logger.error({ err, taskId: record.taskId }, 'task runner failed'),
    );
    this.#runs.add(run);
    void run.finally(() => this.#runs.delete(run));
  }

  async #run(record: TaskRecord): Promise<void> {
    const { taskId } = record;
    const def = this.#o.registry.tool(record.tool);
    if (!def) {
      const gone = new ProtocolError(ErrorCode.InternalError, `Tool ${record.tool} is no longer available`);
      await this.#settle(record, failureOf(gone, undefined));
      return;
    }
    const session =
      record.sessionId === undefined
        ? undefined
        : await this.#o.sessions.get(record.sessionId).catch(() => undefined);
    const ctx = new TaskContext({
      record,
      session,
      identity: record.identity,
      channel: this.#channelFor(record),
      logger: this.#o.logger,
      onStatusMessage: (message) => void this.#setStatusMessage(taskId, message),
    });
    this.#running.set(taskId, ctx);
    if (this.#closed) ctx.abort(new ServerStopping());
    let outcome: Outcome;
    try {
      const round = await this.#o.caller.taskRound(def, record.args, ctx, def.spec.timeoutMs ?? record.ttlMs);
      outcome =
        'input' in round
          ? inputRoundOf(ctx, record, round.input)
          : { status: 'completed', result: round.result };
    } catch (err) {
      // A cancellation has already recorded the task's status.
      if (ctx.abortReason instanceof TaskCancelled) return;
      if (!(err instanceof ProtocolError)) ctx.logger.debug({ err }, 'task handler threw');
      outcome = failureOf(err, ctx.abortReason, def);
    } finally {
      this.#running.delete(taskId);
    }
    await this.#settle(record, outcome);
  }

  /**
   * Records how a round ended, unless the task was cancelled (or failed) meanwhile. While the
   * store is unreachable it keeps trying (backing off to 5 s) for as long as the task lives;
   * a record the store lost meanwhile (a Redis restarted without persistence) is put back,
   * so a result is not lost to an outage.
   */
  async #settle(record: TaskRecord, outcome: Outcome): Promise<void> {
    const { taskId } = record;
    for (let attempt = 0; ; attempt++) {
      const now = this.#now();
      const apply = (r: TaskRecord): TaskRecord => settled(r, outcome, now);
      try {
        const res = await this.#o.store.update(taskId, (r) =>
          r.status === 'working' ? apply(r) : undefined,
        );
        if (res?.changed) this.#announce(res.record);
        if (res === undefined && record.createdAt + record.ttlMs > now) {
          const restored = apply(record);
          await this.#o.store.create(restored);
          this.#o.logger.warn({ taskId }, 'task record was lost from the store; restored with its outcome');
          this.#announce(restored);
        }
        return;
      } catch (err) {
        const deadline = this.#closed ? attempt >= 2 : record.createdAt + record.ttlMs <= now;
        if (deadline) {
          this.#o.logger.error({ err, taskId }, 'task outcome could not be stored');
          return;
        }
        if (attempt === 0)
          this.#o.logger.warn({ err, taskId }, 'task store unreachable: retrying to store the outcome');
        await new Promise((r) => setTimeout(r, Math.min(250 * 2 ** attempt, 5000)));
      }
    }
  }

  async #setStatusMessage(taskId: string, message: string): Promise<void> {
    const res = await this.#o.store
      .update(taskId, (r) =>
        r.status === 'working' && r.statusMessage !== message
          ? { ...r, statusMessage: message, lastUpdatedAt: this.#now() }
          : undefined,
      )
      .catch((err: unknown) =>
        this.#o.logger.warn({ err, taskId }, 'could not record the task status message'),
      );
    if (res?.changed) this.#announce(res.record);
  }

  /** A working task whose replica has stopped renewing its lease will never finish: fail it. */
  async #reapIfOrphaned(record: TaskRecord): Promise<TaskRecord> {
    const liveness = this.#o.liveness;
    const runner = record.runner;
    if (record.status !== 'working' || !liveness || !runner || runner === liveness.self) return record;
    if (await liveness.isAlive(runner)) return record;
    const res = await this.#o.store.update(record.taskId, (r) => orphaned(r, runner, this.#now()));
    if (res?.changed) this.#announce(res.record);
    return res?.record ?? record;
  }

  /** Where a task's notifications go: the 2025 session's stream, tagged with the task; nowhere on 2026. */
  #channelFor(record: TaskRecord): OutboundChannel | undefined {
    const sessionId = record.sessionId;
    if (!profileOf(record.wire).sessions || sessionId === undefined) return undefined;
    return {
      send: (message: JsonRpcMessage) => {
        const params = 'params' in message && message.params ? message.params : {};
        const tagged = {
          ...message,
          params: { ...params, _meta: withRelatedTask(params._meta, record.taskId) },
        };
        this.#o.hub.sessionStreams.send(sessionId, tagged as JsonRpcMessage);
      },
    };
  }

  /** Tells whoever follows the task: listen streams on every replica, the 2025 session's stream. */
  #announce(record: TaskRecord): void {
    this.#o.bus.publish({ type: 'status', task: record });
    if (profileOf(record.wire).sessions && record.sessionId !== undefined) {
      this.#o.hub.sessionStreams.send(record.sessionId, {
        jsonrpc: '2.0',
        method: 'notifications/tasks/status',
        params: task2025(record),
      });
    }
  }

  #onEvent(event: TaskEvent): void {
    if (event.type === 'cancel') {
      this.#running.get(event.taskId)?.abort(new TaskCancelled());
      return;
    }
    const { task } = event;
    // Ended elsewhere (a cancellation whose event was lost, a lease that ran out): stop here.
    if (isTerminal(task.status)) this.#running.get(task.taskId)?.abort(new TaskCancelled());
    this.#o.hub.listenStreams.publish(
      'notifications/tasks',
      (filter) => filter.taskIds?.includes(task.taskId) ?? false,
      detailed2026(task),
    );
    for (const wake of this.#waiters.get(task.taskId) ?? []) wake();
  }
}

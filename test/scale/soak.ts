/**
 * The soak's clients and its tally (test/scale/soak.test.ts): official SDK v1 clients, each a
 * session with its resumable GET stream, calling a tool that leaves one mark per run in Redis;
 * a 2026-wire client running the same tool as tasks; and an announcer of resource updates.
 * Every request is retried until it is answered, and every outcome is counted: an answer, a
 * refusal before the request reached a live replica (a refused connection, 502, 503), a call
 * answered as lost (-32044) or a task failed because its replica stopped, and anything else.
 */

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '../../src/base/errors.ts';
import { post, V2026 } from '../e2e/batteries/helpers.ts';

/** The bound on one answer, one task, one event (generous: a machine at load 20 and more). */
export const SOAK_WAIT_MS = 90_000;
/** The most attempts at one operation before the soak calls it unanswered. */
const MAX_ATTEMPTS = 400;
/** The pause between an operation's attempts (the replicas' `retry:` is 100 ms too). */
const RETRY_PAUSE_MS = 100;

export interface Tally {
  /** Operations answered (a tool result, a completed task, an announcement made). */
  answered: number;
  /** Attempts refused before reaching a live replica: sent again. */
  refused: number;
  /** Call attempts answered -32044 (lost, may be sent again): sent again. */
  readonly lost: Interrupted[];
  /** Task attempts failed because their replica stopped: run again. */
  readonly tasksStopped: Interrupted[];
  /** Progress notifications received. */
  progress: number;
  /** Keys whose run was answered with a result: each must have run exactly once. */
  readonly done: Set<string>;
  /** What must not happen: an operation never answered, a wrong answer, a stream given up. */
  readonly failures: string[];
  /** Set when the soak ends: nothing is tried again after it. */
  over: boolean;
}

/** An attempt cut off by a fault: its key, when it was sent and when it was answered. */
export interface Interrupted {
  readonly key: string;
  readonly sentAt: number;
  readonly answeredAt: number;
}

export function newTally(): Tally {
  return {
    answered: 0,
    refused: 0,
    lost: [],
    tasksStopped: [],
    progress: 0,
    done: new Set(),
    failures: [],
    over: false,
  };
}

const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
const cut = (list: Interrupted[], key: string, sentAt: number) =>
  list.push({ key, sentAt, answeredAt: Date.now() });
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** True for an attempt that never reached a live replica's handler: safe to count as refused. */
function refusal(err: unknown): boolean {
  if (err instanceof StreamableHTTPError) return err.code === 502 || err.code === 503;
  return err instanceof TypeError; // fetch failed: the connection was refused or reset
}

/** One SDK v1 client with its session, its GET stream and every resource update it got. */
export interface SoakSession {
  readonly client: Client;
  /** Updates received, per URI (more than 1: a duplicate). */
  readonly received: Map<string, number>;
  readonly sessionId: string;
  /** Closes the client and ends its stream's reconnects (see openSoakSession). */
  close(): Promise<void>;
}

export async function openSoakSession(url: string, tally: Tally): Promise<SoakSession> {
  const client = new Client({ name: 'soak', version: '1.0.0' });
  // Resume as long as the soak lasts; the replicas' `retry:` sets the pace (100 ms).
  const reconnection = {
    maxRetries: 1000,
    initialReconnectionDelay: 100,
    maxReconnectionDelay: 1000,
    reconnectionDelayGrowFactor: 1.5,
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), { reconnectionOptions: reconnection });
  const received = new Map<string, number>();
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    bump(received, n.params.uri);
  });
  client.onerror = (err) => {
    if (/Maximum reconnection attempts/.test(String(err)))
      tally.failures.push(`a stream was given up: ${err}`);
  };
  await client.connect(transport);
  const close = () => {
    // The SDK v1 transport (1.32) schedules another reconnect when one in flight at close()
    // fails, without checking that it was closed: up to maxRetries more, a second apart, which
    // kept the test's process running for minutes. It reads the options object it was given.
    reconnection.maxRetries = 0;
    return client.close();
  };
  return { client, received, sessionId: transport.sessionId ?? '', close };
}

/** Subscribes the session to `uris`, each attempt retried until answered. */
export async function subscribeAll(session: SoakSession, uris: readonly string[], tally: Tally) {
  for (const uri of uris) {
    await retried(tally, `subscribe ${uri}`, async () => {
      await session.client.subscribeResource({ uri });
      return 'answered';
    });
  }
}

type Outcome = 'answered' | 'again';

/** Runs `attempt` until it says answered; a refusal is counted and tried again. */
async function retried(tally: Tally, what: string, attempt: (n: number) => Promise<Outcome>) {
  for (let n = 0; n < MAX_ATTEMPTS && !tally.over; n++) {
    let outcome: Outcome;
    try {
      outcome = await attempt(n);
    } catch (err) {
      if (!refusal(err)) {
        tally.failures.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
        return;
      }
      tally.refused++;
      outcome = 'again';
    }
    if (outcome === 'answered') {
      tally.answered++;
      return;
    }
    await pause(RETRY_PAUSE_MS);
  }
  if (!tally.over) tally.failures.push(`${what}: not answered in ${MAX_ATTEMPTS} attempts`);
}

export interface CallHooks {
  /** How long attempt `n` holds before its run (default 0). */
  readonly holdMs?: (n: number) => number;
  /** Each progress notification of attempt `n`. */
  readonly onProgress?: (n: number, progress: number) => void;
  /** Attempt `n` was answered -32044. */
  readonly onLost?: (n: number) => void;
}

/**
 * One call of `soak_effect` (key `<op>-a<attempt>`), with progress, held for `holdMs`; a -32044
 * answer is counted and the call sent again under a new key, as an idempotent tool's client does.
 */
export function callEffect(
  session: SoakSession,
  tally: Tally,
  op: string,
  hooks: CallHooks = {},
): Promise<void> {
  return retried(tally, `call ${op}`, async (n) => {
    const key = `${op}-a${n}`;
    const sentAt = Date.now();
    try {
      const result = await session.client.callTool(
        { name: 'soak_effect', arguments: { key, steps: 3, holdMs: hooks.holdMs?.(n) ?? 0 } },
        undefined,
        {
          timeout: SOAK_WAIT_MS,
          onprogress: (p) => {
            tally.progress++;
            hooks.onProgress?.(n, p.progress);
          },
        },
      );
      const text = (result.content as { type: string; text?: string }[])[0]?.text ?? '';
      if (result.isError || !text.startsWith(`ran ${key} `)) {
        tally.failures.push(`call ${key} answered ${JSON.stringify(result)}`);
      } else {
        tally.done.add(key);
      }
      return 'answered';
    } catch (err) {
      if (err instanceof McpError && err.code === ErrorCode.RequestLost) {
        cut(tally.lost, key, sentAt);
        hooks.onLost?.(n);
        return 'again';
      }
      throw err;
    }
  });
}

const TASKS_CAPABILITIES = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
let nextId = 1;

/** A stateless 2026-wire request declaring the tasks extension. */
export function request2026(url: string, method: string, params: Record<string, unknown>) {
  const headers: Record<string, string> = { 'mcp-protocol-version': V2026, 'mcp-method': method };
  const name = params.taskId ?? params.name;
  if (typeof name === 'string') headers['mcp-name'] = name;
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': V2026,
    'io.modelcontextprotocol/clientCapabilities': TASKS_CAPABILITIES,
  };
  return post(url, { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta } }, headers);
}

type Reply = Awaited<ReturnType<typeof request2026>>;
const resultOf = (r: Reply) => (r.body as { result?: Record<string, unknown> } | undefined)?.result;

/** A refused attempt (502 from the balancer, 503 while Redis is away) throws as a refusal. */
function checked(r: Reply): Reply {
  if (r.status === 502 || r.status === 503) throw new StreamableHTTPError(r.status, 'refused');
  return r;
}

/**
 * `soak_effect` as a task, created on any replica and polled on any until it ends; a task
 * failed because its replica stopped is counted and run again under a new key.
 */
export function runTask(url: string, tally: Tally, op: string, holdMs: number): Promise<void> {
  return retried(tally, `task ${op}`, async (n) => {
    const key = `${op}-a${n}`;
    const sentAt = Date.now();
    const created = checked(
      await request2026(url, 'tools/call', { name: 'soak_effect', arguments: { key, steps: 0, holdMs } }),
    );
    const taskId = resultOf(created)?.taskId;
    if (typeof taskId !== 'string') {
      tally.failures.push(`task ${key}: created ${created.status} ${JSON.stringify(created.body)}`);
      return 'answered';
    }
    const deadline = Date.now() + SOAK_WAIT_MS;
    while (Date.now() < deadline) {
      const got = await request2026(url, 'tasks/get', { taskId }).catch(() => undefined);
      const task = got?.status === 200 ? resultOf(got) : undefined;
      if (task?.status === 'completed') {
        if (!JSON.stringify(task).includes(`ran ${key} `)) {
          tally.failures.push(`task ${key} completed with ${JSON.stringify(task)}`);
        } else tally.done.add(key);
        return 'answered';
      }
      if (task?.status === 'failed') {
        // Stopped with its replica: by a SIGKILL (another replica fails it once the lease
        // lapses) or a SIGTERM (the drain fails it at once); checked against the faults below.
        if (
          /replica running this task stopped|the server stopped before the task finished/.test(
            JSON.stringify(task),
          )
        ) {
          cut(tally.tasksStopped, key, sentAt);
          return 'again';
        }
        tally.failures.push(`task ${key} failed: ${JSON.stringify(task)}`);
        return 'answered';
      }
      if (task !== undefined && task.status !== 'working') {
        tally.failures.push(`task ${key}: ${JSON.stringify(task)}`);
        return 'answered';
      }
      await pause(200);
    }
    tally.failures.push(`task ${key} (${taskId}) did not end within ${SOAK_WAIT_MS} ms`);
    return 'answered';
  });
}

/** Announces an update of `uri` from whichever replica the balancer picks, until one answers. */
export function announce(url: string, tally: Tally, uri: string): Promise<void> {
  return retried(tally, `announce ${uri}`, async () => {
    const r = checked(await request2026(url, 'tools/call', { name: 'touch_resource', arguments: { uri } }));
    if (r.status !== 200 || resultOf(r) === undefined) {
      tally.failures.push(`announce ${uri}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    return 'answered';
  });
}

/**
 * Whether the server is still there, and starting it again when it is not: the kit's client
 * watches every answer that may mean the server is gone (a broken link, no answer, a failed
 * connection) and, over stdio, `restart()` opens a new process and calls `rehandshake` here.
 */
import type { JsonObject } from '../../base/jsonrpc.ts';
import { type Answer, describeAnswer } from './answer.ts';
import type { Link } from './link.ts';
import type { Wire } from './probe-wire.ts';

/** What the watch reads of the kit's client (probe-client.ts, which watches every answer). */
export interface WatchedClient {
  readonly stopped: string | undefined;
  /** Whether a handshake completed on this connection. */
  readonly connected: boolean;
  readonly link: Link;
  markStopped(reason: string): void;
  nextId(): number;
  envelope(params: JsonObject | undefined): JsonObject;
  raw(message: JsonObject, options: { wire: Wire; liveness: true }): Promise<Answer>;
}

/** What a new handshake reads and resets of the kit's client (its `restart()`). */
export interface RestartedClient {
  readonly link: Link;
  readonly wire: Wire | undefined;
  readonly protocolVersion: string | undefined;
  initializeResult: JsonObject | undefined;
  discoverResult: JsonObject | undefined;
  initialize(protocolVersion: string | undefined): Promise<Answer>;
  discover(): Promise<Answer>;
  notify(method: string, params: undefined, options: { wire: Wire }): Promise<unknown>;
}

/**
 * After an answer that may mean the server is gone. A broken link (a process that exited) is the
 * stop itself; otherwise a liveness probe (`ping`, `server/discover` on 2026) decides: a server
 * that answers it, even with an error or a bare HTTP status, is alive, and only that request went
 * unanswered. Nothing is judged before a handshake completed (that is the connection's failure).
 */
export async function watchAnswer(client: WatchedClient, answer: Answer, wire: Wire): Promise<void> {
  if (client.stopped !== undefined || !client.connected) return;
  if (answer.kind !== 'timeout' && answer.kind !== 'closed') return;
  if (client.link.failure !== undefined) return client.markStopped(client.link.failure);
  const probe: JsonObject =
    wire === '2026'
      ? { jsonrpc: '2.0', id: client.nextId(), method: 'server/discover', params: client.envelope({}) }
      : { jsonrpc: '2.0', id: client.nextId(), method: 'ping' };
  const alive = await client.raw(probe, { wire, liveness: true });
  if (alive.kind === 'result' || alive.kind === 'error' || alive.kind === 'http') return;
  client.markStopped(
    client.link.failure ??
      `it answered neither that request (${describeAnswer(answer)}) nor a ${String(probe.method)} sent after it (${describeAnswer(alive)})`,
  );
}

/**
 * Ends the old connection, keeps what it wrote to stdout on record (stdout purity is judged over
 * the whole run), and completes the handshake of the wire in use on the new one. False when the
 * new process does not answer it.
 */
export async function rehandshake(client: RestartedClient, old: Link): Promise<boolean> {
  await old.close();
  (client.link.junk as string[]).push(...old.junk);
  const wire = client.wire ?? '2025';
  const version = client.protocolVersion;
  client.initializeResult = undefined;
  client.discoverResult = undefined;
  if (wire === '2026') return (await client.discover()).kind === 'result';
  const init = await client.initialize(version);
  if (init.kind !== 'result') return false;
  await client.notify('notifications/initialized', undefined, { wire: '2025' });
  return true;
}

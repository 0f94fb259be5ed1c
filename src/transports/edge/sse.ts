/**
 * Server-Sent Events on a host's stream sink (host.ts: a Node response, a fetch Response's
 * body). A stream may be resumable (2025 wire): its events are stored with ids, and when the
 * client's connection drops the stream lives on, so a GET with `Last-Event-ID` can attach a
 * new connection and receive the rest.
 */
import type { RequestId } from '../../base/jsonrpc.ts';
import {
  type EncodeFailure,
  encodeMessage,
  type JsonRpcMessage,
  logEncodeFailure,
} from '../../base/jsonrpc.ts';
import type { OutboundChannel } from '../../protocol/hub/channel.ts';
import type { EventStore, StoredEvent } from '../deps.ts';
import type { StreamSink } from './host.ts';

/** The headers of an event stream (a Node host adds `connection: keep-alive`; hop-by-hop, a fetch runtime's own). */
export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
});

/** One SSE event carrying `data` (a JSON-RPC message, or '' for a priming event). */
export function frame(data: string, id: string | undefined, retryMs?: number): string {
  let out = '';
  if (id !== undefined) out += `id: ${id}\n`;
  if (retryMs !== undefined) out += `retry: ${retryMs}\n`;
  out += `event: message\ndata: ${data}\n\n`;
  return out;
}

/** A stored event as a frame; '' for one that cannot be serialised (never the case for what #write stored). */
function storedFrame(e: { id: string | undefined; message: StoredEvent['message'] }): string {
  const data = e.message === undefined ? '' : encodeMessage(e.message);
  return data === undefined ? '' : frame(data, e.id);
}

export interface SseStreamOptions {
  store?: EventStore;
  streamId: string;
  keepAliveMs: number;
  /** `retry:` hint of the priming event; no priming event when undefined. */
  primeRetryMs?: number;
  /** Events a resuming client missed, written (with their ids) before anything new. */
  replay?: readonly StoredEvent[];
  /** Told when a message cannot be serialised (it is replaced by an error, or dropped) or a write fails. */
  logger?: { error(fields: object, message: string): void };
  /** The request this stream answers (a POST's reply stream), stored with its events. */
  answers?: RequestId;
  /**
   * How long an event no connection takes is kept trying to be stored while the store is out
   * of reach (the client gets it when it resumes). Default 120000.
   */
  storeRetryMs?: number;
}

/** Node and Bun let a process exit with a keep-alive timer pending; other runtimes have no unref. */
function unref(timer: ReturnType<typeof setInterval>): void {
  (timer as { unref?: () => void }).unref?.();
}

/** The longest wait between two tries to store an event (they back off from 250 ms). */
const MAX_STORE_BACKOFF_MS = 5000;

export class SseStream implements OutboundChannel {
  readonly streamId: string;
  readonly #o: SseStreamOptions;
  readonly #encodeFailed: EncodeFailure | undefined;
  #res: StreamSink | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #chain: Promise<unknown> = Promise.resolve();
  #ended = false;
  /** Set once the final event is written and the connection ended (in write order). */
  #closed = false;
  /** Events written so far (each one's place, for a store to keep a retried append once). */
  #seq = 0;
  /** The id the store gave the latest event written. */
  #lastId: string | undefined;

  /** `res`: a sink the host opened (its headers sent). */
  constructor(res: StreamSink, options: SseStreamOptions) {
    this.streamId = options.streamId;
    this.#o = options;
    this.#encodeFailed = options.logger && logEncodeFailure(options.logger);
    for (const e of options.replay ?? []) res.write(storedFrame(e));
    this.#attach(res);
    if (options.primeRetryMs !== undefined) this.#write(undefined, options.primeRetryMs);
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** The stored id of the latest event written (undefined: none yet, or not resumable). */
  get lastEventId(): string | undefined {
    return this.#lastId;
  }

  #attach(res: StreamSink): void {
    this.#res = res;
    res.onClose(() => {
      if (this.#res === res) this.#detachWriter();
    });
    clearInterval(this.#timer);
    this.#timer = setInterval(() => this.#res?.write(': keep-alive\n\n'), this.#o.keepAliveMs);
    unref(this.#timer);
  }

  #detachWriter(): void {
    this.#res = undefined;
    clearInterval(this.#timer);
  }

  /**
   * Writes events in order, storing them first when the stream is resumable. An event a
   * shared store failed to keep still goes out live, without an id (it cannot be resumed);
   * with no connection to take it, it is kept trying to be stored, and the events after it
   * wait their turn, so a client resuming after the outage gets them all.
   */
  #write(message: JsonRpcMessage | undefined, retryMs?: number): Promise<unknown> {
    // Serialised before it is stored or queued: a value JSON cannot carry becomes an error
    // for its request (or is dropped, if it is a notification) instead of breaking the chain.
    const data = message === undefined ? '' : encodeMessage(message, this.#encodeFailed);
    if (data === undefined) return this.#chain;
    this.#chain = this.#chain
      .then(async () => {
        const store = this.#o.store;
        const meta = { answers: this.#o.answers, seq: ++this.#seq };
        const id = store ? await this.#retrying(() => store.append(this.streamId, message, meta)) : undefined;
        if (id !== undefined) this.#lastId = id;
        this.#res?.write(frame(data, id, retryMs));
      })
      .catch((err: unknown) => this.#o.logger?.error({ err }, 'an SSE event could not be written'));
    return this.#chain;
  }

  /**
   * Runs a store operation; while it fails and no connection takes the stream live, tries
   * again (backing off to 5 s) for up to `storeRetryMs`. Undefined: it never succeeded.
   */
  async #retrying<T>(run: () => Promise<T>): Promise<T | undefined> {
    const deadline = Date.now() + (this.#o.storeRetryMs ?? 120_000);
    for (let attempt = 0; ; attempt++) {
      try {
        return await run();
      } catch (err) {
        if (this.#res || Date.now() >= deadline) return undefined;
        if (attempt === 0) this.#o.logger?.error({ err }, 'an SSE event could not be stored: retrying');
        const wait = Math.min(250 * 2 ** attempt, MAX_STORE_BACKOFF_MS, Math.max(1, deadline - Date.now()));
        await new Promise((r) => unref(setTimeout(r, wait)));
      }
    }
  }

  send(message: JsonRpcMessage): void {
    if (!this.#ended) void this.#write(message);
  }

  /** Writes the final message and ends the stream. */
  async finish(message?: JsonRpcMessage): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    if (message !== undefined) void this.#write(message);
    // Ending goes through the write chain too, so a resume() queued before it still gets the end.
    this.#chain = this.#chain.then(() => {
      this.#closed = true;
      this.#res?.end();
      this.#detachWriter();
    });
    await this.#chain;
    // A shared store out of reach is tried again (a follower elsewhere waits for the end); one
    // that never answers lets the stream expire instead.
    const store = this.#o.store;
    if (store) await this.#retrying(() => store.release(this.streamId));
  }

  /**
   * Closes the client's connection but keeps the stream alive (SEP-1699 polling): the
   * client reconnects with Last-Event-ID and gets the rest.
   */
  async disconnect(): Promise<void> {
    await this.#chain;
    const res = this.#res;
    this.#detachWriter();
    res?.end();
  }

  /** Replays what the client missed after `lastEventId`, then carries on on `res` (opened by the host). */
  async resume(res: StreamSink, lastEventId: string): Promise<void> {
    // Replay and re-attach as one step of the write chain: an event sent meanwhile is queued
    // behind it and goes out live, instead of landing between the replay and the attach.
    this.#chain = this.#chain.then(async () => {
      let missed: StoredEvent[];
      try {
        missed = this.#o.store ? await this.#o.store.after(lastEventId) : [];
      } catch {
        // A shared store out of reach: end this attempt; the client retries with the same id.
        res.end();
        return;
      }
      for (const e of missed) res.write(storedFrame(e));
      if (this.#closed) res.end();
      else this.#attach(res);
    });
    await this.#chain;
  }

  /**
   * Hands the stream to a new connection `res` of the same client, ending the one it had (a
   * standalone stream: one connection at a time, so no message goes out twice). With `after`
   * (the client's Last-Event-ID) the events stored after it go first (those `replays` accepts,
   * when given); `primeRetryMs` writes a priming event, whose id the client resumes from next time.
   */
  async handOver(
    res: StreamSink,
    options: { after?: string; replays?: (id: string) => boolean; primeRetryMs?: number } = {},
  ): Promise<void> {
    const { after, replays, primeRetryMs } = options;
    // One step of the write chain, as resume(): nothing lands between the replay and the attach.
    this.#chain = this.#chain.then(async () => {
      let missed: StoredEvent[] = [];
      if (after !== undefined && this.#o.store) {
        try {
          missed = await this.#o.store.after(after);
          if (replays) missed = missed.filter((e) => replays(e.id));
        } catch {
          res.end();
          return;
        }
      }
      const previous = this.#res;
      if (previous && previous !== res) {
        this.#detachWriter();
        previous.end();
      }
      for (const e of missed) res.write(storedFrame(e));
      if (this.#closed) res.end();
      else this.#attach(res);
    });
    await this.#chain;
    if (primeRetryMs !== undefined && !this.#ended) await this.#write(undefined, primeRetryMs);
  }
}

/** Writes stored events after `lastEventId` for a stream that has already finished. */
export async function replayFinished(res: StreamSink, store: EventStore, lastEventId: string): Promise<void> {
  for (const e of await store.after(lastEventId)) res.write(storedFrame(e));
  res.end();
}

/**
 * Replays the stored rest of a stream that is not live in this process, then carries on with
 * its later events as they are stored (a shared store's `follow`, or a session's feed), until
 * the stream ends or the client goes away. `prime` opens a fresh stream with a priming event
 * (its id, where a resume starts from); `ids: false` leaves the ids out (a client that cannot
 * resume).
 */
export async function followStored(
  res: StreamSink,
  follow: NonNullable<EventStore['follow']>,
  lastEventId: string,
  options: {
    keepAliveMs: number;
    prime?: { retryMs: number };
    ids?: boolean;
  },
): Promise<void> {
  if (options.prime) res.write(frame('', lastEventId, options.prime.retryMs));
  const gone = new AbortController();
  res.onClose(() => gone.abort());
  const timer = setInterval(() => res.write(': keep-alive\n\n'), options.keepAliveMs);
  unref(timer);
  const withIds = options.ids !== false;
  try {
    await follow(
      lastEventId,
      (e) => res.write(storedFrame(withIds ? e : { id: undefined, message: e.message })),
      gone.signal,
    );
  } catch {
    // The store is out of reach: end here; the client retries with its last id.
  } finally {
    clearInterval(timer);
    res.end();
  }
}

/**
 * The fetch handler's outbound channel: it stays silent (the reply will be JSON) until the
 * first message tied to the request (progress, a log message, a listen stream's notification),
 * then becomes an SSE stream, a ReadableStream the handler returns as the Response body.
 */
import {
  type EncodeFailure,
  encodeMessage,
  type JsonRpcMessage,
  logEncodeFailure,
} from '../../base/jsonrpc.ts';
import type { OutboundChannel } from '../../protocol/hub/channel.ts';
import { frame } from '../http/sse.ts';

export interface EventStreamOptions {
  readonly keepAliveMs: number;
  /** Told when the client stops reading (it went away). */
  readonly onCancel: () => void;
  readonly logger: { error(fields: object, message: string): void };
}

const encoder = new TextEncoder();

/** An SSE body: events go out in order; `finish` writes the last one and closes it. */
export class EventStream {
  readonly readable: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #closed = false;
  readonly #timer: ReturnType<typeof setInterval>;
  readonly #encodeFailed: EncodeFailure;

  constructor(options: EventStreamOptions) {
    this.#encodeFailed = logEncodeFailure(options.logger);
    this.readable = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => {
        this.#stop();
        options.onCancel();
      },
    });
    this.#timer = setInterval(() => this.#enqueue(': keep-alive\n\n'), options.keepAliveMs);
    // Node and Bun let a process exit with the timer pending; other runtimes have no unref.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  send(message: JsonRpcMessage): void {
    // Serialised first: a value JSON cannot carry becomes an error for its request (or is
    // dropped, if it is a notification) instead of breaking the stream.
    const data = encodeMessage(message, this.#encodeFailed);
    if (data !== undefined) this.#enqueue(frame(data, undefined));
  }

  /** Writes the final message, if any, and ends the stream. */
  finish(message?: JsonRpcMessage): void {
    if (message !== undefined) this.send(message);
    if (this.#closed) return;
    this.#stop();
    try {
      this.#controller.close();
    } catch {
      // Cancelled meanwhile: nothing to close.
    }
  }

  #enqueue(text: string): void {
    if (this.#closed) return;
    try {
      this.#controller.enqueue(encoder.encode(text));
    } catch {
      this.#stop(); // the reader cancelled between our check and the write
    }
  }

  #stop(): void {
    this.#closed = true;
    clearInterval(this.#timer);
  }
}

/** Silent until the first related message, then an EventStream (only if the client accepts one). */
export class FetchChannel implements OutboundChannel {
  #stream: EventStream | undefined;
  readonly #options: EventStreamOptions | undefined;
  readonly #opened: PromiseWithResolvers<void> = Promise.withResolvers();

  /** `options` undefined: the client accepts JSON only, and related messages cannot be delivered. */
  constructor(options: EventStreamOptions | undefined) {
    this.#options = options;
  }

  /** The stream, once the first related message opened it. */
  get stream(): EventStream | undefined {
    return this.#stream;
  }

  /** Resolves when the stream opens (never, if it does not). */
  get opened(): Promise<void> {
    return this.#opened.promise;
  }

  send(message: JsonRpcMessage): void {
    if (!this.#options) return;
    if (!this.#stream) {
      this.#stream = new EventStream(this.#options);
      this.#opened.resolve();
    }
    this.#stream.send(message);
  }
}

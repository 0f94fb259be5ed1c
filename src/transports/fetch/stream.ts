/**
 * The fetch host's side of the edge (src/transports/edge/host.ts): an answer is a Response the
 * handler's promise resolves to, and an event stream is a ReadableStream that Response carries,
 * written as the edge writes to its sink.
 */
import type { EdgeHost, EdgeRequest, StreamSink } from '../edge/host.ts';
import { SSE_HEADERS } from '../edge/sse.ts';

/** The edge's request, built from a fetch Request. */
export interface FetchRequest extends EdgeRequest {
  /** The Request as the runtime gave it. */
  readonly raw: Request;
  readonly port: number | undefined;
  /** When it arrived (performance.now()). */
  readonly started: number;
}

const encoder = new TextEncoder();

/** An event stream's sink: a ReadableStream's controller; the reader cancelling closes it. */
class ReadableSink implements StreamSink {
  readonly readable: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #closed = false;
  #listeners: (() => void)[] = [];
  readonly #answer: FetchAnswer;

  constructor(answer: FetchAnswer) {
    this.#answer = answer;
    this.readable = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => {
        answer.leave();
        this.#close();
      },
    });
  }

  write(text: string): void {
    if (this.#closed) return;
    try {
      this.#controller.enqueue(encoder.encode(text));
    } catch {
      this.#close(); // the reader cancelled between our check and the write
    }
  }

  end(): void {
    if (this.#closed) return;
    this.#answer.finish();
    try {
      this.#controller.close();
    } catch {
      // Cancelled meanwhile: nothing to close.
    }
    this.#close();
  }

  onClose(listener: () => void): void {
    if (this.#closed) listener();
    else this.#listeners.push(listener);
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }
}

/** One request's answer: the Response, once the edge has sent it or opened a stream. */
export class FetchAnswer {
  readonly #done = Promise.withResolvers<Response>();
  readonly #signal: AbortSignal;
  #answered = false;
  #finished = false;
  #gone: (() => void)[] | undefined;

  constructor(signal: AbortSignal) {
    this.#signal = signal;
  }

  get response(): Promise<Response> {
    return this.#done.promise;
  }

  /** Whether a Response has been given. */
  get answered(): boolean {
    return this.#answered;
  }

  send(response: Response, finished: boolean): void {
    if (this.#answered) return;
    this.#answered = true;
    this.#finished = finished;
    this.#done.resolve(response);
  }

  /** The answer is complete: the client leaving now abandons nothing. */
  finish(): void {
    this.#finished = true;
  }

  /** The client went away (the Request's signal, or the reader of a stream cancelled). */
  leave(): void {
    if (this.#finished) return;
    this.#finished = true;
    const gone = this.#gone ?? [];
    this.#gone = undefined;
    for (const listener of gone) listener();
  }

  /** Runs `listener` if the client goes away before the answer finished. */
  onGone(listener: () => void): void {
    if (this.#gone === undefined) {
      this.#gone = [];
      if (this.#signal.aborted) queueMicrotask(() => this.leave());
      else this.#signal.addEventListener('abort', () => this.leave(), { once: true });
    }
    this.#gone.push(listener);
  }
}

/** The SSE headers a Response carries (hop-by-hop `connection` is the runtime's). */
function streamHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return { ...SSE_HEADERS, ...headers };
}

export const FETCH_HOST: EdgeHost<FetchRequest, FetchAnswer> = {
  address: (req) => req.ip,
  port: (req) => req.port,
  httpVersion: () => undefined,
  elapsedMs: (req) => performance.now() - req.started,
  send(answer, status, headers, body) {
    // A 204 or 304 carries no body.
    const empty = body === undefined || status === 204 || status === 304;
    // The body's type by the constructor: BodyInit is a DOM global the package build (src/ alone) lacks.
    answer.send(
      new Response(empty ? null : (body as ConstructorParameters<typeof Response>[0]), { status, headers }),
      true,
    );
  },
  stream(answer, headers) {
    const sink = new ReadableSink(answer);
    answer.send(new Response(sink.readable, { status: 200, headers: streamHeaders(headers) }), false);
    return sink;
  },
  onGone(answer, gone) {
    answer.onGone(() => gone.clientGone());
  },
  // An answer is told once, when its client leaves or it finishes: nothing to take back.
  offGone() {},
};

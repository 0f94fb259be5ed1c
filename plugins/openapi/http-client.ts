/**
 * The plugin's HTTP client: Node's `fetch` (undici) with a timeout per attempt, the call's
 * cancellation signal, a bounded body read, redirects followed by hand so credentials never
 * travel to another origin, and a bounded retry with exponential back-off for idempotent
 * methods on 502, 503, 504 or a failed connection (RFC 9110 §9.2.2: only those may be
 * repeated safely). `fetch` is used as it is, so an OpenTelemetry undici instrumentation
 * (or any other) sees these requests inside the tool call's span and propagates its context.
 */
import type { BuiltRequest } from './request.ts';

export interface SendOptions {
  readonly timeoutMs: number;
  readonly retries: number;
  readonly maxBytes: number;
  /** The tool call's signal: cancellation and the call deadline. */
  readonly signal: AbortSignal;
  /** Header names and query parameters that carry credentials, dropped on a cross-origin redirect. */
  readonly secretHeaders: readonly string[];
  readonly secretQuery: readonly string[];
  /** Waits between attempts (tests pass a fake). */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export type Outcome =
  | {
      readonly kind: 'response';
      readonly status: number;
      readonly statusText: string;
      readonly headers: Headers;
      readonly body: Uint8Array;
      /** The body went past `maxBytes` and was cut there. */
      readonly truncated: boolean;
      /** The declared length (Content-Length) when known. */
      readonly declaredBytes: number | undefined;
    }
  | { readonly kind: 'network'; readonly code: string; readonly message: string }
  | { readonly kind: 'timeout' };

export type SendResult = Outcome & { readonly attempts: number; readonly url: URL };

const IDEMPOTENT: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'TRACE']);
const RETRY_STATUS: ReadonlySet<number> = new Set([502, 503, 504]);
const MAX_REDIRECTS = 5;
const BASE_DELAY_MS = 200;
/** A Retry-After longer than this is not waited for: the model is told instead. */
const MAX_DELAY_MS = 5000;

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Retry-After in ms (delta-seconds or an HTTP date, RFC 9110 §10.2.3), when present. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Sends the request, retrying what may be retried. Rejects only when `signal` aborts. */
export async function send(request: BuiltRequest, options: SendOptions): Promise<SendResult> {
  const sleep = options.sleep ?? abortableSleep;
  const retryable = IDEMPOTENT.has(request.method);
  for (let attempt = 1; ; attempt++) {
    const outcome = await sendOnce(request, options);
    const last = !retryable || attempt > options.retries;
    const failedRetryably =
      outcome.kind === 'network' || (outcome.kind === 'response' && RETRY_STATUS.has(outcome.status));
    if (last || !failedRetryably) return { ...outcome, attempts: attempt };
    const backoff = BASE_DELAY_MS * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
    const asked = outcome.kind === 'response' ? retryAfterMs(outcome.headers) : undefined;
    if (asked !== undefined && asked > MAX_DELAY_MS) return { ...outcome, attempts: attempt };
    await sleep(Math.min(MAX_DELAY_MS, Math.max(backoff, asked ?? 0)), options.signal);
  }
}

async function sendOnce(request: BuiltRequest, options: SendOptions): Promise<Outcome & { url: URL }> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.signal, timeout]);
  let { method, url, headers, body } = request;
  try {
    for (let hop = 0; ; hop++) {
      const res = await fetch(url, { method, headers, body, signal, redirect: 'manual' });
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location !== null && hop < MAX_REDIRECTS) {
        await res.body?.cancel();
        const next = new URL(location, url);
        if (next.origin !== url.origin) {
          headers = new Headers(headers);
          for (const name of options.secretHeaders) headers.delete(name);
          for (const name of options.secretQuery) next.searchParams.delete(name);
        }
        // RFC 9110 §15.4: 303 (and, as every client does, 301/302 after a POST) turn into a GET.
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
          method = method === 'HEAD' ? 'HEAD' : 'GET';
          body = undefined;
          headers = new Headers(headers);
          headers.delete('content-type');
        }
        url = next;
        continue;
      }
      const read = await readBody(res, options.maxBytes);
      const declared = Number(res.headers.get('content-length'));
      return {
        kind: 'response',
        status: res.status,
        statusText: res.statusText,
        headers: res.headers,
        ...read,
        declaredBytes: Number.isFinite(declared) && res.headers.has('content-length') ? declared : undefined,
        url,
      };
    }
  } catch (err) {
    if (options.signal.aborted) throw options.signal.reason;
    if (timeout.aborted) return { kind: 'timeout', url };
    const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
    const code = typeof cause?.code === 'string' ? cause.code : 'EFETCH';
    const message = typeof cause?.message === 'string' ? cause.message : (err as Error).message;
    return { kind: 'network', code, message, url };
  }
}

/** Reads at most `max` bytes; past that the stream is cancelled and the body marked cut. */
async function readBody(res: Response, max: number): Promise<{ body: Uint8Array; truncated: boolean }> {
  if (res.body === null) return { body: new Uint8Array(0), truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > max) {
      chunks.push(value.subarray(0, max - size));
      size = max;
      truncated = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    body.set(c, offset);
    offset += c.byteLength;
  }
  return { body, truncated };
}

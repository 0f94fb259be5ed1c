/**
 * Streamable HTTP for the test kit (MCP 2025-11-25 "Transports"; the 2026 stateless wire on
 * the same endpoint): one POST per message, a JSON or SSE reply, `Mcp-Session-Id` once
 * initialize issues one, DELETE on close. Header policy (protocol version, routing headers)
 * is the caller's: this file only moves messages.
 */
import { BaseLink, type Link, type LinkSendOptions, type LinkSendResult } from './link.ts';

const BODY_SAMPLE = 500;
/** A stream closed before its answer is resumed at most this often, waiting at most this long. */
const MAX_RESUMES = 5;
const MAX_RETRY_WAIT_MS = 2_000;

function isInitialize(message: unknown): boolean {
  return (
    typeof message === 'object' &&
    message !== null &&
    (message as { method?: unknown }).method === 'initialize'
  );
}

export class HttpLink extends BaseLink implements Link {
  readonly transport = 'http' as const;
  readonly junk: string[] = [];
  readonly url: string;
  /** Set when an initialize reply carries `Mcp-Session-Id`. */
  sessionId: string | undefined;
  /**
   * The last 401 or 403, its `WWW-Authenticate` challenge and the start of its body (the error
   * message names the Host or Origin when that is what was refused), to say how to get in.
   */
  refusal: { status: number; challenge: string | undefined; body?: string } | undefined;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #closers = new Set<AbortController>();

  constructor(url: string, headers: Readonly<Record<string, string>> = {}) {
    super();
    this.url = url;
    this.#headers = headers;
  }

  async send(message: unknown, options: LinkSendOptions = {}): Promise<LinkSendResult> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...this.#headers,
      ...options.headers,
    };
    if (this.sessionId !== undefined && !options.omitSession) headers['mcp-session-id'] = this.sessionId;
    const controller = new AbortController();
    this.#closers.add(controller);
    const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
    try {
      let res: Response;
      try {
        res = await fetch(this.url, {
          method: 'POST',
          headers,
          body: typeof message === 'string' ? message : JSON.stringify(message),
          signal,
        });
      } catch (err) {
        if (signal.aborted) throw err;
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        throw new Error(
          `cannot reach ${this.url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`,
        );
      }
      if (res.status === 401 || res.status === 403)
        this.refusal = { status: res.status, challenge: res.headers.get('www-authenticate') ?? undefined };
      const issued = res.headers.get('mcp-session-id');
      if (issued !== null && isInitialize(message)) this.sessionId = issued;
      const contentType = res.headers.get('content-type') ?? '';
      const result: LinkSendResult = { status: res.status, contentType, delivered: 0 };
      if (contentType.includes('text/event-stream') && res.body) {
        const sse = { delivered: 0, lastEventId: undefined as string | undefined, retryMs: 0, done: false };
        await this.#readSse(res.body, options.stopWhen, controller, sse);
        // The server may close a stream before the answer and expect the client to resume it
        // with GET and Last-Event-ID (MCP 2025-11-25 Transports, "Resumability and Redelivery").
        for (
          let round = 0;
          !sse.done && options.stopWhen && sse.lastEventId !== undefined && round < MAX_RESUMES;
          round++
        ) {
          if (sse.retryMs > 0)
            await new Promise((r) => setTimeout(r, Math.min(sse.retryMs, MAX_RETRY_WAIT_MS)));
          const resumed = await fetch(this.url, {
            method: 'GET',
            headers: { ...headers, accept: 'text/event-stream', 'last-event-id': sse.lastEventId },
            signal,
          });
          if (!resumed.ok || !resumed.body) break;
          const before = sse.lastEventId;
          await this.#readSse(resumed.body, options.stopWhen, controller, sse);
          if (!sse.done && sse.lastEventId === before) break;
        }
        result.delivered = sse.delivered;
        return result;
      }
      const text = await res.text();
      if (this.refusal !== undefined && (res.status === 401 || res.status === 403))
        this.refusal.body = text.slice(0, BODY_SAMPLE);
      if (text.trim() === '') return result;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        result.bodyText = text.slice(0, BODY_SAMPLE);
        return result;
      }
      if (typeof value !== 'object' || value === null) {
        result.bodyText = text.slice(0, BODY_SAMPLE);
        return result;
      }
      this.deliver(value);
      result.delivered = Array.isArray(value) ? value.length : 1;
      return result;
    } finally {
      this.#closers.delete(controller);
    }
  }

  /** Reads SSE events (WHATWG HTML §9.2) as they arrive; comments and empty data are skipped. */
  async #readSse(
    body: ReadableStream<Uint8Array>,
    stopWhen: LinkSendOptions['stopWhen'],
    controller: AbortController,
    state: { delivered: number; lastEventId: string | undefined; retryMs: number; done: boolean },
  ): Promise<void> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        const blocks = buffer.split(/\r?\n\r?\n/);
        buffer = blocks.pop() ?? '';
        for (const block of blocks) {
          const data: string[] = [];
          for (const line of block.split(/\r?\n/)) {
            const colon = line.indexOf(':');
            if (colon === 0) continue;
            const field = colon === -1 ? line : line.slice(0, colon);
            const text = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'data') data.push(text);
            else if (field === 'id') state.lastEventId = text;
            else if (field === 'retry' && /^\d+$/.test(text)) state.retryMs = Number(text);
          }
          if (data.length === 0 || data.join('') === '') continue;
          let message: unknown;
          try {
            message = JSON.parse(data.join('\n'));
          } catch {
            this.junk.push(data.join('\n').slice(0, BODY_SAMPLE));
            continue;
          }
          this.deliver(message);
          state.delivered++;
          if (stopWhen?.(message)) {
            state.done = true;
            controller.abort();
            return;
          }
        }
      }
    } catch (err) {
      if (!controller.signal.aborted) throw err;
    } finally {
      reader.releaseLock();
    }
  }

  /** Ends the session politely (DELETE, MCP 2025-11-25 §session management) and drops open streams. */
  async close(): Promise<void> {
    for (const c of this.#closers) c.abort();
    if (this.sessionId === undefined) return;
    const headers: Record<string, string> = { ...this.#headers, 'mcp-session-id': this.sessionId };
    this.sessionId = undefined;
    try {
      const res = await fetch(this.url, { method: 'DELETE', headers, signal: AbortSignal.timeout(2_000) });
      await res.body?.cancel();
    } catch {
      // The server may already be gone; nothing to report.
    }
  }
}

/**
 * GETs a path next to the MCP endpoint and reports its status, reading no body: the
 * deprecated HTTP+SSE transport (2024-11-05) served `/sse` and `/messages`.
 */
export async function probeEndpoint(
  url: string,
  headers: Readonly<Record<string, string>> = {},
  timeoutMs = 2_000,
): Promise<number | undefined> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const res = await fetch(url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', ...headers },
      signal: controller.signal,
    });
    controller.abort();
    return res.status;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

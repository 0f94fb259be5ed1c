/**
 * Streamable HTTP for the test kit (MCP 2025-11-25 "Transports"; the 2026 stateless wire on
 * the same endpoint): one POST per message, a JSON or SSE reply, `Mcp-Session-Id` once
 * initialize issues one, DELETE on close. Header policy (protocol version, routing headers)
 * is the caller's: this file only moves messages.
 */
import { BaseLink, type Link, type LinkSendOptions, type LinkSendResult } from './link.ts';

const BODY_SAMPLE = 500;

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
      const issued = res.headers.get('mcp-session-id');
      if (issued !== null && isInitialize(message)) this.sessionId = issued;
      const contentType = res.headers.get('content-type') ?? '';
      const result: LinkSendResult = { status: res.status, contentType, delivered: 0 };
      if (contentType.includes('text/event-stream') && res.body) {
        result.delivered = await this.#readSse(res.body, options.stopWhen, controller);
        return result;
      }
      const text = await res.text();
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
  ): Promise<number> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    let delivered = 0;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        const blocks = buffer.split(/\r?\n\r?\n/);
        buffer = blocks.pop() ?? '';
        for (const block of blocks) {
          const data = block
            .split(/\r?\n/)
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).replace(/^ /, ''))
            .join('\n');
          if (data === '') continue;
          let message: unknown;
          try {
            message = JSON.parse(data);
          } catch {
            this.junk.push(data.slice(0, BODY_SAMPLE));
            continue;
          }
          this.deliver(message);
          delivered++;
          if (stopWhen?.(message)) {
            controller.abort();
            return delivered;
          }
        }
      }
    } catch (err) {
      if (!controller.signal.aborted) throw err;
    } finally {
      reader.releaseLock();
    }
    return delivered;
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

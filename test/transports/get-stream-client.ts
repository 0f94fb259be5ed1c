/**
 * A raw client of the standalone GET stream (MCP 2025-11-25 "Listening for Messages from the
 * Server") for the HTTP transport tests: a GET with the session's headers, optionally resuming
 * with Last-Event-ID, read as it arrives.
 */
import assert from 'node:assert/strict';
import { parseSse, type SseEvent, V2025 } from './http-helpers.ts';

export interface OpenStream {
  readonly response: Response;
  /** Reads until `done(text so far)` holds; fails if the stream ends first. */
  readUntil(done: (text: string) => boolean): Promise<string>;
  /** Reads until the server ends the stream; resolves with all of it. */
  readToEnd(): Promise<string>;
  /** What has been read so far. */
  text(): string;
  /** The client goes away. */
  close(): void;
}

/** Opens a GET stream of `session` at `url`; its abort controller joins `controllers`, for cleanup. */
export async function openGetStreamAt(
  url: string,
  session: string,
  lastEventId: string | undefined,
  controllers: AbortController[],
): Promise<OpenStream> {
  const controller = new AbortController();
  controllers.push(controller);
  const headers: Record<string, string> = {
    accept: 'text/event-stream',
    'mcp-session-id': session,
    'mcp-protocol-version': V2025,
  };
  if (lastEventId) headers['last-event-id'] = lastEventId;
  const response = await fetch(url, { headers, signal: controller.signal });
  if (!response.ok) {
    return {
      response,
      readUntil: () => Promise.reject(new Error(`${response.status}`)),
      readToEnd: () => Promise.reject(new Error(`${response.status}`)),
      text: () => '',
      close: () => controller.abort(),
    };
  }
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  return {
    response,
    async readUntil(done) {
      while (!done(text)) {
        const chunk = await reader.read();
        assert.ok(!chunk.done, 'the stream stays open');
        text += chunk.value;
      }
      return text;
    },
    async readToEnd() {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) return text;
        text += chunk.value;
      }
    },
    text: () => text,
    close: () => controller.abort(),
  };
}

/** The first complete event of a stream. */
export async function firstEvent(stream: OpenStream): Promise<SseEvent> {
  const text = await stream.readUntil((x) => x.includes('\n\n'));
  return parseSse(text)[0]!;
}

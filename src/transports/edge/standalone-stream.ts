/**
 * What the route keeps of a session's standalone stream on one replica (`RouteState.standalone`),
 * apart from the GET handler that opens and resumes it (get-stream.ts), which reads the route's
 * state: both sit above this file.
 */
import type { StreamSink } from './host.ts';

/** A session's standalone stream on one replica: one SseStream, its connections in turn. */
export interface StandaloneStream {
  readonly streamId: string;
  /** Whether a connection holds it now. */
  connected(): boolean;
  /**
   * How a resume from event `id` takes the stream over: replaying every event after it (`{}`),
   * or only those before `until` (the client opened a fresh connection, which delivered the
   * rest, before resuming the connection that one followed); undefined while a connection holds
   * it, for a resume from a connection that one displaced.
   */
  takeover(id: string): { until?: string } | undefined;
  /** Stops counting its connection against MCP_MAX_STREAMS_PER_SESSION (it is being replaced). */
  uncount(): void;
  /** Gives it to a new connection (ending the old one); `resume`: from the client's Last-Event-ID. */
  handOver(sink: StreamSink, release: () => void, resume?: { after: string; until?: string }): Promise<void>;
  /** Ends it for good (the session ended, or it stayed unclaimed past its grace period). */
  retire(): void;
}

/**
 * What the transports take from the server, and nothing more: the transport seam. Each
 * transport declares the parts it uses (the dispatcher, the hub, the session store, a
 * logger, telemetry, and for HTTP the edge's authenticator and limiter, the readiness checks
 * and the description the discovery documents render); the server assembly (src/server.ts)
 * provides them, and a test may hand over any object that has them. No transport sees the
 * registry or the plugins.
 */
import type { Logger } from 'pino';
import type { Authenticator } from '../auth/types.ts';
import type { PluginHttpRoute } from '../base/http-route.ts';
import type { ServerDescription } from '../discovery/server-description.ts';
import type { Exchange, Reply } from '../protocol/exchange.ts';
import type { Hub } from '../protocol/hub.ts';
import type { SessionStore } from '../protocol/session.ts';
import type { RateLimiter } from '../ratelimit/limiter.ts';
import type { Telemetry } from '../telemetry/tracing.ts';
import type { EventStore } from './http/event-store.ts';

/** The dispatcher as a transport sees it: one parsed message or batch in, the reply out. */
export interface MessageHandler {
  handle(value: unknown, exchange: Exchange): Promise<Reply>;
}

/** What a message-stream connection (stdio, the test kit in-process) uses. */
export interface ConnectionDeps {
  readonly dispatcher: MessageHandler;
  readonly hub: Hub;
  readonly logger: Logger;
  readonly telemetry: Pick<Telemetry, 'sessionEnded'>;
}

/** One readiness check's answer, as /readyz shows it. */
export interface CheckResult {
  readonly ok: boolean;
  readonly detail?: string;
}

/** What the HTTP transport uses (src/transports/http/). */
export interface HttpDeps {
  readonly dispatcher: MessageHandler & {
    /** Requests being handled now (graceful shutdown waits for 0). */
    readonly inflightCount: number;
  };
  readonly hub: Hub;
  readonly sessions: SessionStore;
  readonly logger: Logger;
  readonly telemetry: Pick<Telemetry, 'recordRefusal' | 'countRefusal' | 'sessionEnded'> &
    Partial<Pick<Telemetry, 'startRouteSpan'>>;
  /** Verifies callers at the edge; undefined with MCP_AUTH=none. */
  readonly auth: Authenticator | undefined;
  /** Per-client limits at the edge; undefined: none. */
  readonly limiter: RateLimiter | undefined;
  /** The SSE event store shared with other replicas (Redis); undefined: one in memory. */
  readonly eventStore: EventStore | undefined;
  /** The plugins' own HTTP routes (`app.httpRoute`), served beside the MCP endpoint; undefined: none. */
  readonly routes?: readonly PluginHttpRoute[];
  /** The checks /readyz reports (besides shutdown), by name; wired where the server is assembled. */
  readiness(): Promise<Record<string, CheckResult>>;
  /** Every scope a tool requires, for the protected resource metadata's `scopes_supported`. */
  toolScopes(): readonly string[];
  /** The server as the card, the catalogs and the landing page show it, at `baseUrl`. */
  describe(baseUrl: string): ServerDescription;
}

/**
 * What the fetch handler uses (src/transports/fetch/): the 2026 wire only, so no sessions, no
 * hub of its own (a listen stream reaches the hub through the dispatcher), no event store.
 */
export type FetchDeps = Pick<HttpDeps, 'dispatcher' | 'logger' | 'telemetry' | 'auth' | 'limiter'>;

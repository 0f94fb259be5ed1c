/**
 * Which upstream connection a request uses. With MCP_PROXY_ISOLATION=shared (the default)
 * every request uses the one connection opened at start-up. With `per-session`, each 2025-wire
 * session gets its own (a process, for a stdio upstream), started on the session's first
 * forwarded request and stopped when the session ends (`app.onSessionEnd`); at most
 * MCP_PROXY_MAX_SESSIONS run at once, and a session over the cap gets a clear error. A
 * request with no session (the stateless 2026 wire) uses the shared connection, which also
 * serves the lists. With MCP_PROXY_FORWARD_UPSTREAM_TOKEN, a session's connection carries its
 * caller's upstream token (caller-token.ts), and a request with no session is refused.
 */
import { randomUUID } from 'node:crypto';
import type { HandlerContext, Logger } from '@mcp-toolkit/server';
import { type BearerSource, callerBearer, NoCallerToken, SESSIONLESS } from './caller-token.ts';
import type { ProxySettings } from './settings.ts';
import { Upstream, UpstreamUnavailable } from './upstream.ts';

/** Stands in MCP_PROXY_ARGS, MCP_PROXY_ENV, MCP_PROXY_SECRET_ENV and MCP_PROXY_CWD for the upstream's own name. */
export const SESSION_PLACEHOLDER = '{session}';

/**
 * The settings of one upstream, `{session}` replaced by `name`: `shared` for the shared
 * upstream, a fresh random id for each per-session one (never the session id, which is a
 * credential of its client), so that each can keep its state apart (a memory file of its own).
 *
 * @example
 * withSessionName(settings, 'shared').env; // { MEMORY_FILE_PATH: '/data/memory-shared.jsonl' }
 */
export function withSessionName(settings: ProxySettings, name: string): ProxySettings {
  const put = (v: string) => v.replaceAll(SESSION_PLACEHOLDER, name);
  const each = (o: Readonly<Record<string, string>>) =>
    Object.fromEntries(Object.entries(o).map(([k, v]) => [k, put(v)]));
  return {
    ...settings,
    args: settings.args.map(put),
    env: each(settings.env),
    secretEnv: each(settings.secretEnv),
    ...(settings.cwd !== undefined ? { cwd: put(settings.cwd) } : {}),
  };
}

interface SessionUpstream {
  readonly upstream: Upstream;
  /** Settles once the first connection is up (or failed: the entry is then dropped). */
  readonly ready: Promise<void>;
}

/** Ended session ids remembered, so that a request of an ended session starts nothing. */
const ENDED_KEPT = 10_000;

/**
 * @example
 * const pool = new UpstreamPool(shared, settings, app.logger);
 * const client = await (await pool.forRequest(ctx)).client(ctx.signal);
 */
export class UpstreamPool {
  readonly #shared: Upstream;
  readonly #settings: ProxySettings;
  readonly #logger: Logger;
  readonly #sessions = new Map<string, SessionUpstream>();
  /** Per session: where its connection gets its caller's token (MCP_PROXY_FORWARD_UPSTREAM_TOKEN). */
  readonly #bearers = new Map<string, BearerSource>();
  /**
   * Per-session upstreams being stopped: they count against the cap until their process has
   * exited, so that never more than MCP_PROXY_MAX_SESSIONS processes run at once.
   */
  readonly #stopping = new Set<Upstream>();
  /** Sessions that ended (a bounded, oldest-first set: ids are random and never come back). */
  readonly #ended = new Set<string>();
  #stopped = false;

  constructor(shared: Upstream, settings: ProxySettings, logger: Logger) {
    this.#shared = shared;
    this.#settings = settings;
    this.#logger = logger;
  }

  /** How many per-session upstreams run (those still stopping included). */
  get sessions(): number {
    return this.#sessions.size + this.#stopping.size;
  }

  /** The upstream for one request: the shared one, or its session's (started on first use). */
  async forRequest(ctx: HandlerContext): Promise<Upstream> {
    const id = ctx.sessionId;
    const forward = this.#settings.forwardUpstreamToken;
    if (forward && id === undefined) throw new NoCallerToken(SESSIONLESS);
    if (this.#settings.isolation === 'shared' || id === undefined) return this.#shared;
    if (forward) {
      // The session's connection sends the token of its latest request's caller (a session is
      // bound to one identity); asked for first, so a caller without one starts nothing.
      const bearer = callerBearer(ctx);
      await bearer({ forceRefresh: false });
      // The session may have ended meanwhile: then nothing is kept for it (and nothing starts, below).
      if (!this.#ended.has(id)) this.#bearers.set(id, bearer);
    }
    let entry = this.#sessions.get(id);
    if (entry === undefined) {
      if (this.#stopped)
        throw new UpstreamUnavailable('The upstream MCP server is unavailable: the server is shutting down.');
      // A request that was under way when its session ended must not start a process nobody stops.
      if (this.#ended.has(id))
        throw new UpstreamUnavailable('The session has ended, and its upstream MCP server with it.');
      const max = this.#settings.maxSessions;
      if (this.sessions >= max) {
        throw new UpstreamUnavailable(
          `Every per-session upstream is taken: ${max} sessions have one (MCP_PROXY_MAX_SESSIONS=${max}). One is freed when a session ends; retry later.`,
        );
      }
      entry = this.#start(id);
    }
    await entry.ready;
    return entry.upstream;
  }

  #start(id: string): SessionUpstream {
    const logger = this.#logger.child({ sessionId: id });
    // Its lists are the shared upstream's (the same command): nothing to sync.
    const settings = withSessionName(this.#settings, randomUUID());
    const upstream = new Upstream(settings, logger, {
      connected: async () => {},
      listChanged: () => {},
      ...(this.#settings.forwardUpstreamToken ? { callerBearer: () => this.#bearers.get(id) } : {}),
    });
    const ready = upstream.start().catch((err: Error) => {
      if (this.#sessions.get(id)?.upstream === upstream) this.#retire(id, upstream, 'it did not start');
      throw new UpstreamUnavailable(`The session's upstream MCP server did not start: ${err.message}.`);
    });
    const entry = { upstream, ready };
    this.#sessions.set(id, entry);
    logger.info({ sessions: this.sessions }, 'per-session upstream started');
    return entry;
  }

  /** Takes a per-session upstream out of the pool; it counts against the cap until it has exited. */
  #retire(id: string, upstream: Upstream, reason: string): void {
    this.#sessions.delete(id);
    this.#stopping.add(upstream);
    void upstream
      .stop(`its session ended`)
      .finally(() => this.#stopping.delete(upstream))
      .then(() =>
        this.#logger.info({ sessionId: id, sessions: this.sessions, reason }, 'per-session upstream stopped'),
      );
  }

  /** The session ended: its upstream is stopped, even one still starting. */
  end(id: string): void {
    this.#bearers.delete(id);
    this.#ended.add(id);
    if (this.#ended.size > ENDED_KEPT) this.#ended.delete(this.#ended.values().next().value as string);
    const entry = this.#sessions.get(id);
    if (entry === undefined) return;
    this.#retire(id, entry.upstream, 'the session ended');
  }

  /** Stops every upstream, the shared one last. */
  async stop(): Promise<void> {
    this.#stopped = true;
    const all = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all([...all.map((e) => e.upstream.stop()), ...[...this.#stopping].map((u) => u.stop())]);
    await this.#shared.stop();
  }
}

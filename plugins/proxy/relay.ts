/**
 * What our clients ask of the server as a whole, passed on to the upstreams that can act on
 * it, over their shared connections:
 *
 * - `resources/subscribe` and `resources/unsubscribe` (2025 wire) go to the upstream that owns
 *   the URI (its URI mapped back, transform.ts), once per URI however many of our clients
 *   subscribe: the upstream is subscribed while at least one of our sessions is, and
 *   unsubscribed when the last one unsubscribes or ends. Its `notifications/resources/updated`
 *   comes back (index.ts) with the URI served as ours. On the 2026-07-28 wire there is no
 *   `resources/subscribe`: a `subscriptions/listen` stream's `resourceSubscriptions` count as
 *   one subscriber each while the stream is open (the upstream connection is a 2025 one).
 * - `logging/setLevel` (2025 wire; the 2026 wire has none, each request carries its own level)
 *   goes to every upstream that declares `logging`: one shared connection serves every session,
 *   so it gets the most verbose level any live session set, and our side still filters what
 *   each session receives by its own level.
 *
 * An upstream that is down gets both again when it is back (`reconnected`). An upstream
 * failure is logged; our client's request is answered as without a proxy.
 */
import { randomUUID } from 'node:crypto';
import { LOG_LEVELS, type Logger, type LogLevel, type Middleware } from '@mcp-toolkit/server';
import type { Client } from '@modelcontextprotocol/client';
import { type Filter, makeFilter } from './filter.ts';
import type { UpstreamSpec } from './specs.ts';
import type { Upstream } from './upstream.ts';

/** Upstream subscriptions kept at most (distinct URIs, all clients): past it a subscribe is not passed on. */
export const MAX_RELAYED_SUBSCRIPTIONS = 10_000;
/** Subscriptions passed upstream for one session (or listen stream): one client cannot take them all. */
export const MAX_RELAYED_PER_SUBSCRIBER = 100;
/** How long one relayed request may take before it is given up (logged). */
const RELAY_TIMEOUT_MS = 10_000;

/** One upstream of the plugin, as the relay sees it. */
export interface RelayedUpstream {
  readonly spec: UpstreamSpec;
  readonly upstream: Upstream;
}

export class Relay {
  readonly #upstreams: readonly RelayedUpstream[];
  readonly #logger: Logger;
  /** By our URI: who is subscribed (session ids, listen streams). */
  readonly #subscribers = new Map<string, Set<string>>();
  /** How many URIs each subscriber holds. */
  readonly #held = new Map<string, number>();
  /** The filter of each upstream (its include and exclude): an item not served is not subscribed. */
  readonly #filters: Map<RelayedUpstream, Filter>;
  /** The level each live session set. */
  readonly #levels = new Map<string, LogLevel>();
  #level: LogLevel | undefined;

  constructor(upstreams: readonly RelayedUpstream[], logger: Logger) {
    this.#upstreams = upstreams;
    this.#logger = logger;
    this.#filters = new Map(
      upstreams.map((r) => [r, makeFilter(r.spec.settings.include, r.spec.settings.exclude)]),
    );
  }

  /** The middleware that sees the requests passed on. */
  middleware(): Middleware {
    return {
      name: 'proxy-relay',
      onRequest: async (call, next) => {
        const method = call.method;
        if (method === 'subscriptions/listen') return this.#listen(call.params, next);
        if (!RELAYED.has(method)) return next();
        const result = await next();
        const who = call.ctx.sessionId ?? 'sessionless';
        // Answered once the upstreams have it (a failure is logged): a notification the client
        // expects after its subscribe answer is not lost to the order of two requests.
        if (method === 'logging/setLevel') await this.setLevel(who, call.params.level as LogLevel);
        else if (typeof call.params.uri === 'string') {
          if (method === 'resources/subscribe') await this.subscribe(call.params.uri, who);
          else await this.unsubscribe(call.params.uri, who);
        }
        return result;
      },
    };
  }

  /** A 2026 listen stream: its resource subscriptions held upstream while it is open. */
  async #listen(params: Record<string, unknown>, next: () => Promise<Record<string, unknown>>) {
    const notifications = params.notifications as { resourceSubscriptions?: unknown } | undefined;
    const uris = Array.isArray(notifications?.resourceSubscriptions)
      ? notifications.resourceSubscriptions.filter((u): u is string => typeof u === 'string').slice(0, 1000)
      : [];
    const who = `listen:${randomUUID()}`;
    await Promise.all(uris.map((uri) => this.subscribe(uri, who)));
    try {
      return await next();
    } finally {
      for (const uri of uris) void this.unsubscribe(uri, who);
    }
  }

  /** The upstream that owns one of our URIs, and its own URI. */
  #owner(uri: string): { r: RelayedUpstream; theirs: string } | undefined {
    for (const r of this.#upstreams) {
      const theirs = r.spec.uris.theirs(uri);
      if (theirs !== undefined)
        return this.#filters.get(r)?.uri(theirs) === false ? undefined : { r, theirs };
    }
    return undefined;
  }

  /** `who` subscribes to our `uri`: the owning upstream is subscribed when `who` is the first. */
  subscribe(uri: string, who: string): Promise<void> {
    const owner = this.#owner(uri);
    if (owner === undefined) return DONE;
    let set = this.#subscribers.get(uri);
    if (set?.has(who)) return DONE;
    const held = this.#held.get(who) ?? 0;
    if (held >= MAX_RELAYED_PER_SUBSCRIBER) {
      this.#logger.warn({ uri }, `resource subscription not passed upstream: the client holds ${held}`);
      return DONE;
    }
    if (set === undefined) {
      if (this.#subscribers.size >= MAX_RELAYED_SUBSCRIPTIONS) {
        this.#logger.warn(
          { uri },
          `resource subscription not passed upstream: ${MAX_RELAYED_SUBSCRIPTIONS} are`,
        );
        return DONE;
      }
      set = new Set();
      this.#subscribers.set(uri, set);
    }
    const first = set.size === 0;
    set.add(who);
    this.#held.set(who, held + 1);
    if (!first) return DONE;
    return this.#send(
      owner.r,
      'subscribe',
      (c) => subscribes(c) && c.subscribeResource({ uri: owner.theirs }, opts()),
    );
  }

  /** `who` unsubscribes: the owning upstream is unsubscribed when nobody is left. */
  unsubscribe(uri: string, who: string): Promise<void> {
    const set = this.#subscribers.get(uri);
    if (set === undefined || !set.delete(who)) return DONE;
    const held = (this.#held.get(who) ?? 1) - 1;
    if (held > 0) this.#held.set(who, held);
    else this.#held.delete(who);
    if (set.size > 0) return DONE;
    this.#subscribers.delete(uri);
    const owner = this.#owner(uri);
    if (owner === undefined) return DONE;
    return this.#send(
      owner.r,
      'unsubscribe',
      (c) => subscribes(c) && c.unsubscribeResource({ uri: owner.theirs }, opts()),
    );
  }

  /** `who` set a level: the upstreams get the most verbose level set. */
  setLevel(who: string, level: LogLevel): Promise<void> {
    if (!(LOG_LEVELS as readonly string[]).includes(level)) return DONE;
    this.#levels.set(who, level);
    return this.#applyLevel();
  }

  /** A session ended: its subscriptions and level go with it. */
  sessionEnded(id: string): void {
    for (const uri of [...this.#subscribers.keys()]) void this.unsubscribe(uri, id);
    if (this.#levels.delete(id)) void this.#applyLevel();
  }

  /** An upstream (re)connected: it gets the subscriptions it owns and the level again. */
  reconnected(r: RelayedUpstream, client: Client): void {
    for (const uri of this.#subscribers.keys()) {
      const theirs = r.spec.uris.theirs(uri);
      if (theirs !== undefined && this.#owner(uri)?.r === r && subscribes(client))
        void client
          .subscribeResource({ uri: theirs }, opts())
          .catch((err: Error) => this.#failed(r, 'subscribe', err));
    }
    if (this.#level !== undefined && client.getServerCapabilities()?.logging !== undefined)
      void client
        .setLoggingLevel(this.#level, opts())
        .catch((err: Error) => this.#failed(r, 'setLevel', err));
  }

  async #applyLevel(): Promise<void> {
    let most: LogLevel | undefined;
    for (const l of this.#levels.values())
      if (most === undefined || LOG_LEVELS.indexOf(l) < LOG_LEVELS.indexOf(most)) most = l;
    if (most === undefined || most === this.#level) return;
    this.#level = most;
    await Promise.all(
      this.#upstreams.map((r) =>
        this.#send(
          r,
          'setLevel',
          (c) => c.getServerCapabilities()?.logging !== undefined && c.setLoggingLevel(most, opts()),
        ),
      ),
    );
  }

  /** Sends on the upstream's live connection (one that is down gets it on reconnection); never rejects. */
  async #send(
    r: RelayedUpstream,
    what: string,
    fn: (client: Client) => false | Promise<unknown>,
  ): Promise<void> {
    const client = r.upstream.liveClient();
    if (client === undefined) return;
    try {
      await fn(client);
    } catch (err) {
      this.#failed(r, what, err as Error);
    }
  }

  #failed(r: RelayedUpstream, what: string, err: Error): void {
    this.#logger.warn({ upstream: r.spec.name, err: err.message }, `could not pass ${what} upstream`);
  }
}

const RELAYED = new Set(['resources/subscribe', 'resources/unsubscribe', 'logging/setLevel']);
const DONE = Promise.resolve();
const subscribes = (c: Client) => c.getServerCapabilities()?.resources?.subscribe === true;
const opts = () => ({ timeout: RELAY_TIMEOUT_MS });

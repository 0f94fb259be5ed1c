/**
 * 2025-wire sessions: what `initialize` negotiated, plus the log level and resource
 * subscriptions the client set since. Kept behind a small async interface so a shared store
 * (Redis, for replicas) can replace the in-memory one without touching the dispatcher.
 */
import { randomUUID } from 'node:crypto';
import type { ClientCapabilities, Implementation } from '../../base/spec-types.ts';
import type { Identity, LogLevel } from '../../base/types.ts';

export interface Session {
  readonly id: string;
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo: Implementation | undefined;
  /** True once `initialize` has been answered. */
  initialized: boolean;
  /** Threshold set by `logging/setLevel`; undefined means the client did not ask. */
  logLevel: LogLevel | undefined;
  /** URIs the client subscribed to (`resources/subscribe`). */
  subscriptions: Set<string>;
  /** Who opened it ({@link sessionOwner}); undefined with auth off. */
  owner: string | undefined;
  lastSeen: number;
}

/**
 * The identity a session is bound to: its token's subject and client id, or the API key's id.
 * The MCP security guidance (2025-11-25, "Session Hijacking") has servers bind a session to
 * user-specific information and check it on every request: a request on the session from any
 * other identity is answered as for an unknown session.
 */
export function sessionOwner(identity: Identity | undefined): string | undefined {
  return identity === undefined ? undefined : JSON.stringify([identity.subject ?? null, identity.clientId]);
}

export interface SessionStore {
  /** Creates a new, not yet initialised session; undefined when the cap is reached. */
  create(): Promise<Session | undefined>;
  get(id: string): Promise<Session | undefined>;
  /** Persists changes made to a session object (a no-op for the in-memory store). */
  save(session: Session): Promise<void>;
  /**
   * Marks the session in use by a request until the returned function is called: it does not
   * expire meanwhile (however long the call runs), and its idle time counts from the release.
   */
  hold(session: Session): () => void;
  delete(id: string): Promise<boolean>;
  /** Sessions currently held, for health and shutdown. */
  size(): number;
  close(): Promise<void>;
}

export function newSession(id: string = randomUUID()): Session {
  return {
    id,
    protocolVersion: '',
    clientCapabilities: {},
    clientInfo: undefined,
    initialized: false,
    logLevel: undefined,
    subscriptions: new Set(),
    owner: undefined,
    lastSeen: Date.now(),
  };
}

/** Sessions made for one request where the host keeps none: never stored. */
const TRANSIENT = new WeakSet<Session>();

/**
 * A session for one HTTP request at a host that keeps no sessions (the fetch handler's
 * `sessions: 'stateless'`): what `initialize` or `logging/setLevel` sets on it is never stored.
 */
export function transientSession(): Session {
  const session = newSession();
  TRANSIENT.add(session);
  return session;
}

/** Persists `session`'s changes to `store`, unless it is a transient one. */
export function saveSession(store: SessionStore, session: Session): Promise<void> {
  return TRANSIENT.has(session) ? Promise.resolve() : store.save(session);
}

export interface MemorySessionStoreOptions {
  idleMs: number;
  maxSessions: number;
  now?: () => number;
  /** Called with each session id removed by idle expiry. */
  onExpire?: (id: string) => void;
}

/**
 * Sessions in this process. Idle sessions expire after `idleMs` (swept lazily on access and
 * by a timer that does not keep the process alive); at most `maxSessions` are open at once.
 */
export function createMemorySessionStore(options: MemorySessionStoreOptions): SessionStore {
  if (!(options.idleMs > 0) || !(options.maxSessions > 0)) {
    throw new RangeError('createMemorySessionStore: idleMs and maxSessions must be positive');
  }
  const now = options.now ?? Date.now;
  const sessions = new Map<string, Session>();
  /** Requests in flight per session: a session with one is not idle. */
  const busy = new Map<string, number>();

  const expired = (s: Session) => !busy.has(s.id) && now() - s.lastSeen > options.idleMs;
  const sweep = () => {
    for (const [id, s] of sessions) {
      if (expired(s)) {
        sessions.delete(id);
        options.onExpire?.(id);
      }
    }
  };
  const timer = setInterval(sweep, Math.min(options.idleMs, 60_000));
  timer.unref();

  return {
    async create() {
      if (sessions.size >= options.maxSessions) sweep();
      if (sessions.size >= options.maxSessions) return undefined;
      const session = newSession();
      session.lastSeen = now();
      sessions.set(session.id, session);
      return session;
    },
    async get(id) {
      const s = sessions.get(id);
      if (!s) return undefined;
      if (expired(s)) {
        sessions.delete(id);
        options.onExpire?.(id);
        return undefined;
      }
      s.lastSeen = now();
      return s;
    },
    async save() {},
    hold(session) {
      busy.set(session.id, (busy.get(session.id) ?? 0) + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (busy.get(session.id) ?? 1) - 1;
        if (left > 0) busy.set(session.id, left);
        else busy.delete(session.id);
        const held = sessions.get(session.id);
        if (held !== undefined) held.lastSeen = now();
      };
    },
    async delete(id) {
      return sessions.delete(id);
    },
    size() {
      return sessions.size;
    },
    async close() {
      clearInterval(timer);
      sessions.clear();
    },
  };
}

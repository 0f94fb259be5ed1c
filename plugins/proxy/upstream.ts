/**
 * The connection to the upstream MCP server, through the official client
 * (`@modelcontextprotocol/client`): a child process over stdio or a streamable-HTTP endpoint.
 * One connection serves every client of ours. It is opened at start-up; when it goes away (the
 * process exits, the pipe breaks) the calls in flight fail at once (the client rejects its
 * pending requests on close) and it is opened again after a back-off that doubles on each
 * failure. `client()` hands the live connection to a call, waiting a little for a restart.
 */

import type { Logger } from '@mcp-toolkit/server';
import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type BearerSource, bearerFetch } from './caller-token.ts';
import { InFlight } from './held-call.ts';
import { useLineBuffer } from './line-buffer.ts';
import type { ProxySettings } from './settings.ts';

/** A connection that stayed up this long resets the back-off. */
const STABLE_MS = 10_000;
/** Lines of the upstream's stderr kept for the log line of a crash. */
const STDERR_LINES = 20;

export type ListKind = 'tools' | 'prompts' | 'resources';
export type UpstreamState = 'starting' | 'up' | 'down' | 'stopped';

export interface UpstreamStatus {
  readonly state: UpstreamState;
  /** The upstream's serverInfo and negotiated protocol revision, once connected. */
  readonly server?: { name: string; version: string; protocolVersion: string | undefined };
  /** Why it is down (no secrets: the message of the failure). */
  readonly error?: string;
  readonly restarts: number;
  /** When the next attempt is due, while down. */
  readonly retryAt?: number;
}

export interface UpstreamHooks {
  /** Runs after each (re)connection, before calls are let through: read the lists. */
  connected(client: Client): Promise<void>;
  /** The upstream said a list changed. */
  listChanged(kind: ListKind): void;
  /** The upstream said a resource changed. */
  resourceUpdated?(uri: string): void;
  /**
   * The token of the caller whose session this connection serves (MCP_PROXY_FORWARD_UPSTREAM_TOKEN):
   * sent as `Authorization: Bearer` in place of MCP_PROXY_BEARER_TOKEN. Never on a shared connection.
   */
  callerBearer?(): BearerSource | undefined;
}

/** Thrown to a call when there is no upstream to send it to. */
export class UpstreamUnavailable extends Error {
  override name = 'UpstreamUnavailable';
}

/** Where the upstream is, as logs and doctor show it (no credentials, no query string). */
export function describeTarget(settings: ProxySettings): string {
  if (settings.url !== undefined) {
    const u = new URL(settings.url);
    return `${u.origin}${u.pathname}`;
  }
  return [settings.command, ...settings.args].join(' ');
}

export class Upstream {
  readonly #settings: ProxySettings;
  readonly #logger: Logger;
  readonly #hooks: UpstreamHooks;
  readonly #version: string;
  #client: Client | undefined;
  /** The connection being opened (a process being started): stop() closes it too. */
  #connecting: { client: Client; transport: Transport } | undefined;
  /** Why it was stopped, for the calls that still ask for it. */
  #stopReason = 'the server is shutting down';
  #state: UpstreamState = 'starting';
  #error: string | undefined;
  #restarts = 0;
  #attempt = 0;
  #upSince = 0;
  #retryAt: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stderr: string[] = [];
  /** The live connection's transport (its process id is waited on at stop). */
  #transportInUse: Transport | undefined;
  readonly #waiters = new Set<() => void>();
  /** The tool calls running on this connection: where the upstream's requests and logs go. */
  readonly inFlight: InFlight;

  constructor(settings: ProxySettings, logger: Logger, hooks: UpstreamHooks, version = '0.0.0') {
    this.#settings = settings;
    this.#logger = logger;
    this.#hooks = hooks;
    this.#version = version;
    this.inFlight = new InFlight(logger);
  }

  get state(): UpstreamState {
    return this.#state;
  }

  status(): UpstreamStatus {
    const client = this.#client;
    const info = client?.getServerVersion();
    return {
      state: this.#state,
      ...(info && this.#state === 'up'
        ? {
            server: {
              name: info.name,
              version: info.version,
              protocolVersion: client?.getNegotiatedProtocolVersion(),
            },
          }
        : {}),
      ...(this.#error !== undefined ? { error: this.#error } : {}),
      restarts: this.#restarts,
      ...(this.#retryAt !== undefined && this.#state === 'down' ? { retryAt: this.#retryAt } : {}),
    };
  }

  /** The live connection, or undefined while there is none (never waits). */
  liveClient(): Client | undefined {
    return this.#state === 'up' ? this.#client : undefined;
  }

  /** Connects for the first time; rejects with the reason when that fails. */
  async start(): Promise<void> {
    try {
      await this.#connect();
    } catch (err) {
      this.#down(err as Error);
      throw err;
    }
  }

  /** Keeps trying in the background after a failed start (an HTTP upstream that is not up yet). */
  retryLater(): void {
    this.#schedule();
  }

  /**
   * The live connection, for one call: at once when up, else after waiting up to
   * MCP_PROXY_WAIT_MS for a restart (or until `signal` aborts).
   */
  async client(signal: AbortSignal): Promise<Client> {
    if (this.#state === 'up' && this.#client) return this.#client;
    if (this.#state !== 'stopped' && this.#settings.waitMs > 0) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.#waiters.delete(done);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, this.#settings.waitMs);
        this.#waiters.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
      signal.throwIfAborted();
      if (this.#state === 'up' && this.#client) return this.#client;
    }
    const why = this.#state === 'stopped' ? this.#stopReason : (this.#error ?? 'not connected');
    const retry =
      this.#retryAt !== undefined && this.#state === 'down'
        ? ` It is being restarted (next attempt in ${Math.max(0, Math.ceil((this.#retryAt - Date.now()) / 1000))} s); retry shortly.`
        : '';
    throw new UpstreamUnavailable(`The upstream MCP server is unavailable: ${why}.${retry}`);
  }

  /**
   * Stops for good: no restart, the process (or HTTP session) closed, even one still starting.
   * Resolves once the process has exited (or after a bounded wait for it).
   */
  async stop(reason?: string): Promise<void> {
    if (reason !== undefined) this.#stopReason = reason;
    this.#state = 'stopped';
    clearTimeout(this.#timer);
    this.#wake();
    const client = this.#client;
    const connecting = this.#connecting;
    this.#client = undefined;
    this.#connecting = undefined;
    const pids = [pidOf(connecting?.transport), pidOf(this.#transportInUse)];
    await Promise.all([
      client?.close().catch(() => {}),
      connecting?.client.close().catch(() => {}),
      connecting?.transport.close().catch(() => {}),
    ]);
    await Promise.all(pids.map((pid) => (pid === undefined ? undefined : exited(pid))));
  }

  #transport(): Transport {
    const s = this.#settings;
    if (s.url !== undefined) {
      const headers: Record<string, string> = {};
      const caller = this.#hooks.callerBearer;
      if (s.bearerToken !== undefined && caller === undefined)
        headers.authorization = `Bearer ${s.bearerToken}`;
      if (s.apiKey !== undefined) headers[(s.apiKeyHeader ?? 'X-API-Key').toLowerCase()] = s.apiKey;
      return new StreamableHTTPClientTransport(new URL(s.url), {
        requestInit: { headers },
        ...(caller !== undefined ? { fetch: bearerFetch(caller) } : {}),
      });
    }
    const transport = new StdioClientTransport({
      command: s.command as string,
      args: [...s.args],
      // Only the minimal inherited variables (PATH, HOME, ...) and the configured ones: the
      // server's own settings and secrets stay with it.
      env: { ...getDefaultEnvironment(), ...s.env, ...s.secretEnv },
      ...(s.cwd !== undefined ? { cwd: s.cwd } : {}),
      stderr: 'pipe',
    });
    useLineBuffer(transport, s.maxMessageBytes, (what) =>
      this.#logger.warn({ dropped: what }, 'upstream message not read'),
    );
    let rest = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      rest += chunk.toString('utf8');
      const lines = rest.split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        if (line.trim() === '') continue;
        this.#stderr.push(line);
        if (this.#stderr.length > STDERR_LINES) this.#stderr.shift();
        this.#logger.debug({ upstreamStderr: line }, 'upstream stderr');
      }
    });
    return transport;
  }

  async #connect(): Promise<void> {
    this.#stderr = [];
    const listChanged = (kind: ListKind) => ({
      autoRefresh: false,
      debounceMs: 100,
      onChanged: () => this.#hooks.listChanged(kind),
    });
    const client = new Client(
      { name: 'mcp-toolkit-proxy', version: this.#version },
      {
        // Declared always (one connection serves every caller): a request from the upstream
        // goes to the caller of the tool call it came during, if that caller can answer it.
        capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} },
        listChanged: {
          tools: listChanged('tools'),
          prompts: listChanged('prompts'),
          resources: listChanged('resources'),
        },
      },
    );
    client.setNotificationHandler('notifications/message', (n) => this.inFlight.log(n.params));
    for (const method of ['elicitation/create', 'sampling/createMessage', 'roots/list'] as const) {
      client.setRequestHandler(method, (request) => this.inFlight.ask(method, request.params) as never);
    }
    client.onerror = (err) => this.#logger.debug({ err: err.message }, 'upstream connection error');
    client.onclose = () => {
      if (this.#client === client) this.#lost(client);
    };
    const timeout = this.#settings.connectTimeoutMs;
    if (this.#state === 'stopped') throw new Error(this.#stopReason);
    const transport = this.#transport();
    this.#connecting = { client, transport };
    try {
      await client.connect(transport, { timeout });
      client.setNotificationHandler('notifications/resources/updated', (n) => {
        this.#hooks.resourceUpdated?.(n.params.uri);
      });
      await withTimeout(this.#hooks.connected(client), timeout, 'reading the upstream lists');
      // Stopped while it was starting (its session ended): it must not outlive the stop.
      if (this.#isStopped()) throw new Error(`stopped while starting: ${this.#stopReason}`);
    } catch (err) {
      await client.close().catch(() => {});
      await transport.close().catch(() => {});
      if (!this.#isStopped()) {
        const tail = this.#stderr.length > 0 ? { upstreamStderr: this.#stderr.join('\n') } : {};
        this.#logger.warn({ ...tail, err: (err as Error).message }, 'upstream did not start');
      }
      throw err;
    } finally {
      if (this.#connecting?.client === client) this.#connecting = undefined;
    }
    this.#client = client;
    this.#transportInUse = transport;
    this.#state = 'up';
    this.#error = undefined;
    this.#retryAt = undefined;
    this.#upSince = Date.now();
    const info = client.getServerVersion();
    this.#logger.info(
      {
        upstream: info?.name,
        version: info?.version,
        protocolVersion: client.getNegotiatedProtocolVersion(),
      },
      'upstream connected',
    );
    this.#wake();
  }

  /** The connection went away by itself: the SDK has already failed its pending requests. */
  #lost(client: Client): void {
    this.#client = undefined;
    if (this.#state === 'stopped') return;
    if (Date.now() - this.#upSince > STABLE_MS) this.#attempt = 0;
    const tail = this.#stderr.length > 0 ? { upstreamStderr: this.#stderr.join('\n') } : {};
    this.#logger.warn(
      { ...tail, upstream: client.getServerVersion()?.name },
      'upstream went away; restarting',
    );
    this.#down(new Error('the upstream connection closed'));
    this.#schedule();
  }

  #down(err: Error): void {
    if (this.#state === 'stopped') return;
    this.#state = 'down';
    this.#error = err.message;
  }

  #schedule(): void {
    if (this.#state === 'stopped') return;
    const { restartDelayMs, restartMaxDelayMs } = this.#settings;
    const delay = Math.min(restartMaxDelayMs, restartDelayMs * 2 ** Math.min(this.#attempt, 30));
    this.#attempt++;
    this.#retryAt = Date.now() + delay;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#state === 'stopped') return;
      this.#restarts++;
      this.#connect().catch((err: Error) => {
        this.#down(err);
        this.#schedule();
      });
    }, delay);
    this.#timer.unref();
  }

  /** Read through a method: TypeScript would keep a narrowing of the field across awaits. */
  #isStopped(): boolean {
    return this.#state === 'stopped';
  }

  #wake(): void {
    for (const w of [...this.#waiters]) w();
  }
}

/** The process id of a stdio transport (undefined for HTTP, or before it started). */
function pidOf(transport: Transport | undefined): number | undefined {
  return transport instanceof StdioClientTransport ? (transport.pid ?? undefined) : undefined;
}

/** How long stop() waits for a killed process to be gone. */
const EXIT_WAIT_MS = 5_000;

/** Resolves once process `pid` no longer exists (or after EXIT_WAIT_MS). */
async function exited(pid: number): Promise<void> {
  const deadline = Date.now() + EXIT_WAIT_MS;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20).unref());
  }
}

async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, expired]);
  } finally {
    clearTimeout(timer);
  }
}

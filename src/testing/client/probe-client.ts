/**
 * The test kit's client: raw JSON-RPC over any link, with enough protocol to get a session
 * going (initialize on the 2025 wire, the `_meta` envelope and routing headers on 2026) and a
 * record of everything the server sent, so the conformance checks can look back at every
 * response (jsonrpc version, id echo, result xor error) after the fact.
 */
import { isObject, type JsonObject, type RequestId } from '../../base/jsonrpc.ts';
import { LATEST_2025 } from '../../base/versions.ts';
import type { Answer } from './answer.ts';
import {
  type ClientAnswers,
  type ClientCapability,
  capabilitiesObject,
  DEFAULT_ANSWERS,
  replyTo,
} from './client-answers.ts';
import type { Link, LinkSendOptions, LinkSendResult } from './link.ts';
import { callWithInput } from './probe-calls.ts';
import { type ListedPages, listAllPages } from './probe-lists.ts';
import { rehandshake, watchAnswer } from './probe-liveness.ts';
import { type RecordedResponse, ResponseRecord } from './probe-responses.ts';
import { CLIENT_INFO, envelopeOf, headersFor, type Wire } from './probe-wire.ts';
import {
  type ConnectOptions,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_NOTIFICATION_WAIT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_STARTUP_TIMEOUT_MS,
  type ResolvedTarget,
} from './targets.ts';

export type { Answer, RpcError } from './answer.ts';
export { describeAnswer, toolText } from './answer.ts';

export type { RecordedResponse } from './probe-responses.ts';
export type { Wire } from './probe-wire.ts';

export class ProbeClient {
  /** The connection; a new one after `restart()`. */
  link: Link;
  readonly target: ResolvedTarget;
  readonly requestTimeoutMs: number;
  readonly callTimeoutMs: number;
  readonly notificationWaitMs: number;
  readonly startupTimeoutMs: number;
  /** What the kit declares and answers for (sampling, elicitation, roots). */
  readonly clientCapabilities: readonly ClientCapability[];
  readonly clientAnswers: ClientAnswers;
  /** The wire requests go on by default, once connected. */
  wire: Wire | undefined;
  protocolVersion: string | undefined; // the negotiated 2025 version (after initialize)
  initializeResult: JsonObject | undefined;
  discoverResult: JsonObject | undefined;
  /** How the last handshake request (initialize or server/discover) ended. */
  lastHandshake: Answer | undefined;
  readonly #record = new ResponseRecord();
  readonly responses: RecordedResponse[] = this.#record.responses;
  /** Responses that answered no request in flight: answers to notifications, or stray ids. */
  readonly unmatched: JsonObject[] = this.#record.unmatched;
  /** Responses whose id matched a request only after conversion (1 answered as "1"). */
  readonly idMismatches: { sent: RequestId; received: unknown }[] = this.#record.idMismatches;
  readonly serverRequests: JsonObject[] = [];
  readonly notifications: JsonObject[] = [];
  /** Tools whose arguments are mirrored into `Mcp-Param-*` headers on 2026 (SEP-2243). */
  readonly headerParams = new Map<string, { property: string; header: string }[]>();
  #starting = true; // no answer seen yet: a stdio server may still be starting
  /** A server silent for a whole timeout is not waited for again (each handshake fallback would). */
  #silentAfterMs: number | undefined;
  #nextId = 0;
  /** Why the server stopped, once it has (probe-liveness.ts); `restart()` clears it. */
  stopped: string | undefined;
  onStopped: ((reason: string) => void) | undefined;
  /** Opens a fresh connection to the same target (a command: a new process), for `restart()`. */
  reopen: (() => Link) | undefined;
  /** The last request sent (method and the start of its params), for the report of a crash. */
  lastSent = '';

  constructor(link: Link, target: ResolvedTarget, options: ConnectOptions = {}) {
    this.link = link;
    this.target = target;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.notificationWaitMs = options.notificationWaitMs ?? DEFAULT_NOTIFICATION_WAIT_MS;
    this.startupTimeoutMs = options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    this.clientCapabilities = options.clientCapabilities ?? [];
    this.clientAnswers = options.clientAnswers ?? DEFAULT_ANSWERS;
    this.#attach(link);
  }

  #attach(link: Link): void {
    link.onMessage = (m) => this.#receive(m);
    link.onClose = (reason) => this.#record.closeAll(reason);
  }

  /** Whether a handshake completed on this connection (before it, silence is a connection problem). */
  get connected(): boolean {
    return this.initializeResult !== undefined || this.discoverResult !== undefined;
  }

  /** Records that the server stopped (once per connection) and tells `onStopped`. */
  markStopped(reason: string): void {
    if (this.stopped !== undefined) return;
    this.stopped = `the server stopped while answering ${this.lastSent || 'a request'} (the last request sent): ${reason}`;
    this.onStopped?.(this.stopped);
  }

  /** Starts the target again after it stopped (a command: a new process); see probe-liveness.ts. */
  restart(): Promise<boolean> {
    if (this.reopen === undefined) return Promise.resolve(false);
    const next = this.reopen();
    const old = this.link;
    this.link = next;
    this.#attach(next);
    this.#starting = true;
    this.#silentAfterMs = undefined;
    this.stopped = undefined;
    return rehandshake(this, old);
  }

  nextId(): number {
    return ++this.#nextId;
  }

  #receive(message: unknown): void {
    if (!isObject(message)) return;
    this.#starting = false;
    if (typeof message.method === 'string') {
      if ('id' in message) {
        this.serverRequests.push(message);
        void this.#answerServerRequest(message);
      } else this.notifications.push(message);
      return;
    }
    this.#record.receive(message);
  }

  /** Answers ping, and sampling, elicitation and roots when declared (canned answers); refuses the rest. */
  async #answerServerRequest(request: JsonObject): Promise<void> {
    const reply = replyTo(request, this.clientCapabilities, this.clientAnswers);
    try {
      await this.link.send(reply, { headers: this.#headersFor(reply, this.wire ?? '2025') });
    } catch {
      // The link is gone; the waiting request reports that.
    }
  }

  /** The client capabilities declared in initialize and in every 2026 envelope. */
  capabilities(): JsonObject {
    return capabilitiesObject(this.clientCapabilities);
  }

  /** 2026: the `_meta` envelope (protocol version and client capabilities; clientInfo optional). */
  envelope(params: JsonObject | undefined): JsonObject {
    return envelopeOf(params, this.capabilities());
  }

  #headersFor(message: JsonObject, wire: Wire): Record<string, string> {
    return headersFor(message, wire, {
      transport: this.link.transport,
      protocolVersion: this.protocolVersion,
      headerParams: this.headerParams,
    });
  }

  /** Sends one message as given (even malformed), waits for its id's response; `wire` picks the headers. */
  async raw(
    message: JsonObject | string,
    options: {
      timeoutMs?: number;
      wire?: Wire;
      omitSession?: boolean;
      headers?: Record<string, string>;
      /** The message is invalid by design: an error with `id: null` is its answer. */
      nullIdAnswers?: boolean;
      /** The kit's own liveness probe: not watched itself. */
      liveness?: boolean;
    } = {},
  ): Promise<Answer> {
    const wire = options.wire ?? this.wire ?? '2025';
    if (!options.liveness && typeof message !== 'string' && typeof message.method === 'string')
      this.lastSent = `${message.method} ${(JSON.stringify(message.params) ?? '').slice(0, 100)}`.trim();
    const answer = await this.#send(message, wire, options);
    if (!options.liveness) await watchAnswer(this, answer, wire);
    return answer;
  }

  async #send(
    message: JsonObject | string,
    wire: Wire,
    options: {
      timeoutMs?: number;
      omitSession?: boolean;
      headers?: Record<string, string>;
      nullIdAnswers?: boolean;
    },
  ): Promise<Answer> {
    const obj = typeof message === 'string' ? undefined : message;
    const hasId =
      obj !== undefined && 'id' in obj && (typeof obj.id === 'number' || typeof obj.id === 'string');
    const asked = options.timeoutMs ?? this.requestTimeoutMs;
    const timeoutMs =
      this.#starting && this.link.transport === 'stdio' ? Math.max(asked, this.startupTimeoutMs) : asked;
    if (this.link.failure !== undefined) return { kind: 'closed', reason: this.link.failure };
    // A stopped server is not asked again until restart(): a hung one costs a timeout a request.
    if (this.stopped !== undefined) return { kind: 'closed', reason: this.stopped };
    if (hasId && this.#starting && this.#silentAfterMs !== undefined)
      return { kind: 'timeout', afterMs: this.#silentAfterMs };
    const abort = new AbortController();
    let settle: (a: Answer) => void = () => {};
    const answered = new Promise<Answer>((resolve) => {
      settle = resolve;
    });
    let done = false;
    const finish = (a: Answer) => {
      if (done) return;
      done = true;
      settle(a);
    };
    if (hasId)
      this.#record.expect(obj.id, {
        request: obj,
        wire,
        resolve: finish,
        ...(options.nullIdAnswers ? { nullIdAnswers: true } : {}),
      });
    const timer = setTimeout(() => {
      if (this.#starting) this.#silentAfterMs ??= timeoutMs;
      if (hasId) this.#record.expire(obj.id);
      abort.abort();
      finish({ kind: 'timeout', afterMs: timeoutMs });
      // A call past its deadline is cancelled (Cancellation utility), so a long-running tool stops
      // working for nobody. Over HTTP on the 2026 wire, closing the request (abort above) is the
      // cancellation; everywhere else a notifications/cancelled goes out as well.
      if (hasId && !(wire === '2026' && this.link.transport === 'http'))
        void this.#cancel(obj.id as RequestId, wire);
    }, timeoutMs);
    const sendOptions: LinkSendOptions = {
      headers: { ...(obj ? this.#headersFor(obj, wire) : {}), ...options.headers },
      signal: abort.signal,
      ...(options.omitSession ? { omitSession: true } : {}),
      ...(hasId
        ? {
            stopWhen: (m: unknown) =>
              isObject(m) &&
              !('method' in m) &&
              (String(m.id) === String(obj.id) || (options.nullIdAnswers === true && m.id === null)),
          }
        : {}),
    };
    let sent: LinkSendResult;
    try {
      sent = await this.link.send(message, sendOptions);
    } catch (err) {
      clearTimeout(timer);
      if (hasId) this.#record.forget(obj.id);
      if (abort.signal.aborted) return answered;
      finish({ kind: 'closed', reason: (err as Error).message });
      return answered;
    }
    if (sent.status !== undefined) {
      // HTTP: the exchange is over; a request still waiting got no JSON-RPC answer.
      if (!hasId) finish({ kind: 'http', status: sent.status });
      else if (this.#record.forget(obj.id)) {
        finish({ kind: 'http', status: sent.status, ...(sent.bodyText ? { bodyText: sent.bodyText } : {}) });
      }
      const a = await answered;
      clearTimeout(timer);
      return a.kind === 'result' || a.kind === 'error' ? { ...a, status: sent.status } : a;
    }
    // A stream carries no answer to a message without an id: it is sent, and that is all.
    if (!hasId) finish({ kind: 'http', status: 0 });
    const a = await answered;
    clearTimeout(timer);
    return a;
  }

  async #cancel(id: RequestId, wire: Wire): Promise<void> {
    const message: JsonObject = {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, reason: 'mcp-toolkit test: timed out' },
    };
    try {
      await this.link.send(
        wire === '2026' ? { ...message, params: this.envelope(message.params as JsonObject) } : message,
        {
          headers: this.#headersFor(message, wire),
        },
      );
    } catch {
      // Nothing to cancel on a dead link.
    }
  }

  /**
   * Sends a request that is invalid by design (e.g. `params: null`), where an error with
   * `id: null` counts as its answer. Over a stream, a `ping` follows it: once the ping is
   * answered, an answer still missing is not coming (no 10 s wait for a server that drops it).
   */
  async rawInvalid(message: JsonObject, options: { wire?: Wire } = {}): Promise<Answer> {
    const wire = options.wire ?? this.wire ?? '2025';
    if (this.link.transport === 'http') return this.raw(message, { wire, nullIdAnswers: true });
    const answer = this.raw(message, { wire, nullIdAnswers: true });
    const marker = this.request('ping', {}, { wire, envelope: wire === '2026' });
    const first = await Promise.race([answer, marker.then(() => undefined)]);
    if (first !== undefined) return first;
    const grace = new Promise<undefined>((r) => setTimeout(() => r(undefined), this.notificationWaitMs));
    const late = await Promise.race([answer, grace]);
    if (late !== undefined) return late;
    // Given up: a late answer is not a stray id.
    this.#record.expire(message.id, {
      kind: 'unanswered',
      reason: 'a ping sent after it was answered, this never was',
    });
    return answer;
  }

  /** A request on the current wire (2026: with the envelope unless `envelope: false`). */
  request(
    method: string,
    params?: JsonObject,
    options: { timeoutMs?: number; wire?: Wire; envelope?: boolean; id?: RequestId } = {},
  ): Promise<Answer> {
    const wire = options.wire ?? this.wire ?? '2025';
    const withEnvelope = options.envelope ?? wire === '2026';
    const message: JsonObject = { jsonrpc: '2.0', id: options.id ?? this.nextId(), method };
    const body = withEnvelope ? this.envelope(params) : params;
    if (body !== undefined) message.params = body;
    return this.raw(message, { timeoutMs: options.timeoutMs, wire });
  }

  /**
   * Sends a notification and returns what came back: on HTTP the status (202 expected); on
   * streams whatever responses arrived in the quiet period after it (none expected).
   */
  async notify(
    method: string,
    params?: JsonObject,
    options: { wire?: Wire } = {},
  ): Promise<{ status?: number; responses: JsonObject[] }> {
    const before = this.unmatched.length;
    const message: JsonObject = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    const wire = options.wire ?? this.wire ?? '2025';
    let status: number | undefined;
    try {
      status = (await this.link.send(message, { headers: this.#headersFor(message, wire) })).status;
    } catch {
      return { responses: [] };
    }
    if (status === undefined) await new Promise((r) => setTimeout(r, this.notificationWaitMs));
    return { ...(status !== undefined ? { status } : {}), responses: this.unmatched.slice(before) };
  }

  /** The 2025 handshake's first half: initialize (the caller decides on notifications/initialized). */
  async initialize(protocolVersion: string = LATEST_2025): Promise<Answer> {
    const answer = await this.request(
      'initialize',
      { protocolVersion, capabilities: this.capabilities(), clientInfo: CLIENT_INFO },
      { wire: '2025', envelope: false },
    );
    this.lastHandshake = answer;
    if (answer.kind === 'result') {
      this.initializeResult = answer.result;
      if (typeof answer.result.protocolVersion === 'string')
        this.protocolVersion = answer.result.protocolVersion;
      else this.protocolVersion ??= protocolVersion;
    }
    return answer;
  }

  async discover(): Promise<Answer> {
    const answer = await this.request('server/discover', {}, { wire: '2026', envelope: true });
    this.lastHandshake = answer;
    if (answer.kind === 'result') this.discoverResult = answer.result;
    return answer;
  }

  /**
   * Calls a tool on the current wire with the per-call timeout (`extra` params on every round).
   * On 2026, an input-required result whose every request this client can answer is retried with
   * the answers (SEP-2322), up to a few rounds; what it cannot answer is returned as it came.
   */
  callTool(
    name: string,
    args: unknown,
    options: { timeoutMs?: number; extra?: JsonObject } = {},
  ): Promise<Answer> {
    return callWithInput(this, name, args, options);
  }

  /** Every page of a list method; stops at a repeated cursor, an error, or 100 pages. */
  listAll(method: string, field: string): Promise<ListedPages> {
    return listAllPages(this, method, field);
  }

  async close(): Promise<void> {
    await this.link.close();
  }
}

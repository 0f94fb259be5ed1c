/**
 * What passes between a transport and the dispatcher: the Exchange a transport describes a
 * message with, and the Reply it gets back (the observer that sees every request: observer.ts).
 */

import { ErrorCode, ProtocolError } from '../base/errors.ts';
import type { JsonRpcResponse } from '../base/jsonrpc.ts';
import type { Headers, HttpRequestInfo, Identity } from '../base/types.ts';
import type { OutboundChannel } from './hub/channel.ts';
import type { Session } from './session/store.ts';
import type { WireProfile } from './wires/profile.ts';

/** What a transport tells the dispatcher about one inbound message or batch. */
export interface Exchange {
  readonly transport: 'stdio' | 'http';
  /**
   * The wire profile the transport classified a single message with (HTTP, `classifyWire`);
   * absent, the dispatcher classifies each message itself (stdio, a stream of them).
   */
  readonly profile?: WireProfile;
  /** HTTP request headers, lower-case names (absent on stdio: header checks are HTTP's). */
  readonly headers?: Headers;
  /** The 2025-wire session (stdio: the connection's; HTTP: from Mcp-Session-Id). */
  readonly session?: Session;
  readonly identity?: Identity;
  /** Where notifications and server-to-client requests tied to a request go. */
  readonly channel?: OutboundChannel;
  /** Told when the client goes away (HTTP connection closed, stdio connection closed). */
  readonly presence?: ClientPresence;
  /** The client's network address (HTTP; from X-Forwarded-For behind trusted proxies). */
  readonly address?: string;
  /** The HTTP request as handlers may see it (`ctx.http`): no credentials. */
  readonly http?: HttpRequestInfo;
  /** The client's port (HTTP; the connection's), for `client.port` on spans. */
  readonly port?: number;
  /** The HTTP version of the request (`1.1`, `2`), for `network.protocol.version`. */
  readonly httpVersion?: string;
}

/**
 * Whether the client of an exchange is still there. When it leaves, every request still
 * running under it is aborted. A slot (and a Set when needed) per exchange instead of an
 * AbortSignal with a listener per request: this runs on every call.
 */
export class ClientPresence {
  // Made per request: fields `private`, not `#private` (V8 defines each `#` field through a
  // keyed store call on every construction: docs/performance.md).
  // One request per exchange is the common case (an HTTP POST, a stdio client waiting for
  // each answer): a plain slot for it, a Set only when more run at once.
  private _one: Abortable | undefined = undefined;
  private _more: Set<Abortable> | undefined = undefined;
  private _gone = false;

  /** True once the client has left. */
  get gone(): boolean {
    return this._gone;
  }

  /** Aborts `request` if the client leaves before `untrack`; at once if it has already left. */
  track(request: Abortable): void {
    if (this._gone) request.abort(clientGone());
    else if (this._one === undefined) this._one = request;
    else {
      this._more ??= new Set();
      this._more.add(request);
    }
  }

  untrack(request: Abortable): void {
    if (this._one === request) this._one = undefined;
    else this._more?.delete(request);
  }

  /**
   * The server stops the requests running under this exchange (a drain past its deadline):
   * each is aborted with `reason`, which becomes its answer, while the client is still there.
   */
  interrupt(reason: unknown): void {
    this._one?.abort(reason);
    if (this._more) for (const request of this._more) request.abort(reason);
  }

  /** The client went away: aborts what is running. Idempotent. */
  leave(): void {
    if (this._gone) return;
    this._gone = true;
    const one = this._one;
    const more = this._more;
    this._one = undefined;
    this._more = undefined;
    one?.abort(clientGone());
    if (more) for (const request of more) request.abort(clientGone());
  }
}

/** What the presence needs of a request (RequestContext: its one abort entry). */
export interface Abortable {
  abort(reason: unknown): void;
}

const clientGone = () => new ProtocolError(ErrorCode.InternalError, 'the client went away');

/**
 * What a transport does with the reply (`Dispatcher.handle`'s `then`), run in the request's own
 * reaction: the promise `handle` returns settles with what it returns, with no promise and turn
 * of the transport's own between. `failed` gets what the dispatcher itself throws (a bug).
 */
export interface ReplyThen<R> {
  done(reply: Reply): R;
  failed(err: unknown): R;
}

export interface Reply {
  /** Response(s); undefined for notifications, posted responses and all-notification batches. */
  body?: JsonRpcResponse | JsonRpcResponse[];
  /** HTTP status the rules require (400, 404, ...), when not 200. */
  status?: number;
  /** A session created by `initialize` (HTTP issues its id in Mcp-Session-Id). */
  session?: Session;
  /** HTTP headers the rules require (WWW-Authenticate on 403, Retry-After on 429). */
  headers?: Readonly<Record<string, string>>;
}

/**
 * How the dispatcher ends a request (dispatcher.ts): observation, session release, failure
 * reply and the transport's own ending, in one object made per request, so that the handler's
 * one reaction ends it all.
 */
import type { Logger } from 'pino';
import { ErrorCode, ProtocolError } from '../base/errors.ts';
import { errorResponse, type JsonObject, type JsonRpcRequest } from '../base/jsonrpc.ts';
import type { Reply, ReplyThen } from './exchange.ts';
import type { ObservedRequest } from './observer.ts';
import type { RequestRecord } from './request-record.ts';

/**
 * How a request ends, whichever way it goes: its observation ended with the outcome, its
 * session released, and a failure turned into its error reply. Made once per request, so the
 * handler's one reaction ends the request (no second promise and reaction for it).
 */
export class Finish {
  // Made per request: fields `private`, not `#private` (V8 defines each `#` field through a
  // keyed store call on every construction: docs/performance.md).
  readonly record: RequestRecord;
  readonly observed: ObservedRequest | undefined;
  private readonly _logger: Logger;
  private readonly _req: JsonRpcRequest;
  private readonly _release: (() => void) | undefined;
  /** The transport's own ending (`handle`'s `then`), run in the same reaction. */
  private readonly _then: ReplyThen<unknown> | undefined;

  constructor(
    logger: Logger,
    req: JsonRpcRequest,
    record: RequestRecord,
    observed: ObservedRequest | undefined,
    release: (() => void) | undefined,
    then: ReplyThen<unknown> | undefined,
  ) {
    this._logger = logger;
    this._req = req;
    this.record = record;
    this.observed = observed;
    this._release = release;
    this._then = then;
  }

  /** The request answered `reply`: ended, then handed to the transport's `then` if any. */
  replied(reply: Reply): Reply {
    let out: Reply;
    try {
      out = this._replied(reply);
    } catch (err) {
      if (this._then === undefined) throw err;
      return this._then.failed(err) as Reply;
    }
    return this._then === undefined ? out : (this._then.done(out) as Reply);
  }

  /** The request failed with `err`: its error reply, ended and handed on as `replied` does. */
  failed(err: unknown): Reply {
    let out: Reply;
    try {
      out = this._failed(err);
    } catch (thrown) {
      if (this._then === undefined) throw thrown;
      return this._then.failed(thrown) as Reply;
    }
    return this._then === undefined ? out : (this._then.done(out) as Reply);
  }

  /** Throws only what the observer or the release throws. */
  private _replied(reply: Reply): Reply {
    try {
      const body = reply.body as { result?: JsonObject } | undefined;
      this.observed?.end({ result: body?.result, session: reply.session });
    } catch (err) {
      return this._failed(err);
    }
    this._release?.();
    return reply;
  }

  private _failed(err: unknown): Reply {
    try {
      this.observed?.end({ error: err instanceof Error ? err : new Error(String(err)) });
    } finally {
      this._release?.();
    }
    return failureReply(this._req, err, this.record, this._logger);
  }

  /** A promise of the reply: `reply` when given, else the failure `err` answers; rejects only if ending throws. */
  settle(err: unknown, reply?: Reply): Promise<Reply> {
    try {
      return Promise.resolve(reply === undefined ? this.failed(err) : this.replied(reply));
    } catch (thrown) {
      return Promise.reject(thrown);
    }
  }
}

/** A failed request's reply: a protocol error as it is, anything else logged and a -32603. */
function failureReply(req: JsonRpcRequest, err: unknown, record: RequestRecord, logger: Logger): Reply {
  if (err instanceof ProtocolError) {
    const reply: Reply = { body: errorResponse(req.id, err) };
    if (err.httpStatus !== undefined) reply.status = err.httpStatus;
    if (err.httpHeaders !== undefined) reply.headers = err.httpHeaders;
    return reply;
  }
  logger.error({ err, method: req.method, wire: record.wire }, 'request failed');
  return {
    body: errorResponse(
      req.id,
      new ProtocolError(ErrorCode.InternalError, 'Internal error: see the server logs'),
    ),
  };
}

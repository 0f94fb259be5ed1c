/**
 * Server-to-client requests (elicitation, sampling, roots) waiting for the client's answer,
 * by session and id. An answer no call here waits for goes to the other replicas: the call
 * may be waiting on one of them.
 */

import { ClientAnswerError, InternalCode, ToolkitError } from '../../base/errors.ts';
import { idText } from '../../base/json-ids.ts';
import type { JsonObject, JsonRpcResponse } from '../../base/jsonrpc.ts';
import type { OutboundChannel } from './channel.ts';
import type { HubRelay } from './relay.ts';

interface Pending {
  method: string;
  resolve(result: JsonObject): void;
  reject(error: Error): void;
}

export interface ClientRequestsOptions {
  relay?: HubRelay;
  /**
   * Prefix of server-to-client request ids (default `s2c-`). Replicas need distinct prefixes:
   * an answer relayed to every replica must match only the call that asked.
   */
  requestIdPrefix?: string;
}

export class ClientRequests {
  readonly #pending = new Map<string, Pending>();
  readonly #relay: HubRelay | undefined;
  readonly #idPrefix: string;
  #nextId = 0;

  constructor(options: ClientRequestsOptions = {}) {
    this.#relay = options.relay;
    this.#idPrefix = options.requestIdPrefix ?? 's2c-';
  }

  /**
   * Sends a server-to-client request on `channel` and waits for the client's response,
   * routed back by `deliver`. Rejects on timeout or abort.
   */
  request(
    scope: string,
    channel: OutboundChannel,
    method: string,
    params: JsonObject,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<JsonObject> {
    const id = `${this.#idPrefix}${++this.#nextId}`;
    const key = `${scope}\u0000${id}`;
    return new Promise<JsonObject>((resolve, reject) => {
      let sent = false;
      const cleanup = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.#pending.delete(key);
      };
      // A sender that stops waiting SHOULD tell the receiver (2025-11-25 lifecycle, timeouts).
      const cancel = (reason: string) => {
        if (sent)
          channel.send({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: id, reason },
          });
      };
      const onAbort = () => {
        cleanup();
        cancel('the request that needed this answer ended');
        reject(new ToolkitError(InternalCode.Cancelled, `${method} was cancelled`));
      };
      const timer = setTimeout(() => {
        cleanup();
        cancel(`no answer within ${options.timeoutMs} ms`);
        reject(
          new ToolkitError(
            InternalCode.Timeout,
            `The client did not answer ${method} within ${options.timeoutMs} ms`,
          ),
        );
      }, options.timeoutMs);
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending.set(key, {
        method,
        resolve: (r) => {
          cleanup();
          resolve(r);
        },
        reject: (e) => {
          cleanup();
          reject(e);
        },
      });
      sent = true;
      channel.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  /**
   * Fails every server-to-client request still waiting in `scope`: the client can no longer
   * answer (stdin ended, session deleted), so the calls behind them end now, not at timeout.
   */
  failPending(scope: string, reason: string): void {
    const prefix = `${scope}\u0000`;
    for (const [key, pending] of this.#pending) {
      if (key.startsWith(prefix)) pending.reject(new ToolkitError(InternalCode.SessionClosed, reason));
    }
  }

  /**
   * Routes a client's response to the waiting request; false when nothing here waits for it
   * (then it goes to the other replicas, if any: the call may be waiting on one of them).
   */
  deliver(scope: string, response: JsonRpcResponse): boolean {
    if (this.deliverLocal(scope, response)) return true;
    this.#relay?.publish({ type: 'response', scope, response });
    return false;
  }

  /** Routes an answer to a request waiting here only (one another replica relayed). */
  deliverLocal(scope: string, response: JsonRpcResponse): boolean {
    const pending = this.#pending.get(`${scope}\u0000${idText(response.id)}`);
    if (!pending) return false;
    if ('error' in response) {
      pending.reject(new ClientAnswerError(pending.method, response.error));
    } else {
      pending.resolve(response.result);
    }
    return true;
  }
}

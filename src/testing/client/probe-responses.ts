/**
 * The test kit's record of what a server answered: each response matched to the request in
 * flight with its id (or, for an answer with a re-typed id or `id: null` to a request that is
 * invalid by design, to the request it most likely answers), with what matched nothing kept
 * aside, so the conformance checks can look back at every response after the fact.
 */
import { isObject, type JsonObject, type RequestId } from '../../base/jsonrpc.ts';
import type { Answer, RpcError } from './answer.ts';
import type { Wire } from './probe-wire.ts';

export interface RecordedResponse {
  response: JsonObject;
  /** The request it answered (undefined when it matched none). */
  request: JsonObject | undefined;
  wire: Wire;
}

export interface Pending {
  request: JsonObject;
  wire: Wire;
  resolve: (answer: Answer) => void;
  /**
   * A deliberately invalid request: an error with `id: null` answers it too (JSON-RPC 2.0 §5:
   * the id is null when it could not be read from an invalid request).
   */
  nullIdAnswers?: boolean;
}

function key(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}

export class ResponseRecord {
  readonly responses: RecordedResponse[] = [];
  /** Responses that answered no request in flight: answers to notifications, or stray ids. */
  readonly unmatched: JsonObject[] = [];
  /** Responses whose id matched a request only after conversion (1 answered as "1"). */
  readonly idMismatches: { sent: RequestId; received: unknown }[] = [];
  readonly #pending = new Map<string, Pending>();
  /** Requests given up on (timeout): a late answer to one is not a stray id. */
  readonly #expired = new Set<string>();

  /** Waits for the response to `id`. */
  expect(id: unknown, pending: Pending): void {
    this.#pending.set(key(id), pending);
  }

  /** Stops waiting for `id`; true when it was waiting. */
  forget(id: unknown): boolean {
    return this.#pending.delete(key(id));
  }

  /** Gives up on `id`: a late answer to it is then not a stray id. `answer`, if given, settles it. */
  expire(id: unknown, answer?: Answer): boolean {
    const k = key(id);
    const pending = this.#pending.get(k);
    if (!pending) return false;
    this.#pending.delete(k);
    this.#expired.add(k);
    if (answer) pending.resolve(answer);
    return true;
  }

  /** The link closed: every waiting request ends with that. */
  closeAll(reason: string): void {
    for (const [k, p] of this.#pending) {
      this.#pending.delete(k);
      p.resolve({ kind: 'closed', reason });
    }
  }

  /** A response arrived: recorded, and handed to the request it answers. */
  receive(message: JsonObject): void {
    let k = key(message.id);
    let pending = this.#pending.get(k);
    if (!pending && message.id !== null && message.id !== undefined) {
      // Loose match: the server answered the right request with a re-typed id.
      for (const [pk, p] of this.#pending) {
        if (String(p.request.id) === String(message.id)) {
          pending = p;
          k = pk;
          this.idMismatches.push({ sent: p.request.id as RequestId, received: message.id });
          break;
        }
      }
    }
    if (!pending && message.id === null && isObject(message.error)) {
      for (const [pk, p] of this.#pending) {
        if (!p.nullIdAnswers) continue;
        pending = p;
        k = pk;
        break;
      }
    }
    if (!pending && this.#expired.delete(key(message.id))) return;
    this.responses.push({ response: message, request: pending?.request, wire: pending?.wire ?? '2025' });
    if (!pending) {
      this.unmatched.push(message);
      return;
    }
    this.#pending.delete(k);
    const error = message.error;
    if (isObject(error) && !('result' in message && isObject(message.result))) {
      pending.resolve({ kind: 'error', error: error as unknown as RpcError, response: message });
    } else if (isObject(message.result)) {
      pending.resolve({ kind: 'result', result: message.result, response: message });
    } else {
      pending.resolve({
        kind: 'error',
        error: { code: Number.NaN, message: 'malformed response (no result object, no error object)' },
        response: message,
      });
    }
  }
}

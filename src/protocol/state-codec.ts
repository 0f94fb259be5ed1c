/**
 * Seals 2026-wire `requestState` (SEP-2322): the state a handler attached to an
 * input-required round travels through the client, so it is HMAC-SHA256 protected, bound to
 * the method and target it was issued for, and given an expiry. Tampered, foreign or
 * expired state is rejected with -32602.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ErrorCode, ProtocolError } from '../base/errors.ts';

export interface StateCodec {
  seal(state: unknown, bind: string): string;
  open(sealed: unknown, bind: string): unknown;
}

interface Payload {
  s: unknown;
  e: number;
  b: string;
}

/**
 * @param secret `MCP_STATE_SECRET`; a random per-process key when undefined (fine for one
 *   replica; several replicas must share a secret).
 */
export function createStateCodec(options: {
  secret?: string;
  ttlMs: number;
  now?: () => number;
}): StateCodec {
  const key = options.secret ? Buffer.from(options.secret, 'utf8') : randomBytes(32);
  const now = options.now ?? Date.now;
  const mac = (body: string) => createHmac('sha256', key).update(body).digest();
  const reject = (why: string): never => {
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      `Invalid requestState: ${why}; start the request again without it`,
    );
  };
  return {
    seal(state, bind) {
      const payload: Payload = { s: state, e: now() + options.ttlMs, b: bind };
      const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
      return `${body}.${mac(body).toString('base64url')}`;
    },
    open(sealed, bind) {
      if (typeof sealed !== 'string') return reject('it must be the string the server sent');
      const dot = sealed.indexOf('.');
      if (dot <= 0) return reject('it was not issued by this server');
      const body = sealed.slice(0, dot);
      const given = Buffer.from(sealed.slice(dot + 1), 'base64url');
      const expected = mac(body);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return reject('its signature does not match (tampered, or sealed with another key)');
      }
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Payload;
      if (payload.b !== bind) return reject('it was issued for another request');
      if (payload.e < now()) return reject('it has expired');
      return payload.s;
    },
  };
}

/**
 * Trace and span ids for the Node SDK (its `idGenerator` option), cut from a pool of random
 * hex text: every request's span gets ids before the sampler decides, a sampled-out one too
 * (its trace id still reaches the log line and the `traceparent` a handler sends on), so the
 * ids are made on every request. The SDK's own generator writes `Math.random()` words into a
 * buffer and hex-encodes it per id (a call into Node's C++ each time); here one
 * `crypto.randomBytes` of `POOL_BYTES` is hex-encoded at once and each id is a slice of it
 * (W3C Trace Context §3.2.2.3: ids are random, not all zeros).
 */
import { randomBytes } from 'node:crypto';
import type { IdGenerator } from '@opentelemetry/sdk-trace';

/** Bytes drawn at a time: 256 trace ids or 512 span ids. */
const POOL_BYTES = 4096;
const ZERO_SPAN_ID = '0'.repeat(16);
const ZERO_TRACE_ID = '0'.repeat(32);

/**
 * @example
 * new NodeSDK({ idGenerator: new PooledIdGenerator(), ... });
 */
export class PooledIdGenerator implements IdGenerator {
  #pool = '';
  #at = 0;

  /** 32 lowercase hex characters (16 random bytes), never all zeros. */
  generateTraceId(): string {
    let id = this.#take(32);
    while (id === ZERO_TRACE_ID) id = this.#take(32);
    return id;
  }

  /** 16 lowercase hex characters (8 random bytes), never all zeros. */
  generateSpanId(): string {
    let id = this.#take(16);
    while (id === ZERO_SPAN_ID) id = this.#take(16);
    return id;
  }

  #take(chars: number): string {
    if (this.#at + chars > this.#pool.length) {
      this.#pool = randomBytes(POOL_BYTES).toString('hex');
      this.#at = 0;
    }
    const id = this.#pool.slice(this.#at, this.#at + chars);
    this.#at += chars;
    return id;
  }
}

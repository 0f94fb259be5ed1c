/** A refused rate-limit decision as the protocol error every transport knows how to send. */
import { ErrorCode, ProtocolError } from '../protocol/errors.ts';
import type { RateDecision } from './limiter.ts';

export function rateLimitError(
  decision: Exclude<RateDecision, { allowed: true }>,
  what = 'this client',
): ProtocolError {
  if (decision.reason === 'unavailable') {
    return new ProtocolError(
      ErrorCode.ServiceUnavailable,
      'Service unavailable: the rate-limit store cannot be reached; retry shortly',
      { httpStatus: 503 },
    );
  }
  const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  return new ProtocolError(
    ErrorCode.RateLimited,
    `Rate limit exceeded for ${what}: retry after ${seconds} s`,
    {
      httpStatus: 429,
      httpHeaders: { 'retry-after': String(seconds) },
      data: { retryAfterMs: decision.retryAfterMs },
    },
  );
}

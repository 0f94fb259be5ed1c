/** A refused rate-limit decision as the protocol error every transport knows how to send. */
import type { ProtocolError } from '../base/errors.ts';
import { Refusal } from '../base/refusals.ts';
import type { RateDecision } from './decision.ts';

export function rateLimitError(
  decision: Exclude<RateDecision, { allowed: true }>,
  what = 'this client',
): ProtocolError {
  if (decision.reason === 'unavailable') return Refusal.rateLimitStoreUnavailable();
  return Refusal.rateLimited(what, decision.retryAfterMs);
}

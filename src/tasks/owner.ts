/**
 * Who a task belongs to. SEP-2663 (Security Considerations) makes servers check on every
 * task request that the caller may access the task; SEP-1686 binds tasks to the
 * authorisation context. A task is visible only to the identity that created it: the
 * authenticated client (and token subject) when auth is on; without auth, the 2025 session
 * that created it, or every unauthenticated 2026 caller (whose only secret is the unguessable
 * task id). Anyone else gets the answer an unknown task id gets.
 */
import type { Identity } from '../base/types.ts';

export function ownerOf(caller: { identity: Identity | undefined; sessionId: string | undefined }): string {
  const identity = caller.identity;
  if (identity) return `client:${identity.clientId}\u0000${identity.subject ?? ''}`;
  if (caller.sessionId !== undefined) return `session:${caller.sessionId}`;
  return 'anonymous';
}

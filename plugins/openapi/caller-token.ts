/**
 * The caller's own upstream token as an operation's bearer credential
 * (`MCP_OPENAPI_FORWARD_UPSTREAM_TOKEN`): behind `MCP_AUTH=oauth-proxy` each signed-in user has
 * a token at the identity provider they signed in with (`ctx.upstreamToken()`), and an API that
 * accepts that provider's tokens (GitHub's, the company's) can be called as that user instead of
 * as the server's one service account (`MCP_OPENAPI_BEARER_TOKEN`). The credential plan is made
 * once per operation at start-up with a placeholder; each call puts its caller's token in.
 */
import type { Credential } from './credentials.ts';
import type { Operation } from './document.ts';
import { matches } from './select.ts';

/** Stands for the caller's upstream token in a credential plan, until a call fills it in. */
export const CALLER_TOKEN = '\u0000caller-upstream-token';

/** Whether `MCP_OPENAPI_FORWARD_UPSTREAM_TOKEN` names this operation (`*`: every one). */
export function forwardsUpstreamToken(op: Operation, entries: readonly string[]): boolean {
  return entries.some((entry) => entry === '*' || matches(entry, op));
}

/** Entries of `MCP_OPENAPI_FORWARD_UPSTREAM_TOKEN` that name no operation (likely a typo). */
export function unmatchedForwards(ops: readonly Operation[], entries: readonly string[]): string[] {
  return entries.filter((entry) => entry !== '*' && !ops.some((op) => matches(entry, op)));
}

/** Whether the plan's bearer credential is the caller's token (the operation's security takes one). */
export function carriesCallerToken(credentials: readonly Credential[]): boolean {
  return credentials.some((c) => c.kind === 'bearer' && c.token === CALLER_TOKEN);
}

/**
 * The plan with this call's token in place of the placeholder.
 *
 * @example
 * const credentials = withCallerToken(plan.credentials, await ctx.upstreamToken());
 */
export function withCallerToken(credentials: readonly Credential[], token: string): Credential[] {
  return credentials.map((c) =>
    c.kind === 'bearer' && c.token === CALLER_TOKEN ? { kind: 'bearer', token } : c,
  );
}

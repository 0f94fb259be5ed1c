/**
 * Visibility by caller: with auth on, lists leave out what the caller may not use and a call
 * to a hidden item answers as for an unknown one (FastMCP's per-component visibility). An
 * item is hidden by its `scopes` (when the caller's token or key lacks one, and scope hiding is on)
 * or by its `visible(identity)` rule. Without auth (no identity) everything is visible.
 */

import type { Identity } from '../base/types.ts';
import type { VisibilityRule } from './types.ts';

/** What visibility reads of a tool, resource, template or prompt spec. */
export interface Restrictable {
  readonly scopes?: readonly string[];
  readonly visible?: VisibilityRule;
}

export type Visibility = (spec: Restrictable, identity: Identity | undefined) => boolean;

/** Whether a spec's visibility can depend on the caller at all. */
export function isRestricted(spec: Restrictable): boolean {
  return spec.visible !== undefined || (spec.scopes !== undefined && spec.scopes.length > 0);
}

/** Everything visible to everyone (auth off, stdio). */
export const ALL_VISIBLE: Visibility = () => true;

/**
 * @param hideByScopes hide items whose scopes the caller lacks (`MCP_SCOPE_VISIBILITY=hide`);
 *   when false they stay listed and a call answers 403 `insufficient_scope` (step-up).
 * @param hasScopes whether an identity holds the scopes (the authenticator's rule: a key of
 *   `MCP_API_KEYS` carries no scopes and is never refused for them).
 *
 * @example
 * const visible = createVisibility({ hideByScopes: true, hasScopes: (id, s) => s.every((x) => id.scopes.includes(x)) });
 */
export function createVisibility(options: {
  hideByScopes: boolean;
  hasScopes: (identity: Identity, scopes: readonly string[]) => boolean;
}): Visibility {
  const { hideByScopes, hasScopes } = options;
  return (spec, identity) => {
    if (identity === undefined) return true;
    if (hideByScopes && spec.scopes && spec.scopes.length > 0 && !hasScopes(identity, spec.scopes))
      return false;
    return spec.visible === undefined || spec.visible(identity) === true;
  };
}

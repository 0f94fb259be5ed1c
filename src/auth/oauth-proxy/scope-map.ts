/**
 * Which of our scopes a user signed in upstream may be granted (`MCP_OAUTH_SCOPE_MAP`): the
 * upstream provider says who the user is and what groups or roles they hold; this decides what
 * that means here. The grant is what the MCP client asked for, limited to these.
 */
import type { ScopeRule } from './settings.ts';

/** The value at a dotted path (`realm_access.roles`), or undefined. */
function at(claims: Readonly<Record<string, unknown>>, path: string): unknown {
  let value: unknown = claims;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function holds(value: unknown, wanted: string): boolean {
  if (Array.isArray(value)) return value.some((v) => holds(v, wanted));
  if (typeof value === 'string') return value === wanted;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value) === wanted;
  return false;
}

/**
 * The scopes the user may be granted: every rule whose claim test holds adds its scopes
 * (`*` holds for everyone); no rules: every scope in `known`.
 *
 * @example
 * grantableScopes([{ claim: 'groups', value: 'admins', scopes: ['files:write'] }], { groups: ['admins'] }, known)
 * // ['files:write']
 */
export function grantableScopes(
  rules: readonly ScopeRule[] | undefined,
  claims: Readonly<Record<string, unknown>>,
  known: readonly string[],
): string[] {
  if (rules === undefined) return [...new Set(known)];
  const granted = new Set<string>();
  for (const rule of rules) {
    if (rule.claim === undefined || holds(at(claims, rule.claim), rule.value ?? '')) {
      for (const scope of rule.scopes) granted.add(scope);
    }
  }
  return [...granted];
}

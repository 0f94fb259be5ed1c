/**
 * The upstream's `_meta` as ours: keys under a prefix the protocol reserves for itself are
 * dropped. MCP (2025-06-18 and later, "General fields: _meta") reserves every key prefix one of
 * whose labels is `modelcontextprotocol` or `mcp`
 * (`io.modelcontextprotocol/related-task`, `io.modelcontextprotocol/protocolVersion`): those
 * keys describe the upstream's own connection with the proxy (its task, its protocol
 * revision, its server), and passed on they would contradict ours.
 */
import type { JsonObject } from '@mcp-toolkit/server';

/** Whether a `_meta` key's prefix (before `/`) is one the protocol reserves. */
export function isReservedMetaKey(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash === -1) return false;
  // `io.modelcontextprotocol/...` (the specification's own keys) names the reserved label last.
  return key
    .slice(0, slash)
    .split('.')
    .some((label) => label === 'modelcontextprotocol' || label === 'mcp');
}

/**
 * The upstream's `_meta` without reserved keys; undefined when nothing is left.
 *
 * @example
 * ownMeta({ 'io.modelcontextprotocol/related-task': { taskId: 'x' }, 'example.com/k': 1 }); // { 'example.com/k': 1 }
 */
export function ownMeta(meta: unknown): JsonObject | undefined {
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return undefined;
  const out: JsonObject = {};
  let kept = 0;
  for (const [key, value] of Object.entries(meta as JsonObject)) {
    if (isReservedMetaKey(key)) continue;
    out[key] = value;
    kept++;
  }
  return kept > 0 ? out : undefined;
}

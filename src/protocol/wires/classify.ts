/**
 * The one classifier: which wire profile a message is on. The HTTP POST route and the fetch
 * handler classify the body as it arrives and hand the profile to the dispatcher on the
 * Exchange; over stdio the dispatcher classifies each message itself. The profile then travels
 * on the request's record (`record.profile`).
 */
import { isObject } from '../../base/jsonrpc.ts';
import type { Headers, Wire } from '../../base/types.ts';
import type { WireProfile } from './profile.ts';
import { REV2025 } from './rev2025.ts';
import { REV2026 } from './rev2026.ts';
import { header, isStatelessVersion, META, metaOf } from './wire.ts';

/**
 * Every wire profile, oldest first. A new revision is one more profile here
 * (docs/internals/architecture.md, "Adding a revision").
 */
export const PROFILES: readonly WireProfile[] = Object.freeze([REV2025, REV2026]);

/** The stateless profiles, newest first. */
const STATELESS = PROFILES.filter((p) => !p.sessions).reverse();

/** The stateless profile that speaks `version`; else the newest, whose checks refuse the version. */
function statelessProfile(version: unknown): WireProfile {
  for (const p of STATELESS) if (p.versions.includes(version as string)) return p;
  return STATELESS[0] as WireProfile;
}

/**
 * A request or notification is on the stateless wire (the profile that speaks the version it
 * names) when its envelope names a protocol version
 * (except an `initialize` whose envelope is malformed or pre-2026: that stays on the stateful
 * path), or when the MCP-Protocol-Version header names 2026 or later; anything else (a
 * response, a batch) by the header alone. Everything else is the 2025 wire.
 *
 * @example
 * const profile = classifyWire(body, req.headers); // REV2026 for a request with the 2026 envelope
 */
export function classifyWire(message: unknown, headers: Headers | undefined): WireProfile {
  if (isObject(message) && typeof message.method === 'string') {
    const version = metaOf(isObject(message.params) ? message.params : undefined)?.[META.protocolVersion];
    if (version !== undefined) {
      if (message.method !== 'initialize') return statelessProfile(version);
      return typeof version === 'string' && isStatelessVersion(version) ? statelessProfile(version) : REV2025;
    }
  }
  const h = header(headers, 'mcp-protocol-version');
  return h !== undefined && isStatelessVersion(h) ? statelessProfile(h) : REV2025;
}

/**
 * The profile of a stored request: a task record keeps the wire and the version it was created
 * on. Without `version`, the wire's first profile (for what all its revisions share).
 */
export function profileOf(wire: Wire, version?: string): WireProfile {
  let first: WireProfile | undefined;
  for (const p of PROFILES) {
    if (p.wire !== wire) continue;
    if (version === undefined || p.versions.includes(version)) return p;
    first ??= p;
  }
  return first ?? REV2025;
}

export { REV2025, REV2026 };

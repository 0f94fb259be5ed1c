/**
 * The one classifier: which wire profile a message is on. The HTTP POST route and the fetch
 * handler classify the body as it arrives and hand the profile to the dispatcher on the
 * Exchange; over stdio the dispatcher classifies each message itself. The profile then travels
 * on the request's record (`record.profile`).
 */
import { isObject } from '../../base/jsonrpc.ts';
import type { Headers, Wire } from '../../base/types.ts';
import { VERSION_2026 } from '../../base/versions.ts';
import type { WireProfile } from './profile.ts';
import { REV2025 } from './rev2025.ts';
import { REV2026 } from './rev2026.ts';
import { header, META, metaOf } from './wire.ts';

/**
 * The official SDK treats any version string that sorts at or after 2026-07-28 as the
 * stateless wire (a plain string comparison); the conformance suite relies on that when it
 * probes unsupported versions such as `v999.0.0`.
 */
function isStatelessVersion(version: string): boolean {
  return version >= VERSION_2026;
}

/**
 * A request or notification is on the 2026 wire when its envelope names a protocol version
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
      if (message.method !== 'initialize') return REV2026;
      return typeof version === 'string' && isStatelessVersion(version) ? REV2026 : REV2025;
    }
  }
  const h = header(headers, 'mcp-protocol-version');
  return h !== undefined && isStatelessVersion(h) ? REV2026 : REV2025;
}

/** The profile of a stored wire name (a task record keeps the wire it was created on). */
export function profileOf(wire: Wire): WireProfile {
  return wire === '2026' ? REV2026 : REV2025;
}

export { REV2025, REV2026 };

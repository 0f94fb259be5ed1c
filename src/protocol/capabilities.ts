/**
 * What the server declares it can do: the core capabilities, the extensions (MCP Apps, skills,
 * tasks), and what each wire and revision gets (2026 discover has the 2026-only extensions;
 * 2025-wire clients on 2025-11-25 or later also get core tasks).
 */
import type { JsonObject } from '../base/jsonrpc.ts';
import { revisionAtLeast } from '../base/versions.ts';
import type { MethodSet } from './methods.ts';

const SERVER_CAPABILITIES = Object.freeze({
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
});

/** The entries of several `capabilities.extensions` objects in one; undefined when there are none. */
function merged(...parts: (JsonObject | undefined)[]): JsonObject | undefined {
  const out: JsonObject = Object.assign({}, ...parts.filter((p) => p !== undefined));
  return Object.keys(out).length > 0 ? out : undefined;
}

export class ServerCapabilities {
  /** Both wires' capabilities, the extensions on both included. */
  readonly #both: JsonObject;
  /** 2026 discover's, with the extensions that exist on 2026 only. */
  readonly discover: JsonObject;
  /** Capabilities 2025-wire clients get from a revision on (core tasks on 2025-11-25). */
  readonly #from: readonly { readonly since: string; readonly capabilities: JsonObject }[];

  /** @param extensions the server's own (MCP Apps), beside the method sets'. */
  constructor(extensions: JsonObject | undefined, sets: readonly MethodSet[]) {
    const both = merged(extensions, ...sets.map((set) => set.extensions));
    this.#both = both ? Object.freeze({ ...SERVER_CAPABILITIES, extensions: both }) : SERVER_CAPABILITIES;
    const only2026 = merged(...sets.map((set) => set.extensions2026));
    this.discover = only2026
      ? Object.freeze({ ...SERVER_CAPABILITIES, extensions: { ...only2026, ...both } })
      : this.#both;
    this.#from = sets.flatMap((set) => (set.capabilities2025 ? [set.capabilities2025] : []));
  }

  /** initialize's capabilities for the negotiated revision. */
  for2025(version: string): JsonObject {
    let capabilities = this.#both;
    for (const extra of this.#from) {
      if (revisionAtLeast(version, extra.since)) capabilities = { ...capabilities, ...extra.capabilities };
    }
    return capabilities;
  }
}

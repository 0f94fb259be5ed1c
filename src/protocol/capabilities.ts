/**
 * What the server declares it can do: the core capabilities, the extensions (MCP Apps, skills,
 * tasks), and what each wire and revision gets (2026 discover has the 2026-only extensions;
 * `initialize` adds the core tasks where the revision has them, as its wire profile says).
 */
import type { JsonObject } from '../base/jsonrpc.ts';
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
  /** initialize's on a revision with the core tasks (2025-11-25 on): the method sets' `coreTasks` added. */
  readonly #withCoreTasks: JsonObject;

  /** @param extensions the server's own (MCP Apps), beside the method sets'. */
  constructor(extensions: JsonObject | undefined, sets: readonly MethodSet[]) {
    const both = merged(extensions, ...sets.map((set) => set.extensions));
    this.#both = both ? Object.freeze({ ...SERVER_CAPABILITIES, extensions: both }) : SERVER_CAPABILITIES;
    const only2026 = merged(...sets.map((set) => set.extensions2026));
    this.discover = only2026
      ? Object.freeze({ ...SERVER_CAPABILITIES, extensions: { ...only2026, ...both } })
      : this.#both;
    const coreTasks = sets.flatMap((set) => (set.coreTasks ? [set.coreTasks] : []));
    this.#withCoreTasks =
      coreTasks.length > 0 ? Object.freeze(Object.assign({}, this.#both, ...coreTasks)) : this.#both;
  }

  /**
   * initialize's capabilities; `coreTasks`: the negotiated revision has the core tasks
   * (`profile.tasks.declaredAt(version)`).
   */
  handshake(coreTasks: boolean): JsonObject {
    return coreTasks ? this.#withCoreTasks : this.#both;
  }
}

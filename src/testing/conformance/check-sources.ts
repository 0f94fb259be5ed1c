/**
 * Where the rules of `mcp-toolkit check` are written (the sections the catalogues cite) and what
 * a catalogue entry holds; below every catalogue, which check-catalog.ts merges into CHECKS.
 */

/** MUST fails the run; SHOULD and HOUSE (our own rules, e.g. descriptions) warn unless `--strict`. */
export type Level = 'MUST' | 'SHOULD' | 'HOUSE';

/** Where a rule is written: a page of the MCP specification (per revision) or another document. */
export type Source =
  /**
   * `revision`: the rule exists in that revision only (the 2026 wire), whatever was negotiated.
   * `elsewhere`: revisions where the rule lives outside the specification (the 2026 tasks are
   * an extension with its own site), by revision.
   */
  | {
      spec: string;
      anchor?: string;
      label: string;
      revision?: string;
      elsewhere?: Readonly<Record<string, string>>;
    }
  | { url: string; label: string };

export interface CheckInfo {
  /** The line printed in the checklist. */
  title: string;
  level: Level;
  source: Source;
  /** What to change in the server, in one line. */
  fix: string;
}

export const LIFECYCLE = (anchor: string, label: string): Source => ({
  spec: 'basic/lifecycle',
  anchor,
  label,
});
export const TRANSPORTS = (anchor: string, label: string): Source => ({
  spec: 'basic/transports',
  anchor,
  label,
});
export const TOOLS = (anchor: string, label: string): Source => ({ spec: 'server/tools', anchor, label });
export const JSONRPC = (anchor: string, label: string): Source => ({
  url: `https://www.jsonrpc.org/specification#${anchor}`,
  label,
});
export const AUTHZ = (anchor: string, label: string): Source => ({
  spec: 'basic/authorization',
  anchor,
  label,
});
/** Portability across clients: the spec's JSON Schema rules, and what clients accept of them. */
export const PORTABILITY = (construct: string): Source => ({
  spec: 'basic',
  anchor: 'json-schema-usage',
  label: `Base Protocol §JSON Schema Usage (portability: ${construct})`,
});
/** The 2026-07-28 stateless wire: its transport page (envelope, headers, status codes). */
export const WIRE_2026 = (anchor: string, label: string): Source => ({
  spec: 'basic/transports',
  anchor,
  label,
  revision: '2026-07-28',
});

/** The 2026-07-28 tasks live in the extension's own specification, not the protocol's. */
const EXT_TASKS_2026 = 'https://modelcontextprotocol.github.io/ext-tasks/specification/2026-07-28/tasks.html';

export const TASKS = (anchor: string, label: string): Source => ({
  spec: 'basic/utilities/tasks',
  anchor,
  label,
  elsewhere: { '2026-07-28': EXT_TASKS_2026 },
});

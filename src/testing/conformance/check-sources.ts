/** Where the rules of `mcp-toolkit check` are written: the sections the catalogues cite. */
import type { Source } from './check-catalog.ts';

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

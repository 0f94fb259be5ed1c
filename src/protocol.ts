/**
 * `@mcp-toolkit/server/protocol`: what the few who work at the level of the wire name (a
 * client, a gateway, a test of their own), listed in docs/api.md: the protocol revisions the
 * server speaks, the two wires, the specification's types of what a handler returns, and the
 * `_meta` keys and extension ids the server puts on the wire. A plugin needs none of it: the
 * root entry (`@mcp-toolkit/server`) is the API for plugins and programs.
 */

export type { RequestId } from './base/jsonrpc.ts';
export type {
  CallToolResult,
  ClientCapabilities,
  ContentBlock,
  GetPromptResult,
  Implementation,
  PromptMessage,
  ReadResourceResult,
  ToolAnnotations,
} from './base/spec-types.ts';
export type { Wire } from './base/types.ts';
export { LATEST_2025, SUPPORTED_VERSIONS, VERSION_2026 } from './base/versions.ts';
export { APP_MIME_TYPE, UI_EXTENSION } from './registry/apps.ts';
export { ERROR_META_KEY, ERRORS_META_KEY } from './registry/tool-errors.ts';

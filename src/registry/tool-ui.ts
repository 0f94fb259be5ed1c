/**
 * A tool's link to an MCP App view (SEP-1865, extension `io.modelcontextprotocol/ui`): the
 * `ui: { resourceUri, visibility }` of `defineTool`, checked and turned into `_meta.ui` on the
 * tool, and who may call the tool (the model, the view). The views themselves (`defineApp`)
 * are in apps.ts, which builds on the definitions; this part sits below them.
 */
import { InternalCode, ToolkitError } from '../base/errors.ts';
import type { JsonObject } from '../base/jsonrpc.ts';
import type { ClientCapabilities } from '../base/spec-types.ts';

/** The extension's identifier, the key under `capabilities.extensions`. */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** The mime type of a view (SEP-1865 "UI Resource Format"). */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** Who may call a tool: the model (it is listed to the agent), the app (its view, through the host). */
export type ToolVisibility = 'model' | 'app';

/** A tool's link to a view (`_meta.ui` on the tool). */
export interface ToolUi {
  /** The `ui://` view the host renders the tool's result in. */
  resourceUri?: string;
  /** Default `['model', 'app']`; `['app']` keeps the tool out of the model's tools/list. */
  visibility?: readonly ToolVisibility[];
}

function invalid(message: string): never {
  throw new ToolkitError(InternalCode.InvalidDefinition, message);
}

/** Checks a tool's `ui` link and returns what goes into its `_meta.ui`. */
export function toolUiMeta(toolName: string, ui: ToolUi): JsonObject {
  const meta: JsonObject = {};
  if (ui.resourceUri !== undefined) {
    if (typeof ui.resourceUri !== 'string' || !ui.resourceUri.startsWith('ui://'))
      invalid(`Tool "${toolName}": ui.resourceUri must be a ui:// URI (a view made with defineApp)`);
    meta.resourceUri = ui.resourceUri;
  }
  if (ui.visibility !== undefined) {
    const v = ui.visibility;
    if (!Array.isArray(v) || v.length === 0 || v.some((x) => x !== 'model' && x !== 'app'))
      invalid(`Tool "${toolName}": ui.visibility must be a non-empty list of "model" and "app"`);
    meta.visibility = [...new Set(v)];
  }
  return meta;
}

/** True when a tool is for its view only (`visibility` without "model"). */
export function isAppOnly(tool: { readonly spec: object }): boolean {
  return isAppOnlySpec(tool.spec);
}

/** The same, from a definition's spec (any kind: only tools carry `ui`). */
export function isAppOnlySpec(spec: object): boolean {
  const visibility = (spec as { ui?: ToolUi }).ui?.visibility;
  return visibility !== undefined && !visibility.includes('model');
}

/** True when the client declared the extension (`capabilities.extensions["io.modelcontextprotocol/ui"]`). */
export function clientSupportsApps(capabilities: ClientCapabilities | undefined): boolean {
  const extensions = (capabilities as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  return typeof extensions === 'object' && extensions !== null && UI_EXTENSION in extensions;
}

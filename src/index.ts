/**
 * The public API of mcp-toolkit, what plugins import (`from 'mcp-toolkit'`): the define*
 * functions, the errors a handler may throw or switch on, and every type a plugin author
 * names. Explicit named exports only; the server's own parts (registry, dispatcher,
 * transports, settings parsing) stay internal.
 */

export type { Logger } from 'pino';
export type {
  DoctorCheck,
  PluginApp,
  PluginDefinition,
  PluginSettings,
  PluginSpec,
  SettingsSchema,
} from './plugin.ts';
export { definePlugin, settingEnvName } from './plugin.ts';
export { ErrorCode, InternalCode, ProtocolError, ToolkitError } from './protocol/errors.ts';
export type { JsonObject, RequestId } from './protocol/jsonrpc.ts';
export type { ClientCapabilities, Implementation } from './protocol/spec-types.ts';
export { LATEST_2025, SUPPORTED_VERSIONS, VERSION_2026 } from './protocol/versions.ts';
export type {
  Definition,
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from './registry/define.ts';
export { definePrompt, defineResource, defineResourceTemplate, defineTool } from './registry/define.ts';
export type { ListKind } from './registry/registry.ts';
export type {
  CallToolResult,
  ClientLog,
  Completer,
  ContentBlock,
  GetPromptResult,
  HandlerContext,
  Identity,
  InputRequest,
  InputRequired,
  JsonSchema,
  LogLevel,
  PromptArgumentSpec,
  PromptHandler,
  PromptMessage,
  PromptReturn,
  PromptSpec,
  ReadResourceResult,
  ResourceReader,
  ResourceReturn,
  ResourceSpec,
  ResourceTemplateSpec,
  TemplateReader,
  ToolAnnotations,
  ToolHandler,
  ToolInput,
  ToolOutput,
  ToolResult,
  ToolReturn,
  ToolSchema,
  ToolSpec,
  Wire,
} from './registry/types.ts';

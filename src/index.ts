/**
 * The public API of mcp-toolkit, what plugins import (`from '@mcp-toolkit/server'`): the define*
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
export type { Middleware, MiddlewareCall, MiddlewareHook, MiddlewareNext } from './protocol/middleware.ts';
export type { ClientCapabilities, Implementation } from './protocol/spec-types.ts';
export { LATEST_2025, SUPPORTED_VERSIONS, VERSION_2026 } from './protocol/versions.ts';
export type { AppCsp, AppPermission, AppSpec, ToolUi, ToolVisibility } from './registry/apps.ts';
export { APP_MIME_TYPE, defineApp, UI_EXTENSION } from './registry/apps.ts';
export type {
  Definition,
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from './registry/define.ts';
export { definePrompt, defineResource, defineResourceTemplate, defineTool } from './registry/define.ts';
export type { ListKind } from './registry/registry.ts';
export { ERROR_META_KEY, ERRORS_META_KEY, ToolError } from './registry/tool-errors.ts';
export type {
  CallToolResult,
  ClientLog,
  Completer,
  ContentBlock,
  DeclaredToolError,
  GetPromptResult,
  HandlerContext,
  HttpRequestInfo,
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
  VisibilityRule,
  Wire,
} from './registry/types.ts';
export { redactArgs } from './telemetry/redaction.ts';

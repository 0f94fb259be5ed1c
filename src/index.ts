/** The public API of mcp-toolkit: explicit named exports only. Plugins import from here. */

export type { Settings } from './config/settings.ts';
export { parseSettings, SETTING_NAMES, settingsSchema } from './config/settings.ts';
export type { DoctorCheck, PluginApp, PluginDefinition } from './plugin.ts';
export { definePlugin } from './plugin.ts';
export { ErrorCode, InternalCode, ProtocolError, ToolkitError } from './protocol/errors.ts';
export type {
  JsonObject,
  JsonRpcMessage,
  JsonRpcRequest,
  JsonRpcResponse,
  RequestId,
} from './protocol/jsonrpc.ts';
export type {
  Middleware,
  MiddlewareCall,
  MiddlewareHook,
  MiddlewareNext,
} from './protocol/middleware.ts';
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
export { Registry } from './registry/registry.ts';
export { ERROR_META_KEY, ERRORS_META_KEY, ToolError } from './registry/tool-errors.ts';
export type {
  Completer,
  DeclaredToolError,
  HandlerContext,
  HttpRequestInfo,
  Identity,
  InputRequest,
  InputRequired,
  JsonSchema,
  LogLevel,
  PromptArgumentSpec,
  PromptSpec,
  ResourceSpec,
  ResourceTemplateSpec,
  ToolResult,
  ToolReturn,
  ToolSpec,
  VisibilityRule,
  Wire,
} from './registry/types.ts';
export { redactArgs } from './telemetry/redaction.ts';

/**
 * The public API of mcp-toolkit, what plugins and programs import (`from '@mcp-toolkit/server'`):
 * `createServer` and `serve` (docs/embedding.md), the define* functions, the errors a handler
 * may throw or switch on, and every type a plugin author names. Explicit named exports only;
 * the server's own parts (registry, dispatcher, transports, settings parsing) stay internal.
 * The Fastify plugin is `@mcp-toolkit/server/fastify`.
 */

export type { Logger } from 'pino';
export { ErrorCode, InternalCode, ProtocolError, ToolkitError } from './base/errors.ts';
export type {
  HttpRoute,
  HttpRouteHandler,
  HttpRouteMethod,
  HttpRouteRequest,
  HttpRouteResponse,
} from './base/http-route.ts';
export type { JsonObject, RequestId } from './base/jsonrpc.ts';
export type { ClientCapabilities, Implementation } from './base/spec-types.ts';
export type { HttpRequestInfo, Identity, LogLevel, Wire } from './base/types.ts';
export { LATEST_2025, SUPPORTED_VERSIONS, VERSION_2026 } from './base/versions.ts';
export type { SettingsInput } from './config/settings.ts';
export type {
  DoctorCheck,
  DoctorCheckKind,
  PluginApp,
  PluginDefinition,
  PluginSettings,
  PluginSpec,
  SettingsSchema,
} from './plugin.ts';
export { definePlugin, settingEnvName } from './plugin.ts';
export type { Middleware, MiddlewareCall, MiddlewareHook, MiddlewareNext } from './protocol/middleware.ts';
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
  ClientFeature,
  ClientLog,
  Completer,
  ContentBlock,
  DeclaredToolError,
  GetPromptResult,
  HandlerContext,
  InputRequest,
  InputRequired,
  JsonSchema,
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
} from './registry/types.ts';
export type {
  InProcessConnection,
  InProcessOptions,
  PluginRef,
  RunningServer,
  ServeOptions,
  ServerOptions,
  TransportKind,
} from './serve.ts';
export { createServer, serve } from './serve.ts';
export { redactArgs } from './telemetry/redaction.ts';

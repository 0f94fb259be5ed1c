/**
 * The public API of mcp-toolkit, what plugins and programs import (`from '@mcp-toolkit/server'`),
 * each name listed in docs/api.md: `createServer` and `serve` (docs/embedding.md), the define*
 * functions, the types a plugin and its handlers name, the errors a handler may throw or switch
 * on, and `setting`, the pieces of a plugin's settings schema. Explicit named exports only; the
 * server's own parts (registry, dispatcher, transports, settings parsing) stay internal, and
 * protocol versions and wire types are on `@mcp-toolkit/server/protocol`. The Fastify plugin is
 * `@mcp-toolkit/server/fastify`, the fetch handler `@mcp-toolkit/server/fetch`, the test kit
 * `@mcp-toolkit/server/testing`.
 */

export type { Logger } from 'pino';
export type { InProcessConnection, RunningServer, ServeOptions, ServerOptions } from './assembly/serve.ts';
export { createServer, serve } from './assembly/serve.ts';
export { ErrorCode, InternalCode, ProtocolError, ToolkitError } from './base/errors.ts';
export type { JsonObject } from './base/jsonrpc.ts';
export { schemaKeywords } from './base/schema-keywords.ts';
export { setting } from './base/setting-helpers.ts';
export { type Identity, LOG_LEVELS, type LogLevel } from './base/types.ts';
export type { DoctorCheck, PluginApp, PluginDefinition } from './plugin/define.ts';
export { definePlugin } from './plugin/define.ts';
export type { Middleware } from './protocol/middleware.ts';
export { defineApp } from './registry/apps.ts';
export type {
  Definition,
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from './registry/define.ts';
export { definePrompt, defineResource, defineResourceTemplate, defineTool } from './registry/define.ts';
export { ToolError } from './registry/tool-errors.ts';
export type {
  ClientFeature,
  Completer,
  DeclaredToolError,
  HandlerContext,
  InputRequest,
  InputRequired,
  JsonSchema,
  ToolResult,
} from './registry/types.ts';
export { redactArgs } from './telemetry/redaction.ts';

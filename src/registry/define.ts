/**
 * `defineTool`, `defineResource`, `defineResourceTemplate` and `definePrompt`: each checks its
 * definition at once (a bad one fails at start-up, not on the first call), computes what
 * clients see exactly once, and returns plain frozen data the registry can hold.
 */
import { InternalCode, ToolkitError } from '../base/errors.ts';
import type { JsonObject } from '../base/jsonrpc.ts';
import { type CompiledSchema, compileEmptyObject, compileSchema } from './schema.ts';
import { checkDeclaredErrors, ERRORS_META_KEY, errorsMeta, errorsSentence } from './tool-errors.ts';
import { toolUiMeta } from './tool-ui.ts';
import type {
  HandlerContext,
  JsonSchema,
  PromptHandler,
  PromptSpec,
  ResourceReader,
  ResourceSpec,
  ResourceTemplateSpec,
  TemplateReader,
  ToolHandler,
  ToolReturn,
  ToolSchema,
  ToolSpec,
} from './types.ts';
import { compileTemplate, type UriTemplate } from './uri-template.ts';

/** What `asks` may list: the client capabilities an input round can need. */
const CLIENT_FEATURES = ['elicitation', 'sampling', 'roots'] as const;

/** MCP tool names: 1-64 characters of A-Z, a-z, 0-9, `_`, `-`, `.` and `/` (2025-11-25 §tools). */
const NAME_RE = /^[A-Za-z0-9_./-]{1,64}$/;

function invalid(message: string): never {
  throw new ToolkitError(InternalCode.InvalidDefinition, message);
}

function checkName(kind: string, name: unknown): string {
  if (typeof name !== 'string' || !NAME_RE.test(name)) {
    invalid(`${kind} name ${JSON.stringify(name)} is invalid: use 1-64 characters of A-Z a-z 0-9 _ . / -`);
  }
  return name;
}

function checkDescription(kind: string, name: string, description: unknown): string {
  if (typeof description !== 'string' || description.trim() === '') {
    invalid(`${kind} "${name}" needs a non-empty description: it is how a model decides when to use it`);
  }
  return description;
}

export interface ToolDefinition {
  readonly kind: 'tool';
  readonly name: string;
  readonly spec: ToolSpec;
  /** The entry of `tools/list`, computed once. */
  readonly listing: JsonObject;
  readonly input: CompiledSchema<unknown>;
  readonly output: CompiledSchema<unknown> | undefined;
  /** Top-level arguments annotated with `x-mcp-header` (SEP-2243), mirrored in Mcp-Param-* headers. */
  readonly headerParams: readonly { property: string; header: string }[];
  readonly handler: (
    args: unknown,
    ctx: HandlerContext,
  ) => ToolReturn<unknown> | Promise<ToolReturn<unknown>>;
}

/**
 * Defines a tool: an async function with a zod (or JSON Schema) input and optional output.
 *
 * @example
 * export const add = defineTool(
 *   { name: 'add', description: 'Add two numbers', input: z.object({ a: z.number(), b: z.number() }),
 *     output: z.object({ sum: z.number() }), annotations: { readOnlyHint: true } },
 *   async ({ a, b }) => ({ sum: a + b }),
 * );
 */
export function defineTool<
  In extends ToolSchema | undefined = undefined,
  Out extends ToolSchema | undefined = undefined,
>(
  spec: ToolSpec<In, Out>,
  // NoInfer: the schemas are inferred from the spec alone, and, the handler's type being
  // generic at its top, TypeScript instantiates it with them before checking the handler, so
  // the return is contextually typed by the output schema itself: `unit: 'C'` is checked
  // against `'C' | 'F'` instead of being widened to string first (no `as const` needed).
  handler: NoInfer<ToolHandler<In, Out>>,
): ToolDefinition {
  const name = checkName('Tool', spec.name);
  checkDescription('Tool', name, spec.description);
  const input = spec.input === undefined ? compileEmptyObject() : compileSchema<unknown>(spec.input, 'input');
  if (input.json.type !== 'object') {
    invalid(`Tool "${name}": the input schema must be an object schema (type: "object"), as MCP requires`);
  }
  const output = spec.output === undefined ? undefined : compileSchema<unknown>(spec.output, 'output');
  if (output && output.json.type !== 'object') {
    invalid(`Tool "${name}": the output schema must be an object schema (type: "object"), as MCP requires`);
  }
  if (spec.timeoutMs !== undefined && !(Number.isInteger(spec.timeoutMs) && spec.timeoutMs > 0)) {
    invalid(`Tool "${name}": timeoutMs must be a positive integer`);
  }
  if (spec.task !== undefined && spec.task !== 'optional' && spec.task !== 'required') {
    invalid(`Tool "${name}": task must be 'optional' or 'required'`);
  }
  if (spec.beforeTask !== undefined && spec.task === undefined) {
    invalid(`Tool "${name}": beforeTask needs task: 'optional' or 'required'`);
  }
  if (spec.heartbeatMs !== undefined && !(Number.isInteger(spec.heartbeatMs) && spec.heartbeatMs >= 0)) {
    invalid(`Tool "${name}": heartbeatMs must be 0 (off) or a positive integer`);
  }
  if (
    spec.asks !== undefined &&
    !(Array.isArray(spec.asks) && spec.asks.every((f) => (CLIENT_FEATURES as readonly unknown[]).includes(f)))
  ) {
    invalid(`Tool "${name}": asks lists what the handler asks the client for: ${CLIENT_FEATURES.join(', ')}`);
  }
  const errorsProblem = checkDeclaredErrors(spec.errors);
  if (errorsProblem) invalid(`Tool "${name}": ${errorsProblem}`);
  const inputSchema: JsonSchema =
    spec.examples && spec.examples.length > 0 ? { ...input.json, examples: spec.examples } : input.json;
  const declared = spec.errors && Object.keys(spec.errors).length > 0 ? spec.errors : undefined;
  const description =
    declared && spec.describeErrors ? `${spec.description} ${errorsSentence(declared)}` : spec.description;
  const listing: JsonObject = { name, description, inputSchema };
  if (spec.title !== undefined) listing.title = spec.title;
  if (output) listing.outputSchema = output.json;
  if (spec.annotations !== undefined) listing.annotations = spec.annotations;
  if (spec.icons !== undefined) listing.icons = spec.icons;
  if (spec._meta !== undefined || declared || spec.ui !== undefined) {
    listing._meta = {
      ...spec._meta,
      ...(declared ? { [ERRORS_META_KEY]: errorsMeta(declared) } : {}),
      ...(spec.ui !== undefined ? { ui: toolUiMeta(name, spec.ui) } : {}),
    };
  }
  // SEP-1686 tool-level negotiation (2025-11-25); 2026 clients need no hint (server-directed).
  if (spec.task !== undefined) listing.execution = { taskSupport: spec.task };
  const properties = (input.json.properties ?? {}) as Record<string, { 'x-mcp-header'?: unknown }>;
  const headerParams = Object.entries(properties).flatMap(([property, schema]) =>
    typeof schema?.['x-mcp-header'] === 'string' ? [{ property, header: schema['x-mcp-header'] }] : [],
  );
  return Object.freeze({
    kind: 'tool',
    name,
    headerParams,
    spec: spec as ToolSpec,
    listing: Object.freeze(listing),
    input: input as CompiledSchema<unknown>,
    output: output as CompiledSchema<unknown> | undefined,
    handler: handler as ToolDefinition['handler'],
  });
}

export interface ResourceDefinition {
  readonly kind: 'resource';
  readonly spec: ResourceSpec;
  readonly uri: string;
  readonly listing: JsonObject;
  readonly read: ResourceReader;
}

/**
 * Defines a static resource.
 *
 * @example
 * defineResource({ uri: 'docs://readme', name: 'readme', mimeType: 'text/markdown' }, async () => '# Hello');
 */
export function defineResource(spec: ResourceSpec, read: ResourceReader): ResourceDefinition {
  if (typeof spec.uri !== 'string' || !URL.canParse(spec.uri))
    invalid(`Resource URI ${JSON.stringify(spec.uri)} is not a URI`);
  if (typeof spec.name !== 'string' || spec.name === '') invalid(`Resource ${spec.uri} needs a name`);
  const { _meta, scopes: _scopes, visible: _visible, ...rest } = spec;
  const listing: JsonObject = { ...rest };
  if (_meta !== undefined) listing._meta = _meta;
  return Object.freeze({ kind: 'resource', spec, uri: spec.uri, listing: Object.freeze(listing), read });
}

export interface ResourceTemplateDefinition {
  readonly kind: 'resource-template';
  readonly spec: ResourceTemplateSpec;
  readonly template: UriTemplate;
  readonly listing: JsonObject;
  readonly read: TemplateReader;
}

/**
 * Defines a resource template (RFC 6570 `{var}` and `{+var}`).
 *
 * @example
 * defineResourceTemplate({ uriTemplate: 'notes://{id}', name: 'note' }, async (_uri, { id }) => notes[id]);
 */
export function defineResourceTemplate(
  spec: ResourceTemplateSpec,
  read: TemplateReader,
): ResourceTemplateDefinition {
  if (typeof spec.name !== 'string' || spec.name === '')
    invalid(`Resource template ${spec.uriTemplate} needs a name`);
  const template = compileTemplate(spec.uriTemplate);
  for (const key of Object.keys(spec.complete ?? {})) {
    if (!template.variables.includes(key)) {
      invalid(`Resource template ${spec.uriTemplate}: completion for unknown variable "${key}"`);
    }
  }
  const { complete: _complete, _meta, scopes: _scopes, visible: _visible, ...rest } = spec;
  const listing: JsonObject = { ...rest };
  if (_meta !== undefined) listing._meta = _meta;
  return Object.freeze({ kind: 'resource-template', spec, template, listing: Object.freeze(listing), read });
}

export interface PromptDefinition {
  readonly kind: 'prompt';
  readonly name: string;
  readonly spec: PromptSpec;
  readonly listing: JsonObject;
  readonly get: PromptHandler;
}

/**
 * Defines a prompt with (string) arguments.
 *
 * @example
 * definePrompt({ name: 'summarise', description: 'Summarise a file',
 *   arguments: [{ name: 'path', description: 'File to summarise', required: true }] },
 *   async ({ path }) => `Summarise the file ${path}.`);
 */
export function definePrompt(spec: PromptSpec, get: PromptHandler): PromptDefinition {
  const name = checkName('Prompt', spec.name);
  checkDescription('Prompt', name, spec.description);
  const seen = new Set<string>();
  for (const arg of spec.arguments ?? []) {
    if (typeof arg.name !== 'string' || arg.name === '')
      invalid(`Prompt "${name}": every argument needs a name`);
    if (seen.has(arg.name)) invalid(`Prompt "${name}": argument "${arg.name}" is declared twice`);
    seen.add(arg.name);
  }
  const listing: JsonObject = { name, description: spec.description };
  if (spec.title !== undefined) listing.title = spec.title;
  if (spec.arguments && spec.arguments.length > 0) {
    listing.arguments = spec.arguments.map(({ complete: _c, ...arg }) => arg);
  }
  if (spec._meta !== undefined) listing._meta = spec._meta;
  return Object.freeze({ kind: 'prompt', name, spec, listing: Object.freeze(listing), get });
}

export type Definition = ToolDefinition | ResourceDefinition | ResourceTemplateDefinition | PromptDefinition;

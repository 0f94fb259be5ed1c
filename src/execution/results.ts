/**
 * What the call wrapper (call.ts) checks and shapes: a tool's arguments against its input
 * schema, what a handler returned into a CallToolResult (checked against the output schema),
 * resource contents and prompt messages, and a thrown error into the `isError` result the
 * model sees.
 */
import { ErrorCode, InternalCode, ProtocolError, ToolkitError } from '../base/errors.ts';
import { isObject, type JsonObject } from '../base/jsonrpc.ts';
import type { ToolDefinition } from '../registry/define.ts';
import { ToolError, toolErrorResult } from '../registry/tool-errors.ts';
import type { ContentBlock, InputRequired, PromptMessage } from '../registry/types.ts';

/** A tool failure the model should see: `isError: true` with `ErrorName: message` (docs/internals/architecture.md, "Version-aware rules"). */
function toolError(message: string): JsonObject {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/**
 * Validates arguments; bad ones are an isError result naming every violation when `asResult`
 * (SEP-1303: 2025-11-25 on, as the request's wire profile says), else -32602.
 */
export function checkArguments(
  def: ToolDefinition,
  args: unknown,
  asResult: boolean,
): { ok: true; value: unknown } | { ok: false; result: JsonObject } {
  const r = def.input.validate(args ?? {});
  if (r.ok) return r;
  const message = `Invalid arguments for tool ${def.name}: ${r.issues.join('; ')}`;
  if (asResult) return { ok: false, result: toolError(message) };
  throw new ProtocolError(ErrorCode.InvalidParams, message, { data: { issues: r.issues } });
}

/** Shapes what a handler returned into a CallToolResult. */
export function shapeToolResult(def: ToolDefinition, value: unknown): JsonObject {
  if (isObject(value) && value.kind === 'tool_result') {
    const result: JsonObject = { content: (value.content as ContentBlock[] | undefined) ?? [] };
    if (value.structured !== undefined) {
      result.structuredContent = checkOutput(def, value.structured);
      if (value.content === undefined)
        result.content = [{ type: 'text', text: JSON.stringify(value.structured) }];
    }
    if (value.isError === true) result.isError = true;
    if (isObject(value.meta)) result._meta = value.meta;
    return result;
  }
  if (def.output) {
    const structured = checkOutput(def, value);
    return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  }
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (value === undefined || value === null) return { content: [] };
  if (Array.isArray(value)) return { content: value };
  if (isObject(value) && Array.isArray(value.content)) return value;
  return { content: [{ type: 'text', text: JSON.stringify(value) }] };
}

function checkOutput(def: ToolDefinition, value: unknown): JsonObject {
  const r = def.output ? def.output.validate(value) : { ok: true as const, value };
  if (!r.ok || !isObject(r.value)) {
    const issues = r.ok ? ['(root): the structured result must be an object'] : r.issues;
    throw new ToolkitError(
      InternalCode.OutputInvalid,
      `Tool ${def.name} returned a result that does not match its outputSchema: ${issues.join('; ')}`,
    );
  }
  return r.value;
}

/**
 * The result of a tool call that threw (the handler or a middleware): a declared ToolError
 * in its documented shape (tool-errors.ts), anything else as `ErrorName: message`.
 */
export function toolFailure(def: ToolDefinition | undefined, err: unknown): JsonObject {
  if (err instanceof ToolError) return toolErrorResult(def?.spec ?? EMPTY_SPEC, err);
  return toolError(describeThrown(err));
}

const EMPTY_SPEC: ToolDefinition['spec'] = { name: '', description: '' };

/** Turns a handler's exception into the model-visible `ErrorName: message` text. */
function describeThrown(err: unknown): string {
  if (err instanceof ToolkitError && err.code === InternalCode.Timeout)
    return `Timeout: the tool ${err.message}`;
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return `Error: ${String(err)}`;
}

/** What a resource reader returned, as `contents` (text, `{ blob }`, or contents as they are). */
export function shapeContents(uri: string, mimeType: unknown, value: unknown): JsonObject[] {
  const base: JsonObject = { uri };
  if (typeof mimeType === 'string') base.mimeType = mimeType;
  if (typeof value === 'string') return [{ ...base, text: value }];
  if (Array.isArray(value)) return value as JsonObject[];
  if (isObject(value) && ('text' in value || 'blob' in value)) return [{ ...base, ...value }];
  throw new ToolkitError(
    InternalCode.OutputInvalid,
    `Resource ${uri}: a reader must return text, { blob } or contents`,
  );
}

/** What a prompt returned, as a GetPromptResult (text, messages, or a full result). */
export function shapePrompt(value: unknown, description: string): JsonObject {
  if (typeof value === 'string') {
    return { description, messages: [{ role: 'user', content: { type: 'text', text: value } }] };
  }
  if (Array.isArray(value)) return { description, messages: value as PromptMessage[] };
  if (isObject(value) && Array.isArray(value.messages)) return value;
  throw new ToolkitError(InternalCode.OutputInvalid, 'A prompt must return text, messages or { messages }');
}

/** True for what `ctx.askInput(...)` returns: the handler ended its round asking for input. */
export function isInputRequired(value: unknown): value is InputRequired {
  return (
    typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'input_required'
  );
}

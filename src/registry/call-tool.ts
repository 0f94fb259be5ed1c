/**
 * The call wrapper, where a tool call becomes safe: arguments validated against the input
 * schema, the handler run under the request's signal with a deadline, the result validated
 * against the output schema and shaped into content blocks plus `structuredContent`.
 */
import { ErrorCode, InternalCode, ProtocolError, ToolkitError } from '../base/errors.ts';
import { isObject, type JsonObject } from '../base/jsonrpc.ts';
import { invalidArgsAsToolError } from '../base/versions.ts';
import type { ToolDefinition } from './define.ts';
import { ToolError, toolErrorResult } from './tool-errors.ts';
import type { ContentBlock } from './types.ts';

/** A tool failure the model should see: `isError: true` with `ErrorName: message` (DESIGN.md). */
export function toolError(message: string): JsonObject {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** Validates arguments; bad ones are -32602 through 2025-06-18, an isError result from 2025-11-25 (SEP-1303). */
export function checkArguments(
  def: ToolDefinition,
  args: unknown,
  protocolVersion: string,
): { ok: true; value: unknown } | { ok: false; result: JsonObject } {
  const r = def.input.validate(args ?? {});
  if (r.ok) return r;
  const message = `Invalid arguments for tool ${def.name}: ${r.issues.join('; ')}`;
  if (invalidArgsAsToolError(protocolVersion)) return { ok: false, result: toolError(message) };
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
export function describeThrown(err: unknown): string {
  if (err instanceof ToolkitError && err.code === InternalCode.Timeout)
    return `Timeout: the tool ${err.message}`;
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return `Error: ${String(err)}`;
}

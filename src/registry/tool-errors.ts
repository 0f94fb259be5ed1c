/**
 * Declared tool errors: a tool names the failures it can have (`errors` on the tool), throws
 * one with `ctx.fail(code)` or `new ToolError(code)`, and the client gets it in one shape:
 * an `isError` result whose text tells the model what happened, whether retrying can help and
 * what to do instead, and `{ error: { code, message, retryable, hint, data } }` for programs,
 * in the result's `_meta` always and in `structuredContent` when the tool opts in with
 * `structuredErrors: true`. Not by default: the official v1 client checks `structuredContent`
 * against the tool's output schema even on an `isError` result, and refuses the answer when
 * the schema has no room for `error`.
 */
import type { JsonObject } from '../base/jsonrpc.ts';
import type { DeclaredToolError, ToolSpec } from './types.ts';

/** The `_meta` key under which a tool publishes its declared errors. */
export const ERRORS_META_KEY = 'io.github.mcp-toolkit/errors';

/** The `_meta` key of an error result that carries the error object. */
export const ERROR_META_KEY = 'io.github.mcp-toolkit/error';

/**
 * A declared failure of a tool. `retryable` and `hint` default to the tool's declaration.
 *
 * @example
 * throw new ToolError('not_found', { message: `No file at ${path}`, data: { path } });
 */
export class ToolError extends Error {
  readonly code: string;
  readonly data: JsonObject | undefined;
  readonly retryable: boolean | undefined;
  readonly hint: string | undefined;

  constructor(
    code: string,
    options: { message?: string; data?: JsonObject; retryable?: boolean; hint?: string } = {},
  ) {
    super(options.message ?? code);
    this.name = 'ToolError';
    this.code = code;
    this.data = options.data;
    this.retryable = options.retryable;
    this.hint = options.hint;
  }
}

/** Checks a tool's `errors` at definition time; returns the problem, if any. */
export function checkDeclaredErrors(errors: ToolSpec['errors']): string | undefined {
  if (errors === undefined) return undefined;
  for (const [code, declared] of Object.entries(errors)) {
    if (!/^[a-z][a-z0-9_]{0,63}$/.test(code)) {
      return `error code "${code}" is invalid: use lower-case snake_case, e.g. not_found`;
    }
    if (typeof declared !== 'object' || declared === null) return `error "${code}" must be an object`;
    if (declared.hint !== undefined && typeof declared.hint !== 'string')
      return `error "${code}": hint must be a string`;
  }
  return undefined;
}

/** What a tool publishes about its errors in `_meta` (codes with retryable and hint). */
export function errorsMeta(errors: Readonly<Record<string, DeclaredToolError>>): JsonObject {
  const out: JsonObject = {};
  for (const [code, d] of Object.entries(errors)) {
    const entry: JsonObject = { retryable: d.retryable === true };
    if (d.hint !== undefined) entry.hint = d.hint;
    out[code] = entry;
  }
  return out;
}

/** The sentence appended to a description with `describeErrors`. */
export function errorsSentence(errors: Readonly<Record<string, DeclaredToolError>>): string {
  const parts = Object.entries(errors).map(
    ([code, d]) => `${code}${d.retryable ? ' (retryable)' : ''}${d.hint ? `: ${d.hint}` : ''}`,
  );
  return `Possible errors: ${parts.join('; ')}.`;
}

/** The result for a thrown ToolError. */
export function toolErrorResult(spec: ToolSpec, err: ToolError): JsonObject {
  const declared = spec.errors?.[err.code];
  const retryable = err.retryable ?? declared?.retryable ?? false;
  const hint = err.hint ?? declared?.hint;
  const message = err.message === err.code && declared?.message ? declared.message : err.message;
  let text = `${err.code}: ${message}. ${retryable ? 'Retrying later may succeed.' : 'Retrying the same call will not help.'}`;
  if (hint !== undefined) text += ` ${hint}`;
  const error: JsonObject = { code: err.code, message, retryable };
  if (hint !== undefined) error.hint = hint;
  if (err.data !== undefined) error.data = err.data;
  const result: JsonObject = {
    content: [{ type: 'text', text }],
    isError: true,
    _meta: { [ERROR_META_KEY]: error },
  };
  if (spec.structuredErrors === true) result.structuredContent = { error };
  return result;
}

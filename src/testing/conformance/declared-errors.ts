/**
 * What `mcp-toolkit test` holds a tool's declared errors to (`_meta["io.github.mcp-toolkit/errors"]`,
 * as mcp-toolkit servers publish them, docs/plugins.md "Declared tool errors"): an object of
 * lower-case snake_case codes, each `{ retryable: boolean, hint?: string }`. The key is read
 * on any server; one that does not publish it gets no such test.
 */

/** The `_meta` key of a tool's declared errors (the server's own, src/registry/tool-errors.ts). */
export const ERRORS_META_KEY = 'io.github.mcp-toolkit/errors';

const CODE = /^[a-z][a-z0-9_]{0,63}$/;

/** Each way the declaration breaks the shape; empty when it is well-formed. */
export function declaredErrorProblems(declared: unknown): string[] {
  if (typeof declared !== 'object' || declared === null || Array.isArray(declared)) {
    return ['must be an object of error codes'];
  }
  const problems: string[] = [];
  const entries = Object.entries(declared as Record<string, unknown>);
  if (entries.length === 0) problems.push('declares no error');
  for (const [code, entry] of entries) {
    if (!CODE.test(code)) problems.push(`code "${code}" is not lower-case snake_case`);
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`"${code}" must be an object`);
      continue;
    }
    const { retryable, hint } = entry as { retryable?: unknown; hint?: unknown };
    if (typeof retryable !== 'boolean') problems.push(`"${code}".retryable must be true or false`);
    if (hint !== undefined && (typeof hint !== 'string' || hint.trim() === '')) {
      problems.push(`"${code}".hint must be a non-empty string`);
    }
  }
  return problems;
}

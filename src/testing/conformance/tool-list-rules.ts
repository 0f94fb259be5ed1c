/**
 * The rules on a server's tool listing and its stdout that both commands judge: `check`
 * (tools.descriptions, tools.name-format, tools.unique-names, stdio.stdout) and `test` (the
 * families graded by those rules). One function per rule words what it found, so one defect reads
 * the same in both reports; undefined when the rule holds.
 */
import type { JsonObject } from '../../base/jsonrpc.ts';
import { listSome } from '../client/answer.ts';

/** SEP-986 (2025-11-25): 1-128 characters of A-Z a-z 0-9 _ - . */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** A tool as findings name it: its name in quotes, else its place in the list. */
export function toolLabel(tool: JsonObject, index: number): string {
  return typeof tool.name === 'string' ? JSON.stringify(tool.name) : `tool #${index}`;
}

/** Tools §Tool: a model chooses a tool by its description (house rule). */
export function undescribedTools(tools: readonly JsonObject[]): string | undefined {
  const bad = tools
    .map((t, i) => [t, i] as const)
    .filter(([t]) => typeof t.description !== 'string' || t.description.trim() === '')
    .map(([t, i]) => toolLabel(t, i));
  return bad.length > 0 ? `tools without a description: ${listSome(bad)}` : undefined;
}

/** Tools §Tool Names (SEP-986): names SHOULD be 1-128 characters of A-Z a-z 0-9 _ - . */
export function misnamedTools(tools: readonly JsonObject[]): string | undefined {
  const bad = tools
    .filter((t) => typeof t.name === 'string' && !TOOL_NAME.test(t.name))
    .map((t) => JSON.stringify(t.name));
  return bad.length > 0
    ? `names outside 1-128 characters of A-Z a-z 0-9 _ - . (SEP-986): ${listSome(bad)}`
    : undefined;
}

/** Tools §Tool Names: names SHOULD be unique within a server. */
export function duplicateToolNames(tools: readonly JsonObject[]): string | undefined {
  const seen = new Set<string>();
  const dupes = new Set<string>();
  for (const t of tools) if (typeof t.name === 'string') (seen.has(t.name) ? dupes : seen).add(t.name);
  return dupes.size > 0
    ? `names listed more than once: ${listSome([...dupes].map((n) => JSON.stringify(n)))}`
    : undefined;
}

/** Transports §stdio: "The server MUST NOT write anything to its stdout that is not a valid MCP message." */
export function stdoutJunk(junk: readonly string[]): string | undefined {
  if (junk.length === 0) return undefined;
  const lines = junk.map((line) => JSON.stringify(line.slice(0, 80)));
  if (junk.length === 1) return `a stdout line is not a JSON-RPC message: ${lines[0]}`;
  return `${junk.length} stdout lines are not JSON-RPC messages: ${listSome(lines)}`;
}

/** Tools §Tool: name is required (test's listing test; check's tools.fields says it of each tool). */
export function unnamedTools(tools: readonly JsonObject[]): string | undefined {
  const missing = tools.filter((t) => typeof t.name !== 'string' || t.name === '').length;
  return missing > 0 ? `${missing} tools have no name` : undefined;
}

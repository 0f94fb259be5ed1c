/**
 * Which operations become tools (`MCP_OPENAPI_INCLUDE`, `MCP_OPENAPI_EXCLUDE`,
 * `MCP_OPENAPI_READ_ONLY`), and the tool name of each: the `operationId` made valid for MCP
 * (1-64 of `A-Z a-z 0-9 _ - .`, the SEP-986 set every client accepts), or one built from the
 * method and path when there is none. Two operation ids that end up as one name refuse
 * start-up: silently renaming one would hand the model a tool its author never named.
 */
import path from 'node:path';
import { InternalCode, ToolkitError } from '../../src/index.ts';
import type { Operation } from './document.ts';

const METHOD_AND_PATH = /^(get|put|post|delete|options|head|patch|trace)\s+(\/.*)$/i;

/** Does one `MCP_OPENAPI_INCLUDE`/`EXCLUDE` entry name this operation? */
export function matches(entry: string, op: Operation): boolean {
  const methodAndPath = METHOD_AND_PATH.exec(entry);
  if (methodAndPath) {
    const [, method = '', glob = ''] = methodAndPath;
    return method.toLowerCase() === op.method && pathMatches(glob, op.path);
  }
  if (entry.startsWith('/')) return pathMatches(entry, op.path);
  return op.operation.operationId === entry || (op.operation.tags ?? []).includes(entry);
}

function pathMatches(glob: string, opPath: string): boolean {
  // A path written as the document writes it (`/pets/{petId}`) matches itself; braces would
  // otherwise be read as glob alternatives.
  // `/pets/**` means the pets collection and everything under it, `/pets` included.
  if (glob.endsWith('/**') && opPath === glob.slice(0, -3)) return true;
  return glob === opPath || path.posix.matchesGlob(opPath, glob);
}

export interface Selection {
  readonly selected: Operation[];
  /** Entries of MCP_OPENAPI_INCLUDE that matched no operation (likely a typo). */
  readonly unmatched: string[];
}

/**
 * The operations to offer: included (all when the list is empty), not excluded, and only GET
 * and HEAD when read-only.
 *
 * @example
 * selectOperations(ops, { include: ['pets'], exclude: ['deletePet'], readOnly: false });
 */
export function selectOperations(
  ops: readonly Operation[],
  filter: { include: readonly string[]; exclude: readonly string[]; readOnly: boolean },
): Selection {
  const unmatched = filter.include.filter((entry) => !ops.some((op) => matches(entry, op)));
  const selected = ops.filter(
    (op) =>
      (filter.include.length === 0 || filter.include.some((e) => matches(e, op))) &&
      !filter.exclude.some((e) => matches(e, op)) &&
      (!filter.readOnly || op.method === 'get' || op.method === 'head'),
  );
  return { selected, unmatched };
}

const MAX_NAME = 64;

function sanitize(raw: string): string {
  return raw
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/^[_.-]+|[_.-]+$/g, '')
    .slice(0, MAX_NAME);
}

/** `get /pets/{petId}/photos` → `get_pets_petId_photos`. */
function nameFromPath(op: Operation): string {
  const words = op.path
    .split('/')
    .map((part) => part.replace(/[{}]/g, ''))
    .filter((part) => part !== '');
  return sanitize([op.method, ...words].join('_')) || op.method;
}

/**
 * The tool name of every operation, in order. Throws a ToolkitError (DuplicateName) naming
 * the operations when two operation ids give the same name; names built from paths are made
 * unique with a numeric suffix.
 */
export function toolNames(ops: readonly Operation[]): string[] {
  const names = ops.map((op) => sanitize(op.operation.operationId ?? ''));
  const byName = new Map<string, Operation[]>();
  ops.forEach((op, i) => {
    const name = names[i];
    if (name) byName.set(name, [...(byName.get(name) ?? []), op]);
  });
  const clashes = [...byName.entries()].filter(([, group]) => group.length > 1);
  if (clashes.length > 0) {
    throw new ToolkitError(
      InternalCode.DuplicateName,
      clashes
        .map(
          ([name, group]) =>
            `MCP_OPENAPI_SPEC: operations ${group.map((op) => op.label).join(' and ')} would both be the tool "${name}": give them distinct operationIds, or leave one out with MCP_OPENAPI_EXCLUDE`,
        )
        .join('\n'),
    );
  }
  const taken = new Set(byName.keys());
  return ops.map((op, i) => {
    const given = names[i];
    if (given) return given;
    const base = nameFromPath(op);
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base.slice(0, MAX_NAME - String(n).length - 1)}_${n}`;
    taken.add(name);
    return name;
  });
}

/**
 * Limits on the shape of client JSON: a message nested deeper than `MCP_MAX_JSON_DEPTH` is
 * refused at the door (before any handler reads or echoes it), and the scan itself cannot
 * overflow the stack, however deep the value is (it recurses only so deep, then goes on with
 * a stack of its own).
 */

import type { Logger } from 'pino';
import { ErrorCode, ProtocolError } from '../base/errors.ts';
import { errorResponse, isId, isObject } from '../base/jsonrpc.ts';
import type { Reply } from './exchange.ts';

/** What `scanJson` found: nesting past the limit, or a key refused by prototype-poisoning protection. */
export type JsonProblem = { readonly kind: 'depth' } | { readonly kind: 'poison'; readonly key: string };

const TOO_DEEP: JsonProblem = Object.freeze({ kind: 'depth' });

/**
 * The value last measured where it was parsed (the HTTP edge's body walk, which looks for
 * refused keys in the same pass) and the depth it was found within. One slot, not a map: a
 * body is handed to the dispatcher in the same turn as it was parsed, so the slot still holds
 * it then; a value that is not in it is walked, as a value from anywhere else is.
 */
let measured: object | undefined;
let measuredWithin = 0;

/**
 * Records that `value`, a parsed message or batch just walked by `scanJson` with `maxDepth`,
 * nests no deeper than that, so `withinDepth(value, maxDepth)` holds without a second walk.
 */
export function markWithinDepth(value: unknown, maxDepth: number): void {
  if (typeof value !== 'object' || value === null) return;
  measured = value;
  measuredWithin = maxDepth;
}

/**
 * Whether `value` nests no deeper than `maxDepth`: from the mark its parser left, else by
 * walking it (a batch's members, measured each from its own top, are walked).
 */
export function withinDepth(value: unknown, maxDepth: number): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (value === measured) {
    measured = undefined;
    if (measuredWithin <= maxDepth) return true;
  }
  return scanJson(value, maxDepth, false) === undefined;
}

/** How deep the walk recurses before it goes on with a stack of its own. */
const RECURSION = 64;

/**
 * Walks a parsed JSON value. The top-level object or array is depth 1. With `poison`, a
 * `__proto__` key, or a `constructor` key holding an object with `prototype` (Fastify's
 * secure-json-parse rules), is reported too.
 *
 * @example
 * scanJson(JSON.parse('{"a":{"b":[1]}}'), 64, false); // undefined: depth 3
 */
export function scanJson(value: unknown, maxDepth: number, poison: boolean): JsonProblem | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  return walk(value, 1, maxDepth, poison);
}

/** The walk from `node` at `depth`, recursive while shallow (no arrays to grow per call). */
function walk(node: object, depth: number, maxDepth: number, poison: boolean): JsonProblem | undefined {
  if (depth > maxDepth) return TOO_DEEP;
  if (depth > RECURSION) return walkWithStack(node, depth, maxDepth, poison);
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const item: unknown = node[i];
      if (typeof item === 'object' && item !== null) {
        const problem = walk(item, depth + 1, maxDepth, poison);
        if (problem !== undefined) return problem;
      }
    }
    return undefined;
  }
  const record = node as Record<string, unknown>;
  for (const key in record) {
    const child = record[key];
    if (poison && isPoisonKey(key, child)) return { kind: 'poison', key };
    if (typeof child === 'object' && child !== null) {
      const problem = walk(child, depth + 1, maxDepth, poison);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

/** The walk from `node` at `depth` with an explicit stack: however deep, no recursion. */
function walkWithStack(
  node: object,
  depth: number,
  maxDepth: number,
  poison: boolean,
): JsonProblem | undefined {
  const values: object[] = [node];
  const depths: number[] = [depth];
  while (values.length > 0) {
    const current = values.pop() as object;
    const at = depths.pop() as number;
    if (at > maxDepth) return TOO_DEEP;
    if (Array.isArray(current)) {
      for (const item of current) {
        if (typeof item === 'object' && item !== null) {
          values.push(item);
          depths.push(at + 1);
        }
      }
      continue;
    }
    const record = current as Record<string, unknown>;
    for (const key in record) {
      const child = record[key];
      if (poison && isPoisonKey(key, child)) return { kind: 'poison', key };
      if (typeof child === 'object' && child !== null) {
        values.push(child);
        depths.push(at + 1);
      }
    }
  }
  return undefined;
}

function isPoisonKey(key: string, child: unknown): boolean {
  if (key === '__proto__') return true;
  return (
    key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype')
  );
}

/**
 * The answer to a message nested past the limit: -32600 (HTTP 400) for a request, with its id
 * when it has one; nothing for a notification or a response, which never get an answer, not
 * even an error (JSON-RPC 2.0 §4.1), so that is only logged.
 */
export function tooDeep(value: unknown, maxJsonDepth: number, logger: Logger): Reply {
  if (isObject(value) && ('method' in value ? !('id' in value) : 'result' in value || 'error' in value)) {
    logger.warn({ maxJsonDepth }, 'a notification or response nested past MCP_MAX_JSON_DEPTH was dropped');
    return {};
  }
  const id = isObject(value) && isId(value.id) ? value.id : null;
  return {
    body: errorResponse(
      id,
      new ProtocolError(
        ErrorCode.InvalidRequest,
        `Invalid request: the message is nested deeper than ${maxJsonDepth} levels (MCP_MAX_JSON_DEPTH)`,
      ),
    ),
    status: 400,
  };
}

/**
 * Loads `MCP_OPENAPI_SPEC` with @apidevtools/swagger-parser: read from a file or an http(s)
 * URL, JSON or YAML, validated against the official OpenAPI 3.0 / 3.1 schema, every `$ref`
 * replaced by its target (circular schemas stay shared objects). Nothing of OpenAPI is parsed
 * here; this file turns the library's failures into start-up errors that say what to fix,
 * and names the operations a broken `$ref` belongs to.
 */
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { InternalCode, ToolkitError } from '@mcp-toolkit/server';
import { type ApiDocument, isObjectValue, operationsOf, type ServerObject } from './document.ts';
import { createRefPolicy, refPolicyOptions } from './ref-policy.ts';

export interface LoadOptions {
  timeoutMs: number;
  userAgent: string;
  /** `MCP_OPENAPI_ALLOW_REFS`: hosts or origins beyond the document's own that `$ref`s may name. */
  allowRefs?: readonly string[];
}

export interface LoadedApi {
  readonly api: ApiDocument;
  /** The document's own URL when it was fetched (relative server URLs resolve against it). */
  readonly url: string | undefined;
}

const HTTP_SOURCE = /^https?:\/\//i;

function parserOptions(source: string, options: LoadOptions): SwaggerParser.Options {
  const policy = refPolicyOptions(createRefPolicy(source, options.allowRefs ?? []), {
    timeoutMs: options.timeoutMs,
    headers: {
      'User-Agent': options.userAgent,
      Accept: 'application/json, application/yaml;q=0.9, */*;q=0.5',
    },
  });
  return {
    parse: policy.parse as SwaggerParser.Options['parse'],
    resolve: policy.resolve as SwaggerParser.Options['resolve'],
    dereference: { circular: true },
  };
}

function failure(message: string, cause?: unknown): ToolkitError {
  return new ToolkitError(InternalCode.InvalidSetting, message, { cause });
}

/**
 * Reads, validates and dereferences the document. Throws a ToolkitError (InvalidSetting)
 * whose message starts with `MCP_OPENAPI_SPEC` and says what is wrong.
 *
 * @example
 * const { api } = await loadDocument('./petstore.yaml', { timeoutMs: 10_000, userAgent: 'me' });
 */
export async function loadDocument(spec: string, options: LoadOptions): Promise<LoadedApi> {
  const source = HTTP_SOURCE.test(spec) ? spec : path.resolve(spec);
  let api: ApiDocument;
  let timer: NodeJS.Timeout | undefined;
  // The whole load, the document and every $ref it names, within MCP_OPENAPI_TIMEOUT_MS.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          failure(
            `MCP_OPENAPI_SPEC could not be read: loading it and its $refs took longer than MCP_OPENAPI_TIMEOUT_MS (${options.timeoutMs} ms)`,
          ),
        ),
      options.timeoutMs,
    );
  });
  try {
    api = (await Promise.race([
      new SwaggerParser().validate(source, parserOptions(source, options)),
      deadline,
    ])) as unknown as ApiDocument;
  } catch (err) {
    throw err instanceof ToolkitError ? err : await explain(err, source, options);
  } finally {
    clearTimeout(timer);
  }
  if (typeof api.openapi !== 'string' || !api.openapi.startsWith('3.')) {
    throw failure(
      'MCP_OPENAPI_SPEC is a Swagger 2.0 document: the openapi plugin reads OpenAPI 3.0 and 3.1 (convert it first, e.g. with swagger2openapi)',
    );
  }
  if (HTTP_SOURCE.test(spec)) restorePorts(api, new URL(spec));
  return { api, url: HTTP_SOURCE.test(spec) ? spec : undefined };
}

/**
 * The library resolves a server URL starting with `/` against the document's URL, but with
 * its host name alone, dropping the port (`http://host:8080/openapi.yaml` with `/v1` gives
 * `http://host/v1`). Put the port back. The one case this misreads is a document served from
 * a non-default port that names its own host's default port with an absolute URL.
 */
function restorePorts(api: ApiDocument, documentUrl: URL): void {
  if (documentUrl.port === '') return;
  const dropped = `${documentUrl.protocol}//${documentUrl.hostname}`;
  const fix = (servers: ServerObject[] | undefined) => {
    for (const server of servers ?? []) {
      if (server.url === dropped || server.url.startsWith(`${dropped}/`)) {
        server.url = `${documentUrl.protocol}//${documentUrl.host}${server.url.slice(dropped.length)}`;
      }
    }
  };
  fix(api.servers);
  for (const op of operationsOf(api)) {
    fix(op.pathItem.servers);
    fix(op.operation.servers);
  }
}

/** The library's error as a message that names the setting, and the operations when it can. */
async function explain(err: unknown, source: string, options: LoadOptions): Promise<ToolkitError> {
  const e = err as { code?: unknown; message?: unknown; ioErrorCode?: unknown; parentPath?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(err);
  switch (e.code) {
    case 'EMISSINGPOINTER':
    case 'EINVALIDPOINTER': {
      const users = await operationsWithBrokenRefs(source, options);
      const where =
        users.length > 0
          ? `; used by operation ${users.join(', ')}`
          : typeof e.parentPath === 'string'
            ? ` at ${e.parentPath}`
            : '';
      return failure(`MCP_OPENAPI_SPEC has a broken $ref: ${message}${where}`, err);
    }
    case 'ERESOLVER':
      return failure(`MCP_OPENAPI_SPEC could not be read: ${message}`, err);
    case 'EPARSER':
    case 'EUNMATCHEDPARSER':
      return failure(`MCP_OPENAPI_SPEC is not valid JSON or YAML: ${message}`, err);
    default:
      // Schema validation ("Swagger schema validation failed" with one line per violation,
      // each naming its JSON pointer), an unsupported version, or not an API document at all.
      return failure(`MCP_OPENAPI_SPEC is not a valid OpenAPI 3.0 or 3.1 document: ${message}`, err);
  }
}

/**
 * The operations whose own definition, or any local `$ref` reachable from it, points at
 * nothing. Walks the document as read (before dereferencing) and asks the library to resolve
 * each pointer, so which pointers are broken is the library's call, not ours.
 */
async function operationsWithBrokenRefs(source: string, options: LoadOptions): Promise<string[]> {
  const parser = new SwaggerParser();
  try {
    await parser.resolve(source, { ...parserOptions(source, options), continueOnError: true });
  } catch {
    // The errors are what we are looking for; the document itself was read.
  }
  const raw = parser.api as unknown as ApiDocument | null;
  if (!isObjectValue(raw)) return [];
  const get = (ref: string): unknown => parser.$refs.get(ref);
  return operationsOf(raw)
    .filter((op) => reachesBrokenRef([op.operation, op.pathItem.parameters], get))
    .map((op) => op.label);
}

function reachesBrokenRef(start: unknown, get: (ref: string) => unknown): boolean {
  const seen = new Set<unknown>();
  const followed = new Set<string>();
  const stack: unknown[] = [start];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== 'object' || value === null || seen.has(value)) continue;
    seen.add(value);
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#') && !followed.has(ref)) {
      followed.add(ref);
      let target: unknown;
      try {
        target = get(ref);
      } catch {
        return true;
      }
      if (target === undefined) return true;
      stack.push(target);
    }
    for (const child of Object.values(value)) stack.push(child);
  }
  return false;
}

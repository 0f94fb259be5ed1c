/**
 * Validates what our server sends against the MCP specification's JSON Schemas, one file per
 * protocol revision (published by the specification's repository as `schema/<revision>/schema.json`). The official SDK's zod schemas are looser than the spec and
 * lack the 2026 fields (`resultType`, `ttlMs`, `cacheScope`), so the spec files are the authority.
 *
 * Which definition applies is read from the schema itself, not hard-coded:
 * - a result: the `XResult` that goes with each `XRequest` in `ClientRequest` (`EmptyResult`
 *   when the spec defines none, e.g. `ping`, `logging/setLevel`);
 * - a notification / server-to-client request: the member of `ServerNotification` /
 *   `ServerRequest` whose `method` is that constant (2026-07-28 has no `ServerRequest`: the
 *   server asks for input with an `InputRequiredResult` instead);
 * - an error: the typed error envelope whose `error.code` is that constant, if any (2026:
 *   -32020 header mismatch, -32021 missing client capability, -32022 unsupported version).
 */

import { AssertionError } from 'node:assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; its default export arrives wrapped depending on the loader.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv | Ajv2020,
) => void;

type Json = Record<string, unknown>;

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/**
 * Where the schema files are looked for: MCP_SPEC_SCHEMAS_DIR, else `.cache/spec-schemas` in
 * the clone (ignored by git). They are reference data we do not redistribute, so a plain clone
 * has none: the suite then runs every test without this extra validation (the spec-schema test
 * file says so, once, with the command that fetches them), and `.ci/run` refuses to run
 * without them. The folder holds either one `<revision>.json` per revision or a checkout of
 * the specification's repository (`schema/<revision>/schema.json`).
 */
export const SPEC_SCHEMAS_DIR =
  process.env['MCP_SPEC_SCHEMAS_DIR'] || path.join(REPO_ROOT, '.cache/spec-schemas');
const MAX_LINES = 12;
const REVISION = /^\d{4}-\d{2}-\d{2}$/;

/** Revision → its schema file, in either layout; empty when the folder is missing. */
function schemaFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  if (!existsSync(dir)) return files;
  for (const entry of readdirSync(dir)) {
    const revision = entry.replace(/\.json$/, '');
    if (entry.endsWith('.json') && REVISION.test(revision)) files.set(revision, path.join(dir, entry));
  }
  const nested = path.join(dir, 'schema');
  if (existsSync(nested)) {
    for (const revision of readdirSync(nested)) {
      const file = path.join(nested, revision, 'schema.json');
      if (REVISION.test(revision) && !files.has(revision) && existsSync(file)) files.set(revision, file);
    }
  }
  return files;
}

const SCHEMA_FILES = schemaFiles(SPEC_SCHEMAS_DIR);

/** True when the schema folder holds at least one revision's file. */
export const specSchemasAvailable: boolean = SCHEMA_FILES.size > 0;

/** What the suite prints, once, when the schemas are absent: what is missing and how to get it. */
export const SPEC_SCHEMAS_MISSING =
  `the MCP specification's JSON Schemas are not in ${SPEC_SCHEMAS_DIR}, so this run does not ` +
  'check server messages against them (every other check runs). To add that check, fetch the ' +
  `specification: git clone --depth 1 https://github.com/modelcontextprotocol/modelcontextprotocol ${SPEC_SCHEMAS_DIR} ` +
  '(or set MCP_SPEC_SCHEMAS_DIR to a folder of <revision>.json files)';

/**
 * Methods and notifications that extensions add on top of a revision (SEP-2663 tasks on 2026,
 * SEP-2640 skills), which the core schema does not define: their messages are checked against
 * the generic JSON-RPC envelope and `Result` only, as the official conformance harness does.
 * Likewise a `resultType: "task"` result (SEP-2663 `CreateTaskResult`) answers in place of
 * the method's own result.
 */
const EXTENSION_METHODS = new Set([
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
  'skills/list',
  'skills/get',
  'resources/directory/read',
]);
const EXTENSION_NOTIFICATIONS = new Set(['notifications/tasks']);
const EXTENSION_RESULT_TYPES = new Set(['task']);

interface RevisionSchemas {
  has(definition: string): boolean;
  /** Violations of `value` against one definition, each line prefixed with `where`. */
  check(definition: string, value: unknown, where: string): string[];
  /** Client request method → the result definition that answers it. */
  results: Map<string, string>;
  /** Client request methods whose response may be an `InputRequiredResult` (2026). */
  inputRequired: Set<string>;
  notifications: Map<string, string>;
  requests: Map<string, string>;
  /** Error code → typed error-response definition. */
  errors: Map<number, string>;
  /** The envelope definitions; their names changed in 2025-11-25. */
  envelope: { request: string; notification: string; result: string; error: string };
}

const cache = new Map<string, RevisionSchemas>();

/** The schema file of one revision, wherever the folder's layout puts it. */
export function specSchemaFile(revision: string): string | undefined {
  return SCHEMA_FILES.get(revision);
}

/** The protocol revisions whose schema files are present, oldest first; empty when none are. */
export function specRevisions(): string[] {
  return [...SCHEMA_FILES.keys()].sort();
}

function asObject(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

/** `{ anyOf: [{ $ref: '#/$defs/X' }, ...] }` → `['X', ...]`. */
function members(definition: unknown): string[] {
  const anyOf = asObject(definition)['anyOf'];
  return Array.isArray(anyOf) ? anyOf.map((ref) => String(asObject(ref)['$ref']).split('/').pop()!) : [];
}

function methodOf(definition: unknown): string | undefined {
  const method = asObject(asObject(asObject(definition)['properties'])['method'])['const'];
  return typeof method === 'string' ? method : undefined;
}

/** A typed error envelope states its code as `error.allOf[n].properties.code.const`. */
function errorCodeOf(definition: unknown): number | undefined {
  const error = asObject(asObject(asObject(definition)['properties'])['error']);
  for (const part of Array.isArray(error['allOf']) ? error['allOf'] : []) {
    const code = asObject(asObject(asObject(part)['properties'])['code'])['const'];
    if (typeof code === 'number') return code;
  }
  return undefined;
}

function describe(error: ErrorObject): string {
  const { keyword, params } = error;
  if (keyword === 'additionalProperties') return `${error.message} '${params['additionalProperty']}'`;
  if (keyword === 'const') return `must be ${JSON.stringify(params['allowedValue'])}`;
  if (keyword === 'enum') return `must be one of ${JSON.stringify(params['allowedValues'])}`;
  return error.message ?? keyword;
}

function load(revision: string): RevisionSchemas {
  const cached = cache.get(revision);
  if (cached) return cached;
  const file = SCHEMA_FILES.get(revision);
  if (file === undefined) {
    throw new Error(
      `No spec schema for revision '${revision}' in ${SPEC_SCHEMAS_DIR} (have: ${specRevisions()})`,
    );
  }
  const schema = JSON.parse(readFileSync(file, 'utf8')) as Json;
  const draft07 = String(schema['$schema']).includes('draft-07');
  const options = { strict: false, allErrors: true };
  const ajv = draft07 ? new Ajv(options) : new Ajv2020(options);
  addFormats(ajv);
  const key = `https://spec.modelcontextprotocol.io/schema/${revision}.json`;
  ajv.addSchema(schema, key);
  const defsKey = draft07 ? 'definitions' : '$defs';
  const defs = asObject(schema[defsKey]);
  const compiled = new Map<string, ValidateFunction>();

  const has = (definition: string) => definition in defs;
  const check = (definition: string, value: unknown, where: string): string[] => {
    let validate = compiled.get(definition);
    if (!validate) {
      validate = ajv.getSchema(`${key}#/${defsKey}/${definition}`);
      if (!validate) throw new Error(`${revision}: no definition ${definition}`);
      compiled.set(definition, validate);
    }
    if (validate(value)) return [];
    const lines = (validate.errors ?? []).map(
      (error) => `${where}${error.instancePath}: ${describe(error)} (${definition})`,
    );
    return lines.length > MAX_LINES
      ? [...lines.slice(0, MAX_LINES), `... ${lines.length - MAX_LINES} more`]
      : lines;
  };

  const byMethod = (union: string) =>
    new Map(
      members(defs[union]).flatMap((name) => (methodOf(defs[name]) ? [[methodOf(defs[name])!, name]] : [])),
    );
  const results = new Map<string, string>();
  const inputRequired = new Set<string>();
  for (const [method, request] of byMethod('ClientRequest')) {
    const result = request.replace(/Request$/, 'Result');
    results.set(method, has(result) ? result : 'EmptyResult');
    // 2026 pairs each result with an `XResultResponse` whose `result` lists what may answer.
    const answer = asObject(asObject(defs[`${result}Response`])['properties'])['result'];
    if (members(answer).includes('InputRequiredResult')) inputRequired.add(method);
  }
  const errors = new Map<number, string>();
  for (const [name, definition] of Object.entries(defs)) {
    const code = errorCodeOf(definition);
    if (code !== undefined) errors.set(code, name);
  }
  const pick = (...names: string[]) => names.find(has)!;
  const loaded: RevisionSchemas = {
    has,
    check,
    results,
    inputRequired,
    notifications: byMethod('ServerNotification'),
    requests: byMethod('ServerRequest'),
    errors,
    envelope: {
      request: 'JSONRPCRequest',
      notification: 'JSONRPCNotification',
      result: pick('JSONRPCResultResponse', 'JSONRPCResponse'),
      error: pick('JSONRPCErrorResponse', 'JSONRPCError'),
    },
  };
  cache.set(revision, loaded);
  return loaded;
}

function checkResult(s: RevisionSchemas, revision: string, result: unknown, requestMethod: string): string[] {
  const where = '/result';
  const resultType = asObject(result)['resultType'];
  if (resultType === 'input_required' && s.has('InputRequiredResult')) {
    const violations = s.check('InputRequiredResult', result, where);
    if (!s.inputRequired.has(requestMethod)) {
      violations.push(
        `${where}: '${requestMethod}' may not answer with an input-required result in ${revision}`,
      );
    }
    // InputRequiredResult's description: "At least one of inputRequests or requestState MUST be
    // present"; the schema itself requires only resultType.
    const { inputRequests, requestState } = asObject(result);
    if (inputRequests === undefined && requestState === undefined) {
      violations.push(`${where}: input-required result carries neither inputRequests nor requestState`);
    }
    return violations;
  }
  const definition = s.results.get(requestMethod);
  if (!definition && EXTENSION_METHODS.has(requestMethod)) return s.check('Result', result, where);
  if (EXTENSION_RESULT_TYPES.has(String(resultType))) return s.check('Result', result, where);
  // 2025-11-25 (SEP-1686): a task-augmented request is answered with CreateTaskResult.
  const task = asObject(result)['task'];
  if (typeof task === 'object' && task !== null && s.has('CreateTaskResult')) {
    return s.check('CreateTaskResult', result, where);
  }
  if (!definition) return [`${where}: '${requestMethod}' is not a client request in ${revision}`];
  return s.check(definition, result, where);
}

/**
 * Checks one JSON-RPC message that a server sent against the revision's schema; returns the
 * violations, empty when valid. Give `requestMethod` for a success response to check `result`
 * against that method's result definition (otherwise only the generic `Result` is checked).
 * Without the schema files ({@link specSchemasAvailable} false) nothing is checked: empty.
 *
 * @example
 * validateServerMessage('2025-11-25', { jsonrpc: '2.0', id: 1, result: {} }, 'ping'); // → []
 */
export function validateServerMessage(revision: string, message: unknown, requestMethod?: string): string[] {
  if (!specSchemasAvailable) return [];
  const s = load(revision);
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return ['message: not a JSON object (validate batch members one by one)'];
  }
  const m = message as Json;
  if ('method' in m) {
    const request = 'id' in m;
    const table = request ? s.requests : s.notifications;
    const definition = typeof m['method'] === 'string' ? table.get(m['method']) : undefined;
    const envelope = s.check(request ? s.envelope.request : s.envelope.notification, m, '');
    if (!definition && !request && EXTENSION_NOTIFICATIONS.has(String(m['method']))) return envelope;
    if (!definition) {
      const kind = request ? 'server-to-client request' : 'server notification';
      const known = [...table.keys()].join(', ') || 'none';
      return [
        ...envelope,
        `/method: '${String(m['method'])}' is not a ${kind} in ${revision} (known: ${known})`,
      ];
    }
    return [...envelope, ...s.check(definition, m, '')];
  }
  const hasResult = 'result' in m;
  const hasError = 'error' in m;
  if (hasResult && hasError) return ['message: a response carries both result and error (JSON-RPC 2.0 §5)'];
  if (!hasResult && !hasError) return ['message: neither a request, a notification nor a response'];
  // JSON-RPC 2.0 §5: `id` is required on every response, null when the request's id could not
  // be read; the 2025-11-25+ schemas make it optional on errors and never allow null, so an
  // error's null id is accepted here (the conformance suite accepts it too).
  const violations = 'id' in m ? [] : ['/id: a response must carry the id of its request (JSON-RPC 2.0 §5)'];
  if (hasError) {
    const checked = m['id'] === null ? { ...m, id: 0 } : m;
    violations.push(...s.check(s.envelope.error, checked, ''));
    const typed = s.errors.get(asObject(m['error'])['code'] as number);
    if (typed) violations.push(...s.check(typed, checked, ''));
    return violations;
  }
  violations.push(...s.check(s.envelope.result, m, ''));
  if (requestMethod !== undefined) violations.push(...checkResult(s, revision, m['result'], requestMethod));
  return violations;
}

/**
 * Throws an AssertionError listing every violation of {@link validateServerMessage}.
 *
 * @example
 * assertValidServerMessage('2026-07-28', response, 'tools/list');
 */
export function assertValidServerMessage(revision: string, message: unknown, requestMethod?: string): void {
  const violations = validateServerMessage(revision, message, requestMethod);
  if (violations.length === 0) return;
  const context = requestMethod ? ` (answer to '${requestMethod}')` : '';
  throw new AssertionError({
    message:
      `Server message violates the ${revision} spec schema${context}:\n` +
      violations.map((line) => `  - ${line}`).join('\n') +
      `\nmessage: ${JSON.stringify(message).slice(0, 2000)}`,
  });
}

/**
 * Walks a tool's inputSchema property by property, at every depth (nested `properties`, array
 * `items`, `anyOf`/`oneOf`/`allOf` branches, local `$ref`s), for the field checks: every
 * property described, every property typed with a JSON Schema type.
 */
import { isObject, type JsonObject } from '../../base/jsonrpc.ts';

export const JSON_TYPES: ReadonlySet<string> = new Set([
  'string',
  'number',
  'integer',
  'boolean',
  'array',
  'object',
  'null',
]);

const MAX_DEPTH = 16;

/** Resolves a local `$ref` (`#/$defs/x`, `#/definitions/x`, any JSON pointer into the root). */
export function resolveRef(schema: JsonObject, root: JsonObject): JsonObject {
  let current = schema;
  for (let hops = 0; hops < 8 && typeof current.$ref === 'string'; hops++) {
    const ref = current.$ref as string;
    if (!ref.startsWith('#')) return current;
    let target: unknown = root;
    for (const raw of ref.slice(1).split('/').filter(Boolean)) {
      const part = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
      target = isObject(target) ? target[part] : undefined;
    }
    if (!isObject(target)) return current;
    const { $ref: _ref, ...rest } = current;
    current = { ...target, ...rest };
  }
  return current;
}

export function propertiesOf(schema: unknown): Record<string, JsonObject> {
  if (!isObject(schema) || !isObject(schema.properties)) return {};
  const out: Record<string, JsonObject> = {};
  for (const [name, prop] of Object.entries(schema.properties)) out[name] = isObject(prop) ? prop : {};
  return out;
}

export function requiredOf(schema: unknown): string[] {
  if (!isObject(schema) || !Array.isArray(schema.required)) return [];
  return schema.required.filter((r): r is string => typeof r === 'string');
}

interface Visit {
  path: string;
  /** The property's own schema, as written (a `$ref` unresolved). */
  own: JsonObject;
  /** The property's schema with local `$ref`s resolved. */
  resolved: JsonObject;
}

/** Every property at every depth, depth-first, with a dotted path (`a.b`, `list[].c`). */
export function walkProperties(root: JsonObject): Visit[] {
  const out: Visit[] = [];
  // Visits one schema node: its properties (recorded), its array items, its union branches.
  const visit = (node: JsonObject, prefix: string, depth: number, refs: ReadonlySet<string>) => {
    if (depth > MAX_DEPTH) return;
    const schema = resolveRef(node, root);
    for (const [name, own] of Object.entries(propertiesOf(schema))) {
      const path = prefix === '' ? name : `${prefix}.${name}`;
      const ref = typeof own.$ref === 'string' ? own.$ref : undefined;
      if (ref !== undefined && refs.has(ref)) continue; // a recursive definition is walked once
      const resolved = resolveRef(own, root);
      out.push({ path, own, resolved });
      visit(resolved, path, depth + 1, ref === undefined ? refs : new Set([...refs, ref]));
    }
    if (isObject(schema.items)) visit(schema.items, `${prefix}[]`, depth + 1, refs);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      const branches = schema[key];
      if (Array.isArray(branches))
        for (const b of branches) if (isObject(b)) visit(b, prefix, depth + 1, refs);
    }
  };
  visit(root, '', 0, new Set());
  return out;
}

/** Properties without a non-empty `description` (on the property or the schema it refers to). */
export function missingDescriptions(root: JsonObject): string[] {
  return walkProperties(root)
    .filter(({ own, resolved }) => {
      const d = own.description ?? resolved.description;
      return typeof d !== 'string' || d.trim() === '';
    })
    .map(({ path }) => path);
}

/** Why a property schema has no valid type, or undefined when it has one. */
export function typeProblem(schema: JsonObject, root: JsonObject, depth = 0): string | undefined {
  const s = resolveRef(schema, root);
  const type = s.type;
  if (typeof type === 'string')
    return JSON_TYPES.has(type) ? undefined : `has an invalid type ${JSON.stringify(type)}`;
  if (Array.isArray(type)) {
    const bad = type.filter((t) => typeof t !== 'string' || !JSON_TYPES.has(t));
    if (type.length === 0) return 'has an empty type list';
    return bad.length === 0 ? undefined : `has invalid types ${JSON.stringify(bad)}`;
  }
  if (type !== undefined) return `has a type that is not a string: ${JSON.stringify(type)}`;
  // No `type`: a fixed value set implies its types; a union is typed when every branch is.
  if (Array.isArray(s.enum) || 'const' in s) return undefined;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = s[key];
    if (Array.isArray(branches) && branches.length > 0 && depth < MAX_DEPTH) {
      const problems = branches.map((b) =>
        isObject(b) ? typeProblem(b, root, depth + 1) : 'is not a schema',
      );
      const first = problems.find((p) => p !== undefined);
      return first === undefined ? undefined : `has a ${key} branch that ${first}`;
    }
  }
  const all = s.allOf;
  if (Array.isArray(all) && depth < MAX_DEPTH) {
    if (all.some((b) => isObject(b) && typeProblem(b, root, depth + 1) === undefined)) return undefined;
  }
  return 'has no type';
}

/** `path type-problem` for every property whose type is missing or not a JSON Schema type. */
export function invalidTypes(root: JsonObject): string[] {
  const out: string[] = [];
  for (const { path, own } of walkProperties(root)) {
    const problem = typeProblem(own, root);
    if (problem !== undefined) out.push(`${path} ${problem}`);
  }
  return out;
}

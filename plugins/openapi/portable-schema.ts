/**
 * Turns a dereferenced OpenAPI schema into a portable JSON Schema (draft 2020-12, the MCP
 * default), following the rules of the toolkit's own generated schemas: no `$ref`/`$defs`, no
 * `$schema`, and every property typed where the schema allows it to be known (clients such as
 * Gemini reject untyped properties; Cursor drops what it cannot read). OpenAPI 3.0's own
 * keywords become their JSON Schema forms (`nullable`, boolean `exclusiveMinimum`, `example`);
 * OpenAPI-only keywords (`discriminator`, `xml`, `externalDocs`, `x-*`) are dropped.
 */
import { type JsonSchema, schemaKeywords } from '@mcp-toolkit/server';
import { isObjectValue } from './document.ts';

export interface PortableOptions {
  /** `3.0`: Schema Objects (an extended subset of draft 5); `3.1`: JSON Schema 2020-12. */
  readonly dialect: '3.0' | '3.1';
  /**
   * `input` leaves out `readOnly` properties (the server sets them); `output` leaves out
   * `writeOnly` ones and the `format` assertions (an API's date format is rarely exactly RFC
   * 3339, and a successful call must not fail on an annotation).
   */
  readonly direction: 'input' | 'output';
}

/** Deeper than this, or on a cycle, a schema is cut to its type (a recursive tree, say). */
const MAX_DEPTH = 12;

/** The formats Ajv (with ajv-formats) knows; others would only log warnings, so they go. */
const KNOWN_FORMATS: ReadonlySet<string> = new Set([
  'date',
  'time',
  'date-time',
  'iso-time',
  'iso-date-time',
  'duration',
  'uri',
  'uri-reference',
  'uri-template',
  'url',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'regex',
  'uuid',
  'json-pointer',
  'json-pointer-uri-fragment',
  'relative-json-pointer',
  'byte',
  'int32',
  'int64',
  'float',
  'double',
  'password',
  'binary',
]);

const COPIED = [
  'title',
  'description',
  'default',
  'enum',
  'const',
  'multipleOf',
  'maximum',
  'minimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'required',
  'deprecated',
  'examples',
  'contentMediaType',
  'contentEncoding',
] as const;

// The subschema keywords walked are the toolkit's own (`schemaKeywords`). `$defs` and
// `definitions` are not walked: the schema is dereferenced, and they are dropped.

/**
 * The portable form of one schema.
 *
 * @example
 * portableSchema({ type: 'string', nullable: true }, { dialect: '3.0', direction: 'input' });
 * // → { type: ['string', 'null'] }
 */
export function portableSchema(schema: unknown, options: PortableOptions): JsonSchema {
  return convert(schema, options, 0, new Set());
}

function convert(node: unknown, options: PortableOptions, depth: number, ancestors: Set<object>): JsonSchema {
  if (node === false) return { not: {} };
  if (!isObjectValue(node)) return {};
  if (ancestors.has(node) || depth > MAX_DEPTH) return cut(node, options);
  ancestors.add(node);
  try {
    return convertObject(node, options, depth, ancestors);
  } finally {
    ancestors.delete(node);
  }
}

function convertObject(
  node: Record<string, unknown>,
  options: PortableOptions,
  depth: number,
  ancestors: Set<object>,
): JsonSchema {
  const out: JsonSchema = {};
  const sub = (value: unknown) => convert(value, options, depth + 1, ancestors);
  if (typeof node.type === 'string' || Array.isArray(node.type)) out.type = node.type;
  for (const key of COPIED) if (node[key] !== undefined) out[key] = node[key];
  if (typeof node.format === 'string' && KNOWN_FORMATS.has(node.format) && options.direction === 'input') {
    out.format = node.format;
  }
  if (node.example !== undefined && out.examples === undefined) out.examples = [node.example];
  exclusiveBounds(node, out, options);
  if (options.dialect === '3.0' && node.nullable === true) nullable(out);

  if (isObjectValue(node.properties)) {
    const skip = options.direction === 'input' ? 'readOnly' : 'writeOnly';
    const properties: Record<string, JsonSchema> = {};
    const dropped = new Set<string>();
    for (const [name, prop] of Object.entries(node.properties)) {
      if (isObjectValue(prop) && prop[skip] === true) dropped.add(name);
      else properties[name] = sub(prop);
    }
    out.properties = properties;
    if (Array.isArray(out.required)) {
      out.required = (out.required as unknown[]).filter((r) => typeof r === 'string' && !dropped.has(r));
    }
  }
  if (Array.isArray(out.required) && out.required.length === 0) delete out.required;
  for (const key of schemaKeywords.subschema) {
    const value = node[key];
    if (typeof value === 'boolean') out[key] = value;
    else if (isObjectValue(value)) out[key] = sub(value);
  }
  for (const key of schemaKeywords.subschemaMap) {
    const value = node[key];
    if (isObjectValue(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sub(v)]));
    }
  }
  for (const key of schemaKeywords.subschemaList) {
    const value = node[key];
    if (Array.isArray(value) && value.length > 0) out[key] = value.map(sub);
  }
  mergeAllOf(out);
  if (out.type === undefined) {
    const inferred = inferType(out);
    if (inferred !== undefined) out.type = inferred;
  }
  if (options.direction === 'input') portableInput(out);
  return out;
}

/**
 * The formats that every major client accepts in a tool's input (OpenAI's strict mode is the
 * narrowest: the toolkit's `schemaKeywords.portableFormats`); another format, such as
 * OpenAPI's `int64`, moves into the description, where the model still reads it.
 */
const INPUT_FORMATS: ReadonlySet<string> = new Set(schemaKeywords.portableFormats);

/**
 * A format outside INPUT_FORMATS becomes a note in the description: validators ignore such
 * formats and strict clients refuse them. A nullable type (`['string', 'null']`) stays: its
 * `null` can mean something to the API (clear the field, in a PUT), which leaving the
 * argument out would not; `mcp-toolkit check` reports it as a portability warning.
 */
function portableInput(out: JsonSchema): void {
  if (typeof out.format === 'string' && !INPUT_FORMATS.has(out.format)) {
    const note = `(${out.format})`;
    out.description = typeof out.description === 'string' ? `${out.description} ${note}` : note;
    delete out.format;
  }
}

/** 3.0's `exclusiveMinimum: true` beside `minimum` is 2020-12's numeric `exclusiveMinimum`. */
function exclusiveBounds(node: Record<string, unknown>, out: JsonSchema, options: PortableOptions): void {
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    const value = node[exclusive];
    if (typeof value === 'number') out[exclusive] = value;
    else if (value === true && options.dialect === '3.0' && typeof node[bound] === 'number') {
      out[exclusive] = node[bound];
      delete out[bound];
    }
  }
}

/** 3.0's `nullable: true`: `null` joins the type (and the enum, which would exclude it). */
function nullable(out: JsonSchema): void {
  if (typeof out.type === 'string') out.type = [out.type, 'null'];
  else if (Array.isArray(out.type) && !out.type.includes('null')) out.type = [...out.type, 'null'];
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
}

const MERGEABLE_KEYS: ReadonlySet<string> = new Set([
  'type',
  'properties',
  'required',
  'description',
  'title',
]);

/**
 * `allOf` of plain object schemas (OpenAPI's usual composition: a base plus extra
 * properties) becomes one object, which every client reads; anything else stays an `allOf`.
 */
function mergeAllOf(out: JsonSchema): void {
  const branches = out.allOf;
  if (!Array.isArray(branches)) return;
  if (out.type !== undefined && out.type !== 'object') return;
  const mergeable = branches.every(
    (b) =>
      isObjectValue(b) &&
      (b.type === undefined || b.type === 'object') &&
      Object.keys(b).every((k) => MERGEABLE_KEYS.has(k)),
  );
  if (!mergeable) return;
  const properties: Record<string, unknown> = {};
  const required = new Set<string>();
  for (const b of branches as JsonSchema[]) {
    Object.assign(properties, b.properties);
    for (const r of (b.required as string[] | undefined) ?? []) required.add(r);
    if (out.description === undefined && typeof b.description === 'string') out.description = b.description;
    if (out.title === undefined && typeof b.title === 'string') out.title = b.title;
  }
  Object.assign(properties, out.properties);
  for (const r of (out.required as string[] | undefined) ?? []) required.add(r);
  delete out.allOf;
  out.type = 'object';
  out.properties = properties;
  if (required.size > 0) out.required = [...required];
}

const JSON_TYPE_OF = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : typeof value === 'number'
        ? Number.isInteger(value)
          ? 'integer'
          : 'number'
        : typeof value;

/** The type a schema implies without saying it, when only one reading is possible. */
function inferType(out: JsonSchema): string | string[] | undefined {
  if (
    out.allOf !== undefined ||
    out.anyOf !== undefined ||
    out.oneOf !== undefined ||
    out.not !== undefined
  ) {
    return undefined;
  }
  const values = Array.isArray(out.enum) ? out.enum : 'const' in out ? [out.const] : undefined;
  if (values !== undefined) {
    let types = [...new Set(values.map(JSON_TYPE_OF))];
    if (types.includes('number')) types = types.filter((t) => t !== 'integer');
    if (
      types.some((t) => !['string', 'number', 'integer', 'boolean', 'null', 'array', 'object'].includes(t))
    ) {
      return undefined;
    }
    return types.length === 1 ? types[0] : types;
  }
  if (
    out.properties !== undefined ||
    out.additionalProperties !== undefined ||
    out.patternProperties !== undefined ||
    out.required !== undefined
  ) {
    return 'object';
  }
  if (out.items !== undefined || out.prefixItems !== undefined) return 'array';
  if (out.minLength !== undefined || out.maxLength !== undefined || out.pattern !== undefined)
    return 'string';
  if (out.minimum !== undefined || out.maximum !== undefined || out.multipleOf !== undefined) return 'number';
  return undefined;
}

/** A schema met again inside itself: its type and what it is, not its body again. */
function cut(node: Record<string, unknown>, options: PortableOptions): JsonSchema {
  const out: JsonSchema = {};
  const type = node.type ?? (isObjectValue(node.properties) ? 'object' : undefined);
  if (typeof type === 'string' || Array.isArray(type)) out.type = type;
  if (options.dialect === '3.0' && node.nullable === true) nullable(out);
  const what =
    typeof node.description === 'string'
      ? node.description
      : typeof node.title === 'string'
        ? node.title
        : 'A value of the enclosing shape';
  out.description = `${what} (recursive: not expanded further)`;
  return out;
}

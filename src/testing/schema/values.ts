/**
 * Inputs generated from a tool's inputSchema, for the schema-driven live calls and the
 * invalid-input probes. Every candidate is checked against the schema with a real validator
 * before it is sent: a value the schema forbids (too long, outside a pattern) is dropped, so a
 * generated call is always a call the server must accept.
 */
import { isObject, type JsonObject } from '../../base/jsonrpc.ts';
import { alternatives, mergeSchemas } from './branches.ts';
import { propertiesOf, requiredOf, resolveRef } from './fields.ts';
import { compileSchema, validateValue } from './json-schema.ts';
import { patternSamples } from './pattern.ts';

/** Plain strings: ASCII, Chinese, Turkish, emoji, quotes, SQL and HTML injection. */
export const STRING_VALUES: readonly string[] = [
  'hello',
  '你好，世界',
  'Merhaba dünya: ığüşçö İĞÜŞÇÖ',
  '👋🌍🚀✨',
  "it's",
  'say "hi"',
  "'; DROP TABLE users; --",
  '<script>alert("x")</script>',
];

/** Well-formed values per string format (RFC 5322 addresses, RFC 3986 URIs, RFC 3339 dates). */
export const FORMAT_VALUES: Readonly<Record<string, readonly string[]>> = {
  email: ['user@example.com', 'first.last+tag@example.org', 'a_b@mail.example.co.uk'],
  uri: ['https://example.com/path?q=1', 'http://example.org/', 'ftp://files.example.net/file.txt'],
  'uri-reference': ['https://example.com/a', '/relative/path', '#fragment'],
  url: ['https://example.com/path?q=1', 'http://example.org/', 'https://example.net/a/b'],
  date: ['2024-01-15', '2000-02-29', '1999-12-31'],
  'date-time': ['2024-01-15T10:30:00Z', '2000-02-29T23:59:59+02:00', '1999-12-31T00:00:00.000Z'],
  time: ['10:30:00Z', '23:59:59+02:00', '00:00:00.5Z'],
  uuid: ['123e4567-e89b-12d3-a456-426614174000', '00000000-0000-4000-8000-000000000000'],
  ipv4: ['127.0.0.1', '192.0.2.10'],
  ipv6: ['::1', '2001:db8::1'],
  hostname: ['example.com', 'localhost'],
};

// Small by default: a count, a duration or a step number taken at 1e15 keeps a correct tool
// busy forever (a long-running tool then "fails" by timing out). Huge values only with --fuzz.
export const NUMBER_VALUES: readonly number[] = [0, 1, -1, 3.14];
export const INTEGER_VALUES: readonly number[] = [0, 1, -1, 42];
/** Added with `fuzz`: the extremes that find overflow and unbounded work. */
export const FUZZ_NUMBERS: readonly number[] = [1e15, -1e15, Number.MAX_SAFE_INTEGER];
export const FUZZ_STRINGS: readonly string[] = ['', 'x'.repeat(10_000), '\u0000\u001f\u202e'];

const MAX_DEPTH = 8;

/** The schema of one property, standing alone but keeping the root's definitions for `$ref`s. */
function standalone(prop: JsonObject, root: JsonObject): JsonObject {
  const out: JsonObject = { ...resolveRef(prop, root) };
  if (root.$schema !== undefined && out.$schema === undefined) out.$schema = root.$schema;
  if (isObject(root.$defs)) out.$defs = { ...root.$defs, ...(isObject(out.$defs) ? out.$defs : {}) };
  if (isObject(root.definitions))
    out.definitions = { ...root.definitions, ...(isObject(out.definitions) ? out.definitions : {}) };
  return out;
}

export function fieldAccepts(prop: JsonObject, root: JsonObject, value: unknown): boolean {
  return validateValue(standalone(prop, root), value).length === 0;
}

function numberCandidates(s: JsonObject, integer: boolean, fuzz: boolean): unknown[] {
  const min = typeof s.minimum === 'number' ? s.minimum : undefined;
  const max = typeof s.maximum === 'number' ? s.maximum : undefined;
  const xmin = typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum : undefined;
  const xmax = typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum : undefined;
  const step = integer ? 1 : 0.5;
  const lo = min ?? (xmin !== undefined ? xmin + step : undefined);
  const hi = max ?? (xmax !== undefined ? xmax - step : undefined);
  if (lo === undefined && hi === undefined)
    return [...(integer ? INTEGER_VALUES : NUMBER_VALUES), ...(fuzz ? FUZZ_NUMBERS : [])];
  const out: number[] = [];
  if (lo !== undefined) out.push(integer ? Math.ceil(lo) : lo);
  if (hi !== undefined) out.push(integer ? Math.floor(hi) : hi);
  if (lo !== undefined && hi !== undefined) {
    const mid = lo + (hi - lo) / 2;
    out.push(integer ? Math.floor(mid) : mid);
  }
  out.push(0);
  if (lo === undefined) out.push(-1, (hi as number) - 1);
  if (hi === undefined) out.push(1, (lo as number) + 1);
  return out;
}

/** Strings at the length bounds (`minLength`, `maxLength`), the long one only when it is modest or fuzzing. */
function lengthValues(s: JsonObject, fuzz: boolean): string[] {
  const out: string[] = [];
  if (typeof s.minLength === 'number' && s.minLength > 0) out.push('x'.repeat(s.minLength));
  if (typeof s.maxLength === 'number' && (s.maxLength <= 1_000 || fuzz)) out.push('x'.repeat(s.maxLength));
  return out;
}

function unique(values: unknown[]): unknown[] {
  const seen = new Set<string>();
  return values.filter((v) => {
    const k = JSON.stringify(v) ?? 'undefined';
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Candidate values for one property, simplest first (not yet checked against the schema). */
export function candidates(prop: JsonObject, root: JsonObject, depth = 0, fuzz = false): unknown[] {
  const s = resolveRef(prop, root);
  if ('const' in s) return [s.const];
  if (Array.isArray(s.enum)) return [...s.enum];
  const branches = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined;
  if (branches && depth < MAX_DEPTH) {
    // Every branch in turn, non-null first: the validator keeps what the union (oneOf: exactly one) accepts.
    const ordered = [
      ...branches.filter((b) => isObject(b) && b.type !== 'null'),
      ...branches.filter((b) => isObject(b) && b.type === 'null'),
    ] as JsonObject[];
    const own = withoutUnion(s);
    return unique(ordered.flatMap((b) => candidates(mergeSchemas(own, b), root, depth + 1, fuzz)));
  }
  if ((Array.isArray(s.allOf) || isObject(s.if)) && depth < MAX_DEPTH && s.type !== 'object')
    return unique(alternatives(s, root).flatMap((a) => candidates(a, root, depth + 1, fuzz)));
  const types = Array.isArray(s.type) ? s.type : [s.type];
  const type = types.find((t) => t !== 'null') ?? types[0];
  switch (type) {
    case 'string': {
      const format = typeof s.format === 'string' ? s.format : undefined;
      const table = format ? (FORMAT_VALUES[format] ?? STRING_VALUES) : STRING_VALUES;
      const pattern = typeof s.pattern === 'string' ? patternSamples(s.pattern) : [];
      return unique([...pattern, ...table, ...lengthValues(s, fuzz), ...(fuzz ? FUZZ_STRINGS : [])]);
    }
    case 'integer':
      return numberCandidates(s, true, fuzz);
    case 'number':
      return numberCandidates(s, false, fuzz);
    case 'boolean':
      return [true, false];
    case 'null':
      return [null];
    case 'array': {
      const items = isObject(s.items) ? s.items : {};
      const item = depth < MAX_DEPTH ? basicValue(items, root, depth + 1) : undefined;
      const minItems = typeof s.minItems === 'number' ? s.minItems : 0;
      const maxItems = typeof s.maxItems === 'number' ? s.maxItems : undefined;
      if (item === undefined) return minItems === 0 ? [[]] : [];
      const of = (n: number) => Array.from({ length: n }, () => item.value);
      const out: unknown[] = [of(minItems)];
      if (minItems === 0) out.push(of(1));
      // The upper bound, when it is small enough to send.
      if (maxItems !== undefined && maxItems > Math.max(minItems, 1) && maxItems <= 100)
        out.push(of(maxItems));
      return out;
    }
    case 'object': {
      const obj = depth < MAX_DEPTH ? basicObject(s, root, depth) : undefined;
      return [obj ?? {}];
    }
    default:
      // No type: anything goes; start with a plain string.
      return ['hello', 0, true];
  }
}

function withoutUnion(s: JsonObject): JsonObject {
  const { anyOf: _a, oneOf: _b, ...rest } = s;
  return rest;
}

/**
 * The simplest object the schema accepts: every required property at its simplest value, for the
 * first alternative (allOf merged, a union or conditional branch picked) that the schema accepts.
 */
export function basicObject(schema: JsonObject, root: JsonObject, depth = 0): JsonObject | undefined {
  let first: JsonObject | undefined;
  for (const alt of alternatives(schema, root)) {
    const obj = requiredValues(alt, root, depth);
    if (obj === undefined) continue;
    first ??= obj;
    if (fieldAccepts(schema, root, obj)) return obj;
  }
  return first;
}

/** Every required property of `schema` at its simplest value; undefined when one has no value. */
function requiredValues(schema: JsonObject, root: JsonObject, depth: number): JsonObject | undefined {
  const obj: JsonObject = {};
  for (const name of requiredOf(schema)) {
    const v = basicValue(propertiesOf(schema)[name] ?? {}, root, depth + 1);
    if (v === undefined) return undefined;
    obj[name] = v.value;
  }
  return obj;
}

/** The simplest value the property's schema accepts, or undefined when none of ours does. */
export function basicValue(prop: JsonObject, root: JsonObject, depth = 0): { value: unknown } | undefined {
  for (const v of candidates(prop, root, depth)) if (fieldAccepts(prop, root, v)) return { value: v };
  return undefined;
}

export interface GeneratedCase {
  /** What varies, e.g. `basic`, `name="👋🌍🚀✨"` or `note.text="it's"`. */
  label: string;
  args: JsonObject;
}

export type Generated = { ok: true; cases: GeneratedCase[] } | { ok: false; problem: string };

function short(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}

type Segment = string | number;

interface FieldPath {
  path: Segment[];
  prop: JsonObject;
}

/** Nested objects and array items are varied down to this depth. */
const MAX_VARIED_DEPTH = 3;

/** Every property to vary, depth-first: a field, then the fields inside it (objects, array items). */
function fieldPaths(schema: JsonObject, root: JsonObject, prefix: Segment[] = []): FieldPath[] {
  const out: FieldPath[] = [];
  for (const [name, prop] of Object.entries(propertiesOf(schema))) {
    const path = [...prefix, name];
    out.push({ path, prop });
    if (path.length >= MAX_VARIED_DEPTH) continue;
    const s = resolveRef(prop, root);
    if (isObject(s.properties)) out.push(...fieldPaths(alternatives(s, root)[0] ?? s, root, path));
    else if (isObject(s.items)) {
      const items = resolveRef(s.items, root);
      if (isObject(items.properties)) out.push(...fieldPaths(items, root, [...path, 0]));
    }
  }
  return out;
}

function pathLabel(path: readonly Segment[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/** `base` with `value` at `path`; missing containers on the way get their simplest valid value. */
function setAt(
  base: JsonObject,
  path: readonly Segment[],
  value: unknown,
  schema: JsonObject,
  root: JsonObject,
) {
  const out = structuredClone(base);
  let container: JsonObject | unknown[] = out;
  let node: JsonObject = schema;
  for (let i = 0; i < path.length - 1; i++) {
    const seg = path[i] as Segment;
    const child = resolveRef(
      typeof seg === 'number' ? (isObject(node.items) ? node.items : {}) : (propertiesOf(node)[seg] ?? {}),
      root,
    );
    const holder = container as Record<Segment, unknown>;
    if (typeof holder[seg] !== 'object' || holder[seg] === null) {
      holder[seg] = typeof path[i + 1] === 'number' ? [] : (basicObject(child, root) ?? {});
    }
    const next = holder[seg] as JsonObject | unknown[];
    if (Array.isArray(next) && next.length === 0 && typeof path[i + 1] === 'number') {
      const items = isObject(child.items) ? child.items : {};
      next.push(basicObject(resolveRef(items, root), root) ?? {});
    }
    container = next;
    node = child;
  }
  (container as Record<Segment, unknown>)[path[path.length - 1] as Segment] = value;
  return out;
}

/**
 * The schema-driven calls: case 0 is every required field at its simplest valid value (for the
 * first branch of a union or conditional that validates); then one field at a time, nested
 * fields and array items included, takes each value of its table, the others held.
 */
export function generateInputs(
  inputSchema: unknown,
  options: { max?: number; fuzz?: boolean } = {},
): Generated {
  if (!isObject(inputSchema)) return { ok: false, problem: 'the inputSchema is not an object' };
  const compiled = compileSchema(inputSchema);
  if (!compiled.ok)
    return { ok: false, problem: `the inputSchema is not a valid JSON Schema: ${compiled.error}` };
  let basic: JsonObject | undefined;
  let shape: JsonObject = inputSchema;
  let problem: string | undefined;
  for (const alt of alternatives(inputSchema, inputSchema)) {
    const props = propertiesOf(alt);
    const missing = requiredOf(alt).find((name) => basicValue(props[name] ?? {}, inputSchema) === undefined);
    if (missing !== undefined) {
      problem ??= `no generated value satisfies the schema of "${missing}"`;
      continue;
    }
    const candidate = requiredValues(alt, inputSchema, -1) as JsonObject;
    const issues = compiled.validate(candidate);
    if (issues.length === 0) {
      basic = candidate;
      shape = alt;
      break;
    }
    problem ??= `the simplest input ${short(candidate)} is invalid: ${issues.join('; ')}`;
  }
  if (basic === undefined) return { ok: false, problem: problem ?? 'no input satisfies the schema' };
  const max = options.max ?? Number.POSITIVE_INFINITY;
  const cases: GeneratedCase[] = [{ label: 'basic', args: basic }];
  const seen = new Set([JSON.stringify(basic)]);
  for (const { path, prop } of fieldPaths(shape, inputSchema)) {
    for (const value of candidates(prop, inputSchema, path.length - 1, options.fuzz === true)) {
      if (cases.length >= max) return { ok: true, cases };
      const args = setAt(basic, path, value, shape, inputSchema);
      const text = JSON.stringify(args);
      if (seen.has(text) || compiled.validate(args).length > 0) continue;
      seen.add(text);
      cases.push({ label: `${pathLabel(path)}=${short(value)}`, args });
    }
  }
  return { ok: true, cases };
}

/**
 * A value of the wrong type for one field, from a table per declared type, else the first of
 * a few values the field's schema rejects; undefined when the field accepts anything.
 */
export function wrongValue(inputSchema: JsonObject, field: string): { value: unknown } | undefined {
  const prop = resolveRef(propertiesOf(inputSchema)[field] ?? {}, inputSchema);
  const types = Array.isArray(prop.type) ? prop.type : [prop.type];
  const preferred: unknown[] = Array.isArray(prop.enum)
    ? ['__invalid__']
    : types.includes('string')
      ? [42]
      : types.includes('integer') || types.includes('number')
        ? ['not-a-number']
        : types.includes('boolean')
          ? ['not-a-boolean']
          : types.includes('array')
            ? ['not-an-array']
            : types.includes('object')
              ? ['not-an-object']
              : [];
  for (const v of [...preferred, 42, 'not-a-valid-value', true, [], {}, null]) {
    if (!fieldAccepts(prop, inputSchema, v)) return { value: v };
  }
  return undefined;
}

/** A required field "has a type" when its schema constrains values: a type, enum, const or format. */
export function isTyped(prop: JsonObject, root: JsonObject): boolean {
  const s = resolveRef(prop, root);
  return (
    s.type !== undefined ||
    Array.isArray(s.enum) ||
    'const' in s ||
    Array.isArray(s.anyOf) ||
    Array.isArray(s.oneOf)
  );
}

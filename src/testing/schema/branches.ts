/**
 * Combinators, flattened for value generation: an object schema with `allOf`, `anyOf`/`oneOf`
 * or `if`/`then`/`else` becomes a short list of plain alternatives (properties and required
 * merged), one per branch picked. The generator builds a value from each in turn and keeps the
 * first that the real schema accepts, so a conditional or a union no longer stops generation.
 * The merge is deliberately shallow: it only has to propose values; the validator judges them.
 */
import { isObject, type JsonObject } from '../../base/jsonrpc.ts';
import { resolveRef } from './fields.ts';

/** Cap on alternatives per schema: branches multiply (two unions of 4 are 16). */
const MAX_ALTERNATIVES = 16;
const MAX_DEPTH = 6;

/** `b` merged into `a`: properties side by side (the later one's keywords win per property), required united. */
export function mergeSchemas(a: JsonObject, b: JsonObject): JsonObject {
  const out: JsonObject = { ...a, ...b };
  const pa = isObject(a.properties) ? a.properties : {};
  const pb = isObject(b.properties) ? b.properties : {};
  if (isObject(a.properties) || isObject(b.properties)) {
    const props: JsonObject = { ...pa };
    for (const [k, v] of Object.entries(pb))
      props[k] = isObject(props[k]) && isObject(v) ? { ...(props[k] as JsonObject), ...v } : v;
    out.properties = props;
  }
  const ra = Array.isArray(a.required) ? a.required : [];
  const rb = Array.isArray(b.required) ? b.required : [];
  if (ra.length > 0 || rb.length > 0) out.required = [...new Set([...ra, ...rb])];
  if (a.type !== undefined && b.type === undefined) out.type = a.type;
  return out;
}

function withoutCombinators(s: JsonObject): JsonObject {
  const { allOf: _a, anyOf: _b, oneOf: _c, if: _d, then: _e, else: _f, ...rest } = s;
  return rest;
}

/**
 * The plain alternatives of a schema, most specific first: `allOf` members merged in, one
 * alternative per `anyOf`/`oneOf` branch, and for `if`/`then`/`else` the `if` with its `then`,
 * then the `else`. A schema without combinators is its own single alternative.
 */
export function alternatives(schema: JsonObject, root: JsonObject, depth = 0): JsonObject[] {
  const s = resolveRef(schema, root);
  if (depth >= MAX_DEPTH) return [withoutCombinators(s)];
  let alts: JsonObject[] = [withoutCombinators(s)];
  const combine = (options: JsonObject[]) => {
    const next: JsonObject[] = [];
    for (const a of alts) for (const o of options) next.push(mergeSchemas(a, o));
    alts = next.slice(0, MAX_ALTERNATIVES);
  };
  if (Array.isArray(s.allOf))
    for (const member of s.allOf) if (isObject(member)) combine(alternatives(member, root, depth + 1));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = s[key];
    if (!Array.isArray(branches)) continue;
    const options = branches.filter(isObject).flatMap((b) => alternatives(b, root, depth + 1));
    if (options.length > 0) combine(options);
  }
  if (isObject(s.if)) {
    const conditional = [
      ...(isObject(s.then) ? alternatives(s.then, root, depth + 1) : [{}]).map((t) =>
        mergeSchemas(withoutCombinators(s.if as JsonObject), t),
      ),
      ...(isObject(s.else) ? alternatives(s.else, root, depth + 1) : [{}]),
    ];
    combine(conditional);
  }
  return alts;
}

/** Whether the schema has anything for `alternatives` to pick from. */
export function hasCombinators(schema: JsonObject): boolean {
  return (
    Array.isArray(schema.allOf) ||
    Array.isArray(schema.anyOf) ||
    Array.isArray(schema.oneOf) ||
    isObject(schema.if)
  );
}

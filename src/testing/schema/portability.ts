/**
 * Tool-schema portability: constructs that are valid JSON Schema but that major MCP clients drop
 * or reject, found in a tool's inputSchema and outputSchema, each with the clients it affects. A
 * schema can pass every validator and still lose a tool in a client that translates schemas into
 * a narrower dialect (Gemini's function declarations, OpenAI's strict mode) or that ignores what it
 * does not understand (Cursor drops anyOf/oneOf). These are house rules: portability, not
 * conformance.
 */
import { isObject, type JsonObject } from '../../base/jsonrpc.ts';
import {
  DEFINITIONS_KEYWORDS,
  PORTABLE_FORMATS,
  SUBSCHEMA_KEYWORDS,
  SUBSCHEMA_LIST_KEYWORDS,
  SUBSCHEMA_MAP_KEYWORDS,
} from '../../base/schema-keywords.ts';
import { listSome } from '../client/answer.ts';

export type PortabilityRule =
  | 'type-union'
  | 'union'
  | 'ref'
  | 'dollar-schema'
  | 'untyped-property'
  | 'format'
  | 'boolean-schema'
  | 'required-default';

/** The clients a construct affects, as reported (docs/testing.md, "Schema portability"). */
export const PORTABILITY_CLIENTS: Readonly<Record<PortabilityRule, string>> = {
  'type-union':
    'Gemini (one type per schema, nullable instead of a null branch); MCP Inspector --strict flags it',
  union: 'Cursor (drops anyOf/oneOf)',
  ref: 'Gemini (no $ref or $defs in function declarations), clients that do not resolve references',
  'dollar-schema':
    'no client known to refuse it (the spec lets a schema carry $schema; the Gemini API once rejected the key, and clients that pass schemas to it strip it: pydantic-ai#1250)',
  'untyped-property': 'Gemini (rejects a property without type)',
  format: 'OpenAI strict mode (date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid only)',
  'boolean-schema':
    'Claude Code (refuses a bare true/false property schema); MCP Inspector --strict fails it',
  'required-default':
    'every client (a contradictory schema: required says the field must be sent, default says it may be left out; zod output lists defaulted fields as required)',
};

/**
 * Rules that only inform: the construct is allowed by the spec and no client is known to refuse
 * it, so it is a note, never a warning (`$schema`: every SDK v1 server publishes one).
 */
export const INFORMATIONAL_RULES: ReadonlySet<PortabilityRule> = new Set(['dollar-schema']);

/** The string formats OpenAI's strict structured outputs accept; every other format is refused there. */
const STRICT_FORMATS: ReadonlySet<string> = new Set(PORTABLE_FORMATS);

/** The format vocabulary of JSON Schema 2020-12: anything else is ignored by every validator. */
const JSON_SCHEMA_FORMATS: ReadonlySet<string> = new Set([
  ...STRICT_FORMATS,
  'idn-email',
  'idn-hostname',
  'uri',
  'uri-reference',
  'iri',
  'iri-reference',
  'uri-template',
  'json-pointer',
  'relative-json-pointer',
  'regex',
]);

export interface PortabilityFinding {
  rule: PortabilityRule;
  /** `inputSchema` or `outputSchema`. */
  schema: string;
  /** Where in the schema, e.g. `properties.when` or `(root)`. */
  path: string;
  /** What is there, e.g. `type ["string","null"]`. */
  detail: string;
}

const MAX_DEPTH = 32;
/** Keywords whose value is one subschema, walked (the `properties`-like maps are walked below). */
const ONE_SCHEMA = SUBSCHEMA_KEYWORDS;
const SCHEMA_LISTS = SUBSCHEMA_LIST_KEYWORDS;
/** The definitions are walked too: what a `$ref` reaches is part of the schema a client reads. */
const SCHEMA_MAPS = [...DEFINITIONS_KEYWORDS, ...SUBSCHEMA_MAP_KEYWORDS] as const;

/**
 * Every finding in one schema. A "property" is a schema under `properties` or an array's `items`:
 * the places a client turns into an argument field, so the place where a missing type or a union
 * loses it.
 */
export function portabilityFindings(schema: unknown, name = 'inputSchema'): PortabilityFinding[] {
  const out: PortabilityFinding[] = [];
  if (!isObject(schema)) return out;
  const add = (rule: PortabilityRule, path: string, detail: string) =>
    out.push({ rule, schema: name, path: path === '' ? '(root)' : path, detail });

  const visit = (node: unknown, path: string, isProperty: boolean, depth: number) => {
    if (depth > MAX_DEPTH) return;
    if (typeof node === 'boolean') {
      if (isProperty) add('boolean-schema', path, `the schema is the bare ${node}`);
      return;
    }
    if (!isObject(node)) return;
    if (node.$schema !== undefined) add('dollar-schema', path, `$schema ${JSON.stringify(node.$schema)}`);
    if (typeof node.$ref === 'string') add('ref', path, `$ref ${JSON.stringify(node.$ref)}`);
    for (const key of DEFINITIONS_KEYWORDS)
      if (isObject(node[key])) add('ref', path, `${key} ${Object.keys(node[key]).join(', ')}`);
    if (Array.isArray(node.type)) add('type-union', path, `type ${JSON.stringify(node.type)}`);
    const unions = (['anyOf', 'oneOf'] as const).filter((k) => Array.isArray(node[k]));
    if (path === '' && Array.isArray(node.allOf)) unions.push('allOf' as never);
    if ((isProperty || path === '') && unions.length > 0) add('union', path, unions.join(', '));
    if (
      isProperty &&
      node.type === undefined &&
      node.$ref === undefined &&
      unions.length === 0 &&
      !Array.isArray(node.allOf)
    ) {
      add(
        'untyped-property',
        path,
        Array.isArray(node.enum) ? 'enum without type' : 'const' in node ? 'const without type' : 'no type',
      );
    }
    if (typeof node.format === 'string' && !STRICT_FORMATS.has(node.format)) {
      add(
        'format',
        path,
        JSON_SCHEMA_FORMATS.has(node.format)
          ? `format ${JSON.stringify(node.format)}`
          : `format ${JSON.stringify(node.format)} (not a JSON Schema format: validators ignore it)`,
      );
    }
    const at = (key: string) => (path === '' ? key : `${path}.${key}`);
    if (isObject(node.properties) && Array.isArray(node.required)) {
      for (const r of node.required) {
        const prop = typeof r === 'string' ? node.properties[r] : undefined;
        if (isObject(prop) && 'default' in prop)
          add(
            'required-default',
            at(`properties.${r}`),
            `required and default ${JSON.stringify(prop.default)}`,
          );
      }
    }
    if (isObject(node.properties))
      for (const [k, v] of Object.entries(node.properties)) visit(v, at(`properties.${k}`), true, depth + 1);
    for (const key of ONE_SCHEMA) {
      if (node[key] === undefined) continue;
      // `additionalProperties: false` and `items: false` are constraints, not property schemas.
      visit(node[key], at(key), key === 'items' && node[key] !== false, depth + 1);
    }
    for (const key of SCHEMA_LISTS) {
      const list = node[key];
      if (!Array.isArray(list)) continue;
      list.forEach((b, i) => {
        visit(b, at(`${key}[${i}]`), false, depth + 1);
      });
    }
    for (const key of SCHEMA_MAPS) {
      const map = node[key];
      if (isObject(map))
        for (const [k, v] of Object.entries(map)) visit(v, at(`${key}.${k}`), false, depth + 1);
    }
  };
  visit(schema, '', false, 0);
  return out;
}

/** The findings of a listed tool, in its inputSchema and its outputSchema. */
export function toolPortability(tool: JsonObject): PortabilityFinding[] {
  return [
    ...portabilityFindings(tool.inputSchema, 'inputSchema'),
    ...portabilityFindings(tool.outputSchema, 'outputSchema'),
  ];
}

/** `inputSchema properties.x: type ["string","null"]`. */
export function describeFinding(f: PortabilityFinding): string {
  return `${f.schema} ${f.path}: ${f.detail}`;
}

/**
 * One rule's findings over the tools, as both commands word them (check's `portability.*`, and
 * test's contradictory-schema probe): each tool with the places it breaks the rule, then the
 * clients affected.
 */
export function portabilityFinding(
  rule: PortabilityRule,
  byTool: readonly (readonly [label: string, findings: readonly PortabilityFinding[]])[],
): string {
  const items = byTool.map(([label, found]) => `${label} ${found.map(describeFinding).join(', ')}`);
  return `${listSome(items)}\naffects: ${PORTABILITY_CLIENTS[rule]}`;
}

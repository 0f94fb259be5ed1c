/**
 * The JSON Schema keywords the toolkit walks, in one place: the portability check
 * (src/testing/schema/portability.ts) reads them from here, and plugins (the OpenAPI plugin's
 * schema conversion) from the public entry's `schemaKeywords`.
 */

/** Keywords whose value is one subschema (or a boolean schema), JSON Schema 2020-12. */
export const SUBSCHEMA_KEYWORDS = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
] as const;

/** Keywords whose value is a list of subschemas, in the specification's order. */
export const SUBSCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;

/** Keywords whose value maps names or patterns to subschemas (`properties` aside: a property is walked as one). */
export const SUBSCHEMA_MAP_KEYWORDS = ['patternProperties', 'dependentSchemas'] as const;

/** Where a schema keeps the definitions its `$ref`s name: 2020-12's `$defs`, the older drafts' `definitions`. */
export const DEFINITIONS_KEYWORDS = ['$defs', 'definitions'] as const;

/**
 * The string formats every major client accepts in a tool's schema: OpenAI's strict structured
 * outputs, the narrowest, take these and refuse every other format.
 */
export const PORTABLE_FORMATS: readonly string[] = [
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
];

/**
 * The lists above as one public object (`schemaKeywords` of `@mcp-toolkit/server`), for a
 * plugin that converts schemas from elsewhere (an OpenAPI document, an upstream server) into
 * tool schemas and must walk every subschema.
 *
 * @example
 * for (const key of schemaKeywords.subschema) if (isObject(node[key])) walk(node[key]);
 */
export const schemaKeywords = Object.freeze({
  subschema: SUBSCHEMA_KEYWORDS,
  subschemaList: SUBSCHEMA_LIST_KEYWORDS,
  subschemaMap: SUBSCHEMA_MAP_KEYWORDS,
  definitions: DEFINITIONS_KEYWORDS,
  portableFormats: PORTABLE_FORMATS,
});

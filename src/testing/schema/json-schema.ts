/**
 * Real JSON Schema validation for the test kit (examples, generated inputs, structuredContent
 * against outputSchema). Tool schemas come from any server: draft-07 (the official SDK v1 emits
 * it) or 2020-12 (the MCP default since 2025-11-25, SEP-1613), so the dialect is read from
 * `$schema`. Formats are asserted (ajv-formats): email, uri, date, date-time, time, ...
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; its default export arrives wrapped depending on the loader.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv | Ajv2019 | Ajv2020,
) => void;

export type Schema = Record<string, unknown>;

export type Compiled = { ok: true; validate(value: unknown): string[] } | { ok: false; error: string };

type Dialect = 'draft-07' | '2019-09' | '2020-12';

const engines = new Map<Dialect, Ajv | Ajv2019 | Ajv2020>();
const cache = new Map<string, Compiled>();
const CACHE_MAX = 500;

function engine(dialect: Dialect): Ajv | Ajv2019 | Ajv2020 {
  let ajv = engines.get(dialect);
  if (!ajv) {
    // addUsedSchema: false, so two tools publishing the same $id never collide.
    const options = { strict: false, allErrors: true, validateFormats: true, addUsedSchema: false };
    ajv =
      dialect === 'draft-07'
        ? new Ajv(options)
        : dialect === '2019-09'
          ? new Ajv2019(options)
          : new Ajv2020(options);
    addFormats(ajv);
    engines.set(dialect, ajv);
  }
  return ajv;
}

/** The dialect a schema declares; no `$schema` means 2020-12 (MCP 2025-11-25). */
export function dialectOf(schema: Schema): Dialect {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (/draft-0[4-7]/.test(declared)) return 'draft-07';
  if (declared.includes('2019-09')) return '2019-09';
  return '2020-12';
}

function issues(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const where = e.instancePath === '' ? '(root)' : e.instancePath.slice(1).replaceAll('/', '.');
    const params = e.params as {
      additionalProperty?: string;
      allowedValues?: unknown;
      missingProperty?: string;
    };
    const extra =
      e.keyword === 'additionalProperties'
        ? ` '${String(params.additionalProperty)}'`
        : e.keyword === 'enum'
          ? `: ${JSON.stringify(params.allowedValues)}`
          : '';
    return `${where} ${e.message ?? 'is invalid'}${extra}`;
  });
}

/**
 * Compiles a schema once (cached by its JSON text). An invalid schema is reported, not
 * thrown: a server's broken schema is a finding.
 */
export function compileSchema(schema: unknown): Compiled {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return { ok: false, error: 'the schema is not an object' };
  }
  const text = JSON.stringify(schema);
  const hit = cache.get(text);
  if (hit) return hit;
  const s = schema as Schema;
  const dialect = dialectOf(s);
  // draft-04/06 and unknown meta-schemas validate as draft-07 / 2020-12 without the $schema pointer.
  const known =
    s.$schema === undefined ||
    /json-schema\.org\/(draft-07|draft\/2019-09|draft\/2020-12)\/schema/.test(String(s.$schema));
  const body = known ? s : { ...s, $schema: undefined };
  let compiled: Compiled;
  try {
    const fn: ValidateFunction = engine(dialect).compile(JSON.parse(JSON.stringify(body)) as Schema);
    compiled = { ok: true, validate: (value) => (fn(value) ? [] : issues(fn.errors)) };
  } catch (err) {
    compiled = { ok: false, error: (err as Error).message };
  }
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(text, compiled);
  return compiled;
}

/** Violations of `value` against `schema`; a schema that does not compile is one violation. */
export function validateValue(schema: unknown, value: unknown): string[] {
  const compiled = compileSchema(schema);
  if (!compiled.ok) return [`the schema itself is invalid: ${compiled.error}`];
  return compiled.validate(value);
}

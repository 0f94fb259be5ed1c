/**
 * Schema handling, done once per definition at registration: zod schemas become JSON Schema
 * (draft 2020-12, flat, without `$schema`), raw JSON Schemas are published verbatim and
 * compiled with Ajv. Both end up behind one `validate(value)` so the call path never cares.
 * A raw JSON Schema may come from outside the code (a proxied upstream, an OpenAPI document):
 * its patterns are matched in linear time or under a budget (linear-pattern.ts).
 */

import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { z } from 'zod';
import { linearRegExp, PatternBudgetExceeded } from './linear-pattern.ts';
import type { JsonSchema } from './types.ts';

// ajv-formats is CommonJS; its default export arrives wrapped depending on the loader.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv | Ajv2020,
) => void;

export type Validation<T> = { ok: true; value: T } | { ok: false; issues: string[] };

export interface CompiledSchema<T> {
  /** The JSON Schema published to clients. */
  readonly json: JsonSchema;
  validate(value: unknown): Validation<T>;
}

const AJV_OPTIONS = {
  strict: false,
  allErrors: true,
  validateFormats: true,
  code: { regExp: linearRegExp },
} as const;

let ajv2020: Ajv2020 | undefined;
let ajv07: Ajv | undefined;

function ajvFor(schema: JsonSchema): Ajv | Ajv2020 {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (dialect.includes('draft-07') || dialect.includes('draft-06') || dialect.includes('draft-04')) {
    if (!ajv07) {
      ajv07 = new Ajv({ ...AJV_OPTIONS });
      addFormats(ajv07);
    }
    return ajv07;
  }
  if (!ajv2020) {
    ajv2020 = new Ajv2020({ ...AJV_OPTIONS });
    addFormats(ajv2020);
  }
  return ajv2020;
}

function ajvIssues(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const where = e.instancePath === '' ? '(root)' : e.instancePath.slice(1).replaceAll('/', '.');
    const extra =
      e.keyword === 'additionalProperties'
        ? ` '${String((e.params as { additionalProperty?: string }).additionalProperty)}'`
        : e.keyword === 'enum'
          ? `: ${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)}`
          : '';
    return `${where}: ${e.message ?? 'is invalid'}${extra}`;
  });
}

function zodIssues(error: z.ZodError): string[] {
  return error.issues.map((i) => `${i.path.length === 0 ? '(root)' : i.path.join('.')}: ${i.message}`);
}

function isZodSchema(value: unknown): value is z.ZodType {
  return value instanceof z.ZodType;
}

/** Compiles a raw JSON Schema with the validator matching its `$schema` dialect (2020-12 by default). */
export function compileJsonSchema<T>(schema: JsonSchema): CompiledSchema<T> {
  const fn: ValidateFunction = ajvFor(schema).compile(schema);
  return {
    json: schema,
    validate(value) {
      try {
        return fn(value) ? { ok: true, value: value as T } : { ok: false, issues: ajvIssues(fn.errors) };
      } catch (err) {
        // A pattern on the budgeted engine ran out of time: this value fails, nothing else.
        if (err instanceof PatternBudgetExceeded) return { ok: false, issues: [err.message] };
        throw err;
      }
    },
  };
}

/** Converts a zod schema once; `io` picks the input or output view (defaults, transforms). */
function compileZod<T>(schema: z.ZodType<T>, io: 'input' | 'output'): CompiledSchema<T> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
  }) as JsonSchema;
  // The parse runs zod's compiled form (`z.compile`), made on the first call: one generated
  // function where the runtime parser walks the schema's nodes, which is most of a valid
  // call's check (docs/performance.md). A value it rejects is parsed again by the runtime, so
  // issues read as before; a schema with callbacks of the author's (refine, transform) keeps
  // the runtime alone, where each callback runs once, as does one zod cannot compile.
  let parser: z.ZodType<T> | undefined;
  return {
    json,
    validate(value) {
      parser ??= compiledZod(schema);
      const r = parser.safeParse(value);
      return r.success ? { ok: true, value: r.data } : { ok: false, issues: zodIssues(r.error) };
    },
  };
}

/** `schema` compiled by zod when its compiled form runs no callback of the author's; else `schema`. */
function compiledZod<T>(schema: z.ZodType<T>): z.ZodType<T> {
  const compiled = z.compile(schema);
  // `definite`: the generated code calls no user callback (zod/v4/core/compile.js).
  const validator = (compiled._zod.bag as { validator?: { definite?: boolean } }).validator;
  return compiled !== schema && validator?.definite === true ? compiled : schema;
}

export function compileSchema<T>(
  schema: z.ZodType<T> | JsonSchema,
  io: 'input' | 'output',
): CompiledSchema<T> {
  return isZodSchema(schema) ? compileZod(schema, io) : compileJsonSchema<T>(schema);
}

/** The schema of a tool without arguments: an empty object that accepts `{}`. */
export const EMPTY_OBJECT_SCHEMA: JsonSchema = Object.freeze({ type: 'object', properties: {} });

/**
 * The validator of a tool without arguments, written out instead of compiled by Ajv: Ajv
 * generates its validators with `new Function`, which workerd (Cloudflare Workers) refuses, and
 * a server with such a tool must start there too. It answers as Ajv does for that schema.
 */
export function compileEmptyObject(): CompiledSchema<unknown> {
  return {
    json: EMPTY_OBJECT_SCHEMA,
    validate(value) {
      return typeof value === 'object' && value !== null && !Array.isArray(value)
        ? { ok: true, value }
        : { ok: false, issues: ['(root): must be object'] };
    },
  };
}

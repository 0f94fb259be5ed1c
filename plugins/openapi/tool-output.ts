/**
 * A tool's output schema from its operation's 2xx JSON response, when the document promises
 * one shape for every success: then each successful call returns it as `structuredContent`.
 * MCP requires an object there (2025-11-25 §Tools, Output Schema), so an array or a scalar
 * response is wrapped as `{ "result": ... }`.
 */
import type { JsonSchema } from '../../src/index.ts';
import type { Operation, ResponseObject } from './document.ts';
import { portableSchema } from './portable-schema.ts';

export interface OutputPlan {
  readonly schema: JsonSchema;
  /** The API's JSON is `structuredContent.result`, not `structuredContent` itself. */
  readonly wrapped: boolean;
}

const SUCCESS = /^2(?:\d\d|XX)$/i;
const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/i;

/** The JSON schema a response declares, if any. */
export function jsonSchemaOf(response: ResponseObject): unknown {
  const content = response.content ?? {};
  const type = Object.keys(content).find((t) => JSON_MEDIA.test(t));
  return type === undefined ? undefined : content[type]?.schema;
}

/**
 * The output plan, or undefined when a success may carry no JSON or one of several shapes
 * (a 204 beside a 200, two different 2xx bodies): then the tool answers with text only.
 *
 * @example
 * const out = planOutput(op, '3.1');
 */
export function planOutput(op: Operation, dialect: '3.0' | '3.1'): OutputPlan | undefined {
  const successes = Object.entries(op.operation.responses ?? {}).filter(([code]) => SUCCESS.test(code));
  if (successes.length === 0) return undefined;
  const schemas = new Set(successes.map(([, r]) => jsonSchemaOf(r)));
  if (schemas.size !== 1) return undefined;
  const [raw] = schemas;
  if (raw === undefined || raw === null || typeof raw !== 'object') return undefined;
  const schema = portableSchema(raw, { dialect, direction: 'output' });
  if (schema.type === 'object') return { schema, wrapped: false };
  const description = successes[0]?.[1].description;
  const result = { ...schema };
  if (result.description === undefined && description) result.description = description;
  return { schema: { type: 'object', properties: { result }, required: ['result'] }, wrapped: true };
}

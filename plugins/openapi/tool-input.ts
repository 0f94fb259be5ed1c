/**
 * A tool's input schema from its operation: one property per path, query, header and cookie
 * parameter, and the JSON (or form) request body, either merged into the top level when it is
 * an object whose property names clash with no parameter (what a model finds easiest), or as
 * one `body` argument otherwise. The plan records where each argument goes, for the request.
 */
import type { JsonSchema } from '../../src/index.ts';
import { isObjectValue, type Operation, type ParameterLocation, type ParameterObject } from './document.ts';
import { portableSchema } from './portable-schema.ts';

export interface ParamBinding {
  /** The tool argument. */
  readonly arg: string;
  readonly param: ParameterObject;
  /** Set when the parameter is declared with `content` (its value is sent serialized, as JSON). */
  readonly serialized: boolean;
}

export interface BodyBinding {
  readonly mediaType: string;
  readonly form: boolean;
  readonly required: boolean;
  /** `merged`: the body's properties are top-level arguments; `whole`: one argument holds it. */
  readonly mode: 'merged' | 'whole';
  /** The argument holding the whole body (`whole`); with `merged`, every argument that is not a parameter. */
  readonly arg: string | undefined;
}

export interface InputPlan {
  readonly schema: JsonSchema;
  readonly params: readonly ParamBinding[];
  readonly body: BodyBinding | undefined;
}

/** Why an operation cannot be offered as a tool. */
export interface Unsupported {
  readonly unsupported: string;
}

// OpenAPI 3 §Parameter Object: these header parameters "SHALL be ignored".
const IGNORED_HEADERS: ReadonlySet<string> = new Set(['accept', 'content-type', 'authorization']);

const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/i;
const FORM_MEDIA = /^application\/x-www-form-urlencoded\s*(?:;.*)?$/i;

/** Operation parameters override path-level ones of the same name and location. */
function parametersOf(op: Operation): ParameterObject[] {
  const byKey = new Map<string, ParameterObject>();
  for (const p of [...(op.pathItem.parameters ?? []), ...(op.operation.parameters ?? [])]) {
    byKey.set(`${p.in}:${p.name}`, p);
  }
  return [...byKey.values()];
}

function paramSchema(
  param: ParameterObject,
  dialect: '3.0' | '3.1',
): { schema: JsonSchema; serialized: boolean } {
  const content = param.content ? Object.values(param.content)[0] : undefined;
  const raw = param.schema ?? content?.schema;
  const schema = portableSchema(raw, { dialect, direction: 'input' });
  if (param.description !== undefined) schema.description = param.description;
  if (param.deprecated === true) schema.deprecated = true;
  return { schema, serialized: param.schema === undefined && content !== undefined };
}

function freeName(wanted: string, where: string, taken: ReadonlySet<string>): string {
  if (!taken.has(wanted)) return wanted;
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? `${wanted}_${where}` : `${wanted}_${where}${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * The input plan of one operation, or why it cannot be a tool (a required body of a media type
 * the plugin does not send).
 *
 * @example
 * const plan = planInput(op, '3.0', []);
 */
export function planInput(
  op: Operation,
  dialect: '3.0' | '3.1',
  keyPlacements: readonly { in: ParameterLocation; name: string }[],
): InputPlan | Unsupported {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const params: ParamBinding[] = [];
  const taken = new Set<string>();
  for (const param of parametersOf(op)) {
    if (param.in === 'header' && IGNORED_HEADERS.has(param.name.toLowerCase())) continue;
    // An API key the settings supply is not the model's to give.
    const lower = param.name.toLowerCase();
    if (keyPlacements.some((k) => k.in === param.in && k.name.toLowerCase() === lower)) continue;
    const arg = freeName(param.name, param.in, taken);
    taken.add(arg);
    const { schema, serialized } = paramSchema(param, dialect);
    properties[arg] = schema;
    if (param.required === true || param.in === 'path') required.push(arg);
    params.push({ arg, param, serialized });
  }

  let body: BodyBinding | undefined;
  let additionalProperties: unknown = false;
  const requestBody = op.operation.requestBody;
  if (requestBody?.content !== undefined) {
    const types = Object.keys(requestBody.content);
    const mediaType =
      types.find((t) => JSON_MEDIA.test(t)) ??
      types.find((t) => FORM_MEDIA.test(t)) ??
      types.find((t) => t === '*/*');
    const bodyRequired = requestBody.required === true;
    if (mediaType === undefined) {
      if (bodyRequired) {
        return {
          unsupported: `its request body is ${types.join(' or ')}, and the plugin sends JSON or form bodies only`,
        };
      }
    } else {
      const form = FORM_MEDIA.test(mediaType);
      const raw = requestBody.content[mediaType]?.schema;
      const schema = portableSchema(raw, { dialect, direction: 'input' });
      const bodyProps = isObjectValue(schema.properties)
        ? (schema.properties as Record<string, JsonSchema>)
        : {};
      const mergeable =
        schema.type === 'object' &&
        Object.keys(bodyProps).length > 0 &&
        schema.anyOf === undefined &&
        schema.oneOf === undefined &&
        schema.allOf === undefined &&
        Object.keys(bodyProps).every((name) => !taken.has(name));
      if (mergeable) {
        Object.assign(properties, bodyProps);
        for (const r of (schema.required as string[] | undefined) ?? []) if (r in bodyProps) required.push(r);
        // Extra arguments go to the body when the body's schema lets them.
        additionalProperties = schema.additionalProperties === false ? false : undefined;
        body = { mediaType, form, required: bodyRequired, mode: 'merged', arg: undefined };
      } else if (form && schema.type !== 'object') {
        return { unsupported: 'its form body is not an object' };
      } else {
        const arg = freeName('body', 'request', taken);
        if (requestBody.description !== undefined && schema.description === undefined) {
          schema.description = requestBody.description;
        }
        if (schema.description === undefined) schema.description = 'The request body.';
        properties[arg] = schema;
        if (bodyRequired) required.push(arg);
        body = { mediaType, form, required: bodyRequired, mode: 'whole', arg };
      }
    }
  }
  const schema: JsonSchema = { type: 'object', properties };
  if (required.length > 0) schema.required = [...new Set(required)];
  if (additionalProperties === false) schema.additionalProperties = false;
  return { schema, params, body };
}

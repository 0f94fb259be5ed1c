/**
 * Builds the HTTP request of one call from the tool's arguments, serializing parameters as
 * OpenAPI 3 §Style Values says: path `simple` (default), `label`, `matrix`; query `form`
 * (default, exploded: `?tag=a&tag=b`), `spaceDelimited`, `pipeDelimited`, `deepObject`;
 * header `simple`; cookie `form`. Every path value is percent-encoded, so an argument can
 * never add a path segment or a query of its own.
 */
import type { Credential } from './credentials.ts';
import type { Operation, ParameterObject } from './document.ts';
import type { InputPlan } from './tool-input.ts';

export interface BuiltRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
  readonly body: string | undefined;
}

type Value = unknown;

function scalar(value: Value): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function isPlainObject(value: Value): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/** `simple`, `label` and `matrix` path values, percent-encoded. */
function pathValue(param: ParameterObject, value: Value, serialized: boolean): string {
  const enc = (v: Value) => encodeURIComponent(scalar(v));
  const style = param.style ?? 'simple';
  const explode = param.explode ?? false;
  if (serialized) return encodeURIComponent(JSON.stringify(value));
  const name = encodeURIComponent(param.name);
  if (Array.isArray(value)) {
    const items = value.map(enc);
    if (style === 'label') return `.${items.join(explode ? '.' : ',')}`;
    if (style === 'matrix')
      return explode ? items.map((i) => `;${name}=${i}`).join('') : `;${name}=${items.join(',')}`;
    return items.join(',');
  }
  if (isPlainObject(value)) {
    const pairs = Object.entries(value);
    const joined = explode
      ? pairs.map(([k, v]) => `${encodeURIComponent(k)}=${enc(v)}`)
      : pairs.flatMap(([k, v]) => [encodeURIComponent(k), enc(v)]);
    if (style === 'label') return `.${joined.join(explode ? '.' : ',')}`;
    if (style === 'matrix')
      return explode ? joined.map((p) => `;${p}`).join('') : `;${name}=${joined.join(',')}`;
    return joined.join(',');
  }
  if (style === 'label') return `.${enc(value)}`;
  if (style === 'matrix') return `;${name}=${enc(value)}`;
  return enc(value);
}

/**
 * Query pairs of one parameter, percent-encoded, with the style's delimiters left as they are
 * (`fields=a,b`, `color=blue|black`): a server that splits before decoding still sees them.
 */
function queryPairs(param: ParameterObject, value: Value, serialized: boolean): string[] {
  const enc = (v: Value) => encodeURIComponent(scalar(v));
  const name = encodeURIComponent(param.name);
  if (serialized) return [`${name}=${encodeURIComponent(JSON.stringify(value))}`];
  const style = param.style ?? 'form';
  const explode = param.explode ?? style === 'form';
  if (Array.isArray(value)) {
    if (style === 'spaceDelimited') return [`${name}=${value.map(enc).join('%20')}`];
    if (style === 'pipeDelimited') return [`${name}=${value.map(enc).join('|')}`];
    return explode ? value.map((v) => `${name}=${enc(v)}`) : [`${name}=${value.map(enc).join(',')}`];
  }
  if (isPlainObject(value)) {
    const pairs = Object.entries(value);
    if (style === 'deepObject') {
      return pairs.map(([k, v]) => `${name}%5B${encodeURIComponent(k)}%5D=${enc(v)}`);
    }
    return explode
      ? pairs.map(([k, v]) => `${encodeURIComponent(k)}=${enc(v)}`)
      : [`${name}=${pairs.flatMap(([k, v]) => [encodeURIComponent(k), enc(v)]).join(',')}`];
  }
  return [`${name}=${enc(value)}`];
}

/** `simple` header values (also what a cookie value is made of). */
function headerValue(param: ParameterObject, value: Value, serialized: boolean): string {
  if (serialized) return JSON.stringify(value);
  if (Array.isArray(value)) return value.map(scalar).join(',');
  if (isPlainObject(value)) {
    const pairs = Object.entries(value);
    return param.explode === true
      ? pairs.map(([k, v]) => `${k}=${scalar(v)}`).join(',')
      : pairs.flatMap(([k, v]) => [k, scalar(v)]).join(',');
  }
  return scalar(value);
}

/**
 * `https://api.example.com/v1` + `/pets` keeps the `/v1` (URL resolution would drop it), and
 * a query on the base URL stays.
 */
export function joinUrl(base: string, path: string): URL {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path.startsWith('/') ? path : `/${path}`}`;
  return url;
}

export interface RequestContext {
  readonly baseUrl: string;
  readonly credentials: readonly Credential[];
  readonly userAgent: string;
  readonly accept: string;
}

/**
 * The request for one call. `args` have passed the tool's input schema.
 *
 * @example
 * const req = buildRequest(op, plan, { petId: 7 }, { baseUrl, credentials: [], userAgent: 'x', accept: '*\/*' });
 */
export function buildRequest(
  op: Operation,
  plan: InputPlan,
  args: Readonly<Record<string, unknown>>,
  context: RequestContext,
): BuiltRequest {
  let path = op.path;
  const query: string[] = [];
  const headers = new Headers({ 'user-agent': context.userAgent, accept: context.accept });
  const cookies: string[] = [];
  for (const { arg, param, serialized } of plan.params) {
    const value = args[arg];
    if (value === undefined) continue;
    if (param.in === 'path') path = path.replaceAll(`{${param.name}}`, pathValue(param, value, serialized));
    else if (param.in === 'query') query.push(...queryPairs(param, value, serialized));
    else if (param.in === 'header') headers.set(param.name, headerValue(param, value, serialized));
    else cookies.push(`${param.name}=${encodeURIComponent(headerValue(param, value, serialized))}`);
  }
  // Percent-encoding leaves dots alone, and URL parsing collapses a `.` or `..` segment (and
  // its `%2e` forms, WHATWG URL "double-dot segment"): an argument must never move the call
  // to another path, above the API's base path least of all.
  for (const segment of path.split('/')) {
    if (DOT_SEGMENT.test(segment)) {
      throw new RangeError(
        `a path argument made the segment "${segment}" of ${op.path}, which would change the path the call goes to; pass another value`,
      );
    }
  }
  for (const c of context.credentials) {
    if (c.kind === 'bearer') headers.set('authorization', `Bearer ${c.token}`);
    else if (c.in === 'header') headers.set(c.name, c.value);
    else if (c.in === 'query') query.push(`${encodeURIComponent(c.name)}=${encodeURIComponent(c.value)}`);
    else cookies.push(`${c.name}=${encodeURIComponent(c.value)}`);
  }
  const url = joinUrl(context.baseUrl, path);
  // The base URL may carry a query of its own (`?api-version=2`): the call's pairs follow it.
  if (query.length > 0) url.search = [url.search.replace(/^\?/, ''), ...query].filter(Boolean).join('&');
  if (cookies.length > 0) headers.set('cookie', cookies.join('; '));

  let body: string | undefined;
  if (plan.body !== undefined) {
    const b = plan.body;
    let value: unknown;
    if (b.mode === 'whole') value = args[b.arg ?? 'body'];
    else {
      const paramArgs = new Set(plan.params.map((p) => p.arg));
      const entries = Object.entries(args).filter(([k, v]) => !paramArgs.has(k) && v !== undefined);
      value = entries.length > 0 || b.required ? Object.fromEntries(entries) : undefined;
    }
    if (value !== undefined) {
      if (b.form) {
        const form = new URLSearchParams();
        for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
          for (const item of Array.isArray(v) ? v : [v]) form.append(k, scalar(item));
        }
        body = form.toString();
        headers.set('content-type', 'application/x-www-form-urlencoded');
      } else {
        body = JSON.stringify(value);
        headers.set('content-type', b.mediaType === '*/*' ? 'application/json' : b.mediaType);
      }
    }
  }
  return { method: op.method.toUpperCase(), url, headers, body };
}

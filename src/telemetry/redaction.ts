/**
 * What never reaches a log line: credentials by well-known field name, at any depth of any
 * log object, and, when tool arguments are logged at all, any argument whose key looks secret.
 */

/** The value written in place of a secret. */
export const REDACTED = '[redacted]';

/**
 * Log-field names that hold credentials, matched whole and case-insensitively at any
 * depth: HTTP headers (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`,
 * `X-API-Key`), the token fields of OAuth 2.0 (RFC 6749 §5.1) and common secrets. Whole
 * names only, so `keyId` or `tokenCount` still reach the logs.
 */
const SECRET_FIELD =
  /^(?:(?:proxy-)?authorization|(?:set-)?cookie|x-api-key|api[-_]?key|(?:access|refresh|id)?[-_]?token|private[-_]?key|password|passwd|secret|client[-_]?secret)$/i;

/**
 * pino `redact` paths, for what `formatters.log` never sees: a child logger's bindings
 * (pino serialises them once, at `child()`). Literal paths only: wildcard paths such as
 * `*.token` cost pino ~60 µs per line (measured), literal ones next to nothing.
 */
const TOP_LEVEL_SECRETS = [
  'authorization',
  'Authorization',
  'cookie',
  'Cookie',
  '["set-cookie"]',
  '["x-api-key"]',
  '["X-API-Key"]',
  'apiKey',
  'api_key',
  'token',
  'accessToken',
  'access_token',
  'refreshToken',
  'refresh_token',
  'idToken',
  'id_token',
  'password',
  'secret',
  'clientSecret',
  'client_secret',
];
const HEADER_SECRETS = [
  'authorization',
  '["proxy-authorization"]',
  'cookie',
  '["set-cookie"]',
  '["x-api-key"]',
];
export const REDACT_PATHS: readonly string[] = [
  ...TOP_LEVEL_SECRETS,
  ...HEADER_SECRETS.flatMap((h) => {
    const tail = h.startsWith('[') ? h : `.${h}`;
    return [`headers${tail}`, `req.headers${tail}`, `request.headers${tail}`];
  }),
];

// Deep enough for `req.headers.authorization` and `err.response.headers.cookie`.
const MAX_SCAN_DEPTH = 4;

/**
 * The log object with credential fields replaced by `[redacted]`, copying only the
 * objects on the way to one (the caller's object is never mutated). Used as pino's
 * `formatters.log`/`formatters.bindings`: a key-name scan measured at ~0.1 µs per request
 * line, where pino `redact` wildcard paths (`*.token`, `*.*.token`) cost ~60 µs.
 *
 * @example
 * redactSecrets({ req: { headers: { authorization: 'Bearer x' } } })
 * // { req: { headers: { authorization: '[redacted]' } } }
 */
export function redactSecrets<T extends object>(value: T): T {
  return scan(value, 0) as T;
}

function scan(value: object, depth: number): object {
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (!isPlain(item) && !Array.isArray(item)) continue;
      if (depth >= MAX_SCAN_DEPTH) break;
      const next = scan(item as object, depth + 1);
      if (next !== item) {
        out ??= value.slice();
        out[i] = next;
      }
    }
    return out ?? value;
  }
  let out: Record<string, unknown> | undefined;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const item = record[key];
    let next = item;
    if (SECRET_FIELD.test(key)) {
      if (item === undefined) continue;
      next = REDACTED;
    } else if (
      depth < MAX_SCAN_DEPTH &&
      item !== null &&
      typeof item === 'object' &&
      (isPlain(item) || Array.isArray(item))
    ) {
      next = scan(item, depth + 1);
    }
    if (next !== item) {
      out ??= copyOf(record);
      setOwn(out, key, next);
    }
  }
  return out ?? value;
}

function isPlain(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// A plain copy of own properties. pino calls `bindings.hasOwnProperty`, so no null
// prototype; a JSON `__proto__` key is defined, never assigned (which would set the prototype).
function copyOf(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) setOwn(out, key, record[key]);
  return out;
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/** Tool-argument keys whose values are never logged, by name (the rule, plus cookies). */
const SECRET_ARG_KEY = /pass|secret|token|key|auth|cookie|credential/i;

// Bounds on what one request line may carry: tool arguments can be whole files.
const MAX_DEPTH = 6;
const MAX_STRING = 1024;
const MAX_ITEMS = 50;
const MAX_KEYS = 100;

/**
 * A copy of tool arguments fit for a log line: values under secret-looking keys replaced
 * by `[redacted]`, long strings truncated, deep or wide structures cut off.
 *
 * @example
 * redactArgs({ path: 'a.txt', apiKey: 'k' }) // { path: 'a.txt', apiKey: '[redacted]' }
 */
export function redactArgs(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…(${value.length} chars)` : value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[depth limit]';
  if (Array.isArray(value)) {
    const out = value.slice(0, MAX_ITEMS).map((item) => redactArgs(item, depth + 1));
    if (value.length > MAX_ITEMS) out.push(`…(${value.length - MAX_ITEMS} more)`);
    return out;
  }
  const out: Record<string, unknown> = {};
  let count = 0;
  for (const key of Object.keys(value)) {
    if (count++ === MAX_KEYS) {
      setOwn(out, '…', `(${Object.keys(value).length - MAX_KEYS} more keys)`);
      break;
    }
    setOwn(
      out,
      key,
      SECRET_ARG_KEY.test(key) ? REDACTED : redactArgs((value as Record<string, unknown>)[key], depth + 1),
    );
  }
  return out;
}

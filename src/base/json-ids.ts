/**
 * Request ids past Number.MAX_SAFE_INTEGER, kept as sent. JSON.parse rounds
 * `12345678901234567890` to 12345678901234567000, so a client correlating by id would get
 * another id back. `parseMessage` keeps the digits of such an integer where a message holds
 * an id (its `id`, a notifications/cancelled `params.requestId`, a `params._meta.progressToken`,
 * or a progress notification's `params.progressToken`) as a `BigId` (`JSON.rawJSON`), which
 * JSON.stringify writes back digit for digit. Any other number, tool arguments included, is
 * read as JSON.parse reads it. A text is parsed once by plain JSON.parse, without a reviver;
 * only when a number at one of those places came out past the safe range (all but a few
 * never do) is it parsed again, with a reviver that reads the number's digits.
 */

/** An integer id JSON numbers cannot hold: its digits, as `JSON.rawJSON` keeps them. */
export interface BigId {
  readonly rawJSON: string;
}

const RawJson = JSON as unknown as {
  rawJSON(text: string): BigId;
  isRawJSON(value: unknown): boolean;
};

const INTEGER = /^-?\d+$/;

/** Where an id sits in an object, as the keys leading to it. */
export type IdPath = readonly string[];
/**
 * Where a JSON-RPC message holds ids: its own, a cancelled request's, a request's progress
 * token, and the token a progress notification echoes.
 */
export const MESSAGE_IDS: readonly IdPath[] = [
  ['id'],
  ['params', 'requestId'],
  ['params', '_meta', 'progressToken'],
  ['params', 'progressToken'],
];

/** Whether `value` is an integer id kept as its digits. */
export function isBigId(value: unknown): value is BigId {
  return RawJson.isRawJSON(value) && INTEGER.test((value as BigId).rawJSON);
}

/** `text`, an integer past Number.MAX_SAFE_INTEGER, as an id that serialises to the same digits. */
export function bigId(text: string): BigId {
  if (!INTEGER.test(text)) throw new TypeError(`not an integer: ${text}`);
  return RawJson.rawJSON(text);
}

/**
 * An id as a Map key: a `BigId` becomes a bigint (compared by value, and never equal to the
 * string of its digits, as JSON-RPC 2.0 wants: `1` and `"1"` are different ids); anything
 * else is itself.
 *
 * @example
 * running.get(idKey(params.requestId));
 */
export function idKey<T>(id: T | BigId): T | bigint {
  return isBigId(id) ? BigInt(id.rawJSON) : (id as T);
}

/** An id as text, for logs and span attributes (`String()` throws on a `BigId`). */
export function idText(id: unknown): string {
  return isBigId(id) ? id.rawJSON : String(id);
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * JSON.parse for a JSON-RPC text (one message or a batch) that keeps integer ids past
 * Number.MAX_SAFE_INTEGER as sent (see above). Throws what JSON.parse throws on bad JSON.
 *
 * @example
 * parseMessage('{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}').id; // a BigId
 */
export function parseMessage(text: string): unknown {
  return parseKeepingIds(text, MESSAGE_IDS, true);
}

/**
 * JSON.parse that keeps an integer past Number.MAX_SAFE_INTEGER found at one of `paths` (from
 * the top, or from each member of a top-level array when `batch`) as a `BigId`; every other
 * number is read as JSON.parse reads it.
 *
 * @example
 * parseKeepingIds(payload, [['event', 'requestId']]); // a relayed cancellation
 */
export function parseKeepingIds(text: string, paths: readonly IdPath[], batch = false): unknown {
  const parsed: unknown = JSON.parse(text);
  const unsafe = paths === MESSAGE_IDS ? unsafeMessageId : (m: unknown) => unsafeAt(m, paths);
  if (batch && Array.isArray(parsed) ? !parsed.some(unsafe) : !unsafe(parsed)) return parsed;
  const keys = new Set(paths.map((p) => p.at(-1)));
  const kept = new WeakMap<object, Map<string, string>>();
  let value: unknown;
  try {
    value = JSON.parse(text, function (this: object, key: string, v: unknown, context?: { source?: string }) {
      const source = context?.source;
      if (
        typeof v === 'number' &&
        keys.has(key) &&
        !Number.isSafeInteger(v) &&
        source !== undefined &&
        INTEGER.test(source)
      ) {
        const found = kept.get(this) ?? new Map<string, string>();
        kept.set(this, found);
        found.set(key, source);
      }
      return v;
    });
  } catch (err) {
    if (err instanceof SyntaxError) throw err;
    // The reviver's walk recurses: a text nested thousands deep overflows it. Such a text is
    // past any nesting limit and gets refused; its ids are then read as JSON.parse reads them.
    return parsed;
  }
  for (const top of batch && Array.isArray(value) ? value : [value]) {
    for (const path of paths) {
      let holder: unknown = top;
      for (const key of path.slice(0, -1)) holder = isRecord(holder) ? holder[key] : undefined;
      const key = path.at(-1) as string;
      const source = isRecord(holder) ? kept.get(holder)?.get(key) : undefined;
      if (source !== undefined) (holder as Record<string, unknown>)[key] = RawJson.rawJSON(source);
    }
  }
  return value;
}

const unsafeNumber = (v: unknown) => typeof v === 'number' && !Number.isSafeInteger(v);

/**
 * `unsafeAt(message, MESSAGE_IDS)` for every message parsed (a request's body, a stdio line):
 * the same places, read by name, which costs a fraction of the generic walk over the paths.
 */
function unsafeMessageId(message: unknown): boolean {
  if (!isRecord(message)) return false;
  if (unsafeNumber(message.id)) return true;
  const params = message.params;
  if (!isRecord(params)) return false;
  if (unsafeNumber(params.requestId) || unsafeNumber(params.progressToken)) return true;
  const meta = params._meta;
  return isRecord(meta) && unsafeNumber(meta.progressToken);
}

/**
 * Whether a number at one of `paths` in `top` is past Number.MAX_SAFE_INTEGER (or not an
 * integer at all): JSON.parse turns an integer text too long to hold into such a number, so a
 * message without one has no digits to keep.
 */
function unsafeAt(top: unknown, paths: readonly IdPath[]): boolean {
  for (const path of paths) {
    let value = top;
    for (const key of path) value = isRecord(value) ? value[key] : undefined;
    if (typeof value === 'number' && !Number.isSafeInteger(value)) return true;
  }
  return false;
}

/**
 * The fuzz suite's oracle: what the server owes for a payload (JSON-RPC 2.0 §4-§6: one
 * answer per request, echoing its id; id null when the id cannot be read; none for a
 * notification or a response), whether each message it sent is well-formed, and whether the
 * answers received pay exactly what was owed. Reads client data only at the top level and
 * batch members; measures nesting by scanning the text: nothing here recurses into what the
 * fuzzer sent, whatever its depth. Integer ids JS numbers cannot hold (12345678901234567890)
 * are compared digit for digit, as written (`parseIds`).
 */
import { nestingDepth } from './json-text.ts';

/** An answer's id as a comparable key: `null`, `s"text"` or `n42` (`-0` and `0` are one id). */
export type IdKey = string;
export const NULL_ID: IdKey = 'null';

/** An integer id past Number.MAX_SAFE_INTEGER, as written (JSON.parse would round it). */
export class ExactId {
  readonly digits: string;
  constructor(digits: string) {
    this.digits = digits;
  }
}

function isId(v: unknown): v is string | number | ExactId {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) || v instanceof ExactId;
}

export function idKey(id: unknown): IdKey | undefined {
  if (id === null) return NULL_ID;
  if (typeof id === 'string') return `s${JSON.stringify(id)}`;
  if (typeof id === 'number' && Number.isFinite(id)) return `n${JSON.stringify(id)}`;
  if (id instanceof ExactId) return `n${id.digits}`;
  return undefined;
}

/** The key of the id JSON.parse would have read: what a server that rounds answers. */
const roundedKey = (id: unknown) => (id instanceof ExactId ? idKey(Number(id.digits)) : undefined);

const INTEGER = /^-?\d+$/;

/**
 * JSON.parse, except that an integer `id` past Number.MAX_SAFE_INTEGER (of the message, or of
 * each batch member) and a `params.requestId` are kept as `ExactId`s. A text nested too deep
 * for a reviver's walk is read as JSON.parse reads it (a server refuses such a text, and may
 * have read its id either way; `member` accepts both).
 */
export function parseIds(text: string): unknown {
  if (!/\d{16}/.test(text)) return JSON.parse(text);
  const kept = new WeakMap<object, Map<string, string>>();
  let value: unknown;
  try {
    value = JSON.parse(text, function (this: object, key, v, context?: { source?: string }) {
      const source = context?.source;
      if ((key === 'id' || key === 'requestId') && typeof v === 'number' && !Number.isSafeInteger(v)) {
        if (source !== undefined && INTEGER.test(source)) {
          const found = kept.get(this) ?? new Map<string, string>();
          kept.set(this, found);
          found.set(key, source);
        }
      }
      return v;
    });
  } catch (err) {
    if (err instanceof SyntaxError) throw err;
    return JSON.parse(text);
  }
  const restore = (holder: unknown, key: string) => {
    const digits = isObject(holder) ? kept.get(holder)?.get(key) : undefined;
    if (digits !== undefined) (holder as Record<string, unknown>)[key] = new ExactId(digits);
  };
  for (const m of Array.isArray(value) ? value : [value]) {
    restore(m, 'id');
    if (isObject(m)) restore(m.params, 'requestId');
  }
  return value;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const has = (o: object, key: string) => Object.hasOwn(o, key);

/** One answer the server owes: its id is one of `ids`. An optional one may never come. */
export interface Owed {
  readonly ids: readonly IdKey[];
  optional: boolean;
  /** What was sent, for reports. */
  readonly note: string;
}

/** A batch: one array answering its members, or (when `mayRefuse`) one error with id null. */
export interface BatchOwed {
  readonly members: Owed[];
  readonly mayRefuse: boolean;
  readonly note: string;
}

export interface Owing {
  readonly singles: Owed[];
  readonly batches: BatchOwed[];
  /** Request ids named by a notifications/cancelled in the payload (stdio may then stay silent). */
  readonly cancels: IdKey[];
}

export interface OracleOptions {
  /** Whether a non-empty batch within the size limit is served: `either` when it depends. */
  readonly batches: 'allowed' | 'either';
  readonly maxBatch: number;
  /**
   * The server's nesting limit. A message nested this deep or more may be refused as a whole
   * (-32600, with its id or id null; a notification may then be answered with id null), or
   * served as usual: both are accepted, because where exactly a server counts from is its
   * business; what it must never do is crash or stay silent.
   */
  readonly depthLimit: number;
}

const preview = (text: string) => (text.length > 80 ? `${text.slice(0, 60)}…(${text.length} chars)` : text);

/** What the server owes for one JSON text (an HTTP body, or one stdio line). */
export function owedFor(text: string, options: OracleOptions): Owing {
  const owing: Owing = { singles: [], batches: [], cancels: [] };
  let value: unknown;
  try {
    value = parseIds(text);
  } catch {
    owing.singles.push({ ids: [NULL_ID], optional: false, note: `not JSON: ${preview(text)}` });
    return owing;
  }
  const deep = nestingDepth(text) >= options.depthLimit - 1;
  if (!Array.isArray(value)) {
    const owed = member(value, deep, owing.cancels);
    if (owed) owing.singles.push(owed);
    return owing;
  }
  if (value.length === 0 || value.length > options.maxBatch) {
    owing.singles.push({ ids: [NULL_ID], optional: false, note: `batch of ${value.length}` });
    return owing;
  }
  const members: Owed[] = [];
  for (const item of value) {
    const owed = member(item, deep, owing.cancels);
    if (owed) members.push(owed);
  }
  owing.batches.push({
    members,
    mayRefuse: deep || options.batches === 'either',
    note: `batch of ${value.length}`,
  });
  return owing;
}

/**
 * What one message (alone or in a batch) is owed, per JSON-RPC 2.0 §4 and §5. A message past
 * the nesting limit may be refused unread: it is then answered by its shape alone (a request,
 * or anything not shaped as a notification or response, with its id or id null; something
 * shaped as a notification or response maybe not at all).
 */
function member(v: unknown, deep: boolean, cancels: IdKey[]): Owed | undefined {
  const owed = strictMember(v, cancels);
  if (!deep) return owed;
  const rounded = isObject(v) ? roundedKey(v.id) : undefined;
  const ids = [...new Set([...(owed?.ids ?? []), ...(rounded ? [rounded] : []), NULL_ID])];
  const silentShape = isObject(v) && (has(v, 'method') ? !has(v, 'id') : has(v, 'result') || has(v, 'error'));
  return { ids, optional: silentShape || (owed?.optional ?? true), note: `deep ${owed?.note ?? 'message'}` };
}

function strictMember(v: unknown, cancels: IdKey[]): Owed | undefined {
  const answer = (key: IdKey, note: string, optional = false): Owed => ({ ids: [key], optional, note });
  if (!isObject(v)) return answer(NULL_ID, 'not an object');
  const readable = isId(v.id) ? (idKey(v.id) as IdKey) : NULL_ID;
  if (v.jsonrpc !== '2.0') return answer(readable, 'jsonrpc is not "2.0"');
  if (has(v, 'method')) {
    if (typeof v.method !== 'string') return answer(readable, 'method is not a string');
    if (has(v, 'params') && !isObject(v.params)) return answer(readable, `${v.method}: params not an object`);
    if (!has(v, 'id')) {
      const target = isObject(v.params) ? idKey(v.params.requestId) : undefined;
      if (v.method === 'notifications/cancelled' && target !== undefined && target !== NULL_ID)
        cancels.push(target);
      return undefined;
    }
    if (!isId(v.id)) return answer(NULL_ID, `${v.method}: id neither string nor number`);
    // subscriptions/listen holds its request open until the client goes away (2026 wire).
    return answer(readable, `request ${v.method}`, v.method === 'subscriptions/listen');
  }
  if (has(v, 'result') || has(v, 'error')) {
    if (has(v, 'result') && has(v, 'error')) return answer(readable, 'response with result and error');
    if (!isId(v.id) && !(has(v, 'error') && v.id === null)) return answer(NULL_ID, 'response without an id');
    return undefined;
  }
  return answer(readable, 'neither request, notification nor response');
}

/** Marks owed answers to cancelled request ids optional (a cancelled request may go unanswered). */
export function markCancelled(owed: Iterable<Owed>, cancels: readonly IdKey[]): void {
  if (cancels.length === 0) return;
  const set = new Set(cancels);
  for (const o of owed) if (o.ids.some((k) => set.has(k))) o.optional = true;
}

// ---- what the server sent ------------------------------------------------------------------

/** A problem with one message the server sent, or undefined when it is well-formed JSON-RPC. */
export function malformed(m: unknown): string | undefined {
  if (Array.isArray(m)) {
    if (m.length === 0) return 'an empty array';
    for (const item of m) {
      const p =
        isObject(item) && has(item, 'method')
          ? 'a request or notification in a batch reply'
          : malformed(item);
      if (p) return `batch reply: ${p}`;
    }
    return undefined;
  }
  if (!isObject(m)) return 'not an object';
  if (m.jsonrpc !== '2.0') return 'jsonrpc is not "2.0"';
  if (has(m, 'method')) {
    if (typeof m.method !== 'string') return 'method is not a string';
    if (has(m, 'params') && !isObject(m.params)) return 'params is not an object';
    if (has(m, 'id') && !isId(m.id)) return 'a server request without a usable id';
    return undefined;
  }
  if (!has(m, 'id')) return 'a response without id';
  if (m.id !== null && !isId(m.id)) return 'id is neither string, number nor null';
  const result = has(m, 'result');
  const error = has(m, 'error');
  if (result === error) return result ? 'both result and error' : 'neither result nor error';
  if (result) return isObject(m.result) ? undefined : 'result is not an object';
  const e = m.error;
  if (!isObject(e)) return 'error is not an object';
  if (!Number.isInteger(e.code)) return 'error.code is not an integer';
  if (typeof e.message !== 'string') return 'error.message is not a string';
  return undefined;
}

export const isResponse = (m: unknown): m is Record<string, unknown> =>
  isObject(m) && !has(m, 'method') && (has(m, 'result') || has(m, 'error'));

// ---- matching answers to what was owed -----------------------------------------------------

export interface Settlement {
  /** Owed answers (or batches) that did not come and had to. */
  readonly unanswered: string[];
  /** Answers nothing was owed for (a second answer, a wrong id, an answer to a notification). */
  readonly unexpected: unknown[];
  /** Optional answers still open (they may come later). */
  readonly open: { singles: Owed[]; batches: BatchOwed[] };
}

/**
 * Which debt an answer pays when several accept its id. A debt that must be paid comes first,
 * except, in `exact` mode, for an id-null answer: it pays a debt that accepts id null alone
 * before one that accepts "id 5 or null", which an answer with id 5 may still pay (right while
 * answers are still coming). `required`: the generous reading once no more answers will come.
 */
export type Preference = 'exact' | 'required';

/** The "refused with id null" alternative of each batch, as a debt an answer may pay. */
const refusals = new WeakSet<Owed>();
const rank = (o: Owed, key: IdKey, prefer: Preference) => {
  const loose = o.ids.length > 1 ? 1 : 0;
  const optional = o.optional ? 1 : 0;
  if (prefer === 'required' || key !== NULL_ID) return optional * 2 + loose;
  // While answers still come, a batch's reply may yet arrive: its refusal is the last resort.
  return refusals.has(o) ? 4 : loose * 2 + optional;
};
const required = (b: BatchOwed) => b.members.some((m) => !m.optional);

/** Pays answers to debts: ids first, then id-null answers, each to the debt `prefer` ranks first. */
function settleSingles(
  owed: readonly Owed[],
  answers: readonly Record<string, unknown>[],
  prefer: Preference = 'required',
) {
  const paid = new Set<number>();
  const unexpected: Record<string, unknown>[] = [];
  const keyed = answers.map((a) => ({ a, key: idKey(a.id) ?? NULL_ID }));
  keyed.sort((x, y) => Number(x.key === NULL_ID) - Number(y.key === NULL_ID));
  for (const { a, key } of keyed) {
    let best = -1;
    for (let i = 0; i < owed.length; i++) {
      const o = owed[i]!;
      if (paid.has(i) || !o.ids.includes(key)) continue;
      if (best === -1 || rank(o, key, prefer) < rank(owed[best]!, key, prefer)) best = i;
    }
    if (best === -1) unexpected.push(a);
    else paid.add(best);
  }
  const left = owed.filter((_, i) => !paid.has(i));
  return { unexpected, unanswered: left.filter((o) => !o.optional), open: left.filter((o) => o.optional) };
}

/** Matches every answer received (objects and batch arrays) against what was owed. */
export function settle(
  singles: readonly Owed[],
  batches: readonly BatchOwed[],
  answers: readonly unknown[],
  prefer: Preference = 'required',
): Settlement {
  const objects: Record<string, unknown>[] = [];
  const unexpected: unknown[] = [];
  const arrays: Record<string, unknown>[][] = [];
  for (const a of answers) {
    if (Array.isArray(a)) arrays.push(a.filter(isObject));
    else if (isObject(a)) objects.push(a);
    else unexpected.push(a);
  }
  // Batch replies to batches: a bipartite matching (Kuhn's augmenting paths), as one reply
  // may fit several batches sent together.
  const fits = arrays.map((items) =>
    batches.map((b) => {
      const s = settleSingles(b.members, items);
      return s.unexpected.length === 0 && s.unanswered.length === 0;
    }),
  );
  const owner: (number | undefined)[] = batches.map(() => undefined);
  const augment = (a: number, seen: Set<number>, among: (b: number) => boolean): boolean => {
    for (let b = 0; b < batches.length; b++) {
      if (!among(b) || !fits[a]![b] || seen.has(b)) continue;
      seen.add(b);
      const holder = owner[b];
      if (holder === undefined || augment(holder, seen, among)) {
        owner[b] = a;
        return true;
      }
    }
    return false;
  };
  // First as many batches that must be answered as the replies can cover, then the others
  // (an open optional batch never takes a reply a required one needed).
  const mustAnswer = (b: number) => required(batches[b]!);
  const placed = arrays.map((_, a) => augment(a, new Set(), mustAnswer));
  for (let a = 0; a < arrays.length; a++) {
    if (!placed[a] && !augment(a, new Set(), (b) => !mustAnswer(b))) unexpected.push(arrays[a]);
  }
  const unmatched = batches.filter((_, b) => owner[b] === undefined);
  const refused = new Map<Owed, BatchOwed>();
  const unanswered: string[] = [];
  const openBatches: BatchOwed[] = [];
  for (const b of unmatched) {
    if (b.mayRefuse) {
      const refusal: Owed = {
        ids: [NULL_ID],
        optional: !required(b),
        note: `${b.note}: no batch reply nor refusal`,
      };
      refusals.add(refusal);
      refused.set(refusal, b);
    } else if (required(b)) {
      unanswered.push(`${b.note}: no batch reply`);
    } else openBatches.push(b);
  }
  const s = settleSingles([...singles, ...refused.keys()], objects, prefer);
  for (const o of s.unanswered) unanswered.push(`${o.note} (id ${o.ids.join(' or ')})`);
  unexpected.push(...s.unexpected);
  // A reply that fits a batch left unmatched may have been that batch's (an id-null reply fits
  // any deep batch): the batch it was given may then still get its own reply, later.
  for (let b = 0; b < batches.length; b++) {
    const a = owner[b];
    if (a === undefined || !batches.some((_, other) => owner[other] === undefined && fits[a]![other]))
      continue;
    const paid = batches[b]!;
    openBatches.push({ ...paid, members: paid.members.map((m) => ({ ...m, optional: true })) });
  }
  const open = { singles: [] as Owed[], batches: openBatches };
  for (const o of s.open) {
    const b = refused.get(o);
    if (b) open.batches.push(b);
    else open.singles.push(o);
  }
  return { unanswered, unexpected, open };
}

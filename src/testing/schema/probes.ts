/**
 * Invalid-input probes beyond a wrong type: values just outside a field's declared range (one
 * below the minimum, one above the maximum, the exclusive bound itself), one character short of
 * `minLength` or past `maxLength`, one item short or over, and a string outside the `pattern`.
 * A server that checks only types (or gets a bound off by one) accepts them. Each value is
 * checked to break the field's schema before it becomes a probe.
 */
import { isObject, type JsonObject } from '../../base/jsonrpc.ts';
import { propertiesOf, resolveRef } from './fields.ts';
import { basicValue, fieldAccepts } from './values.ts';

export type ProbeKind =
  | 'below_minimum'
  | 'above_maximum'
  | 'too_short'
  | 'too_long'
  | 'too_few_items'
  | 'too_many_items'
  | 'pattern_mismatch';

export interface OutOfRange {
  kind: ProbeKind;
  value: unknown;
}

/** Longer strings and arrays than this are only sent with `--fuzz` (a body limit is not a finding). */
const MAX_PROBE_LENGTH = 10_000;
/** Strings tried against a pattern, first one outside it wins. */
const PATTERN_MISSES = ['', '!', ' ', '~~~', '0', 'a', 'hello world', '\u00e9'];

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/**
 * The just-outside values of one field of `inputSchema`, each of which the field's schema
 * rejects; empty when it declares no bound.
 *
 * @example
 * outOfRange({ properties: { n: { type: 'integer', minimum: 1, maximum: 5 } } }, 'n');
 * // [{ kind: 'below_minimum', value: 0 }, { kind: 'above_maximum', value: 6 }]
 */
export function outOfRange(inputSchema: JsonObject, field: string, fuzz = false): OutOfRange[] {
  const own = propertiesOf(inputSchema)[field];
  if (own === undefined) return [];
  const s = resolveRef(own, inputSchema);
  const types = Array.isArray(s.type) ? s.type : [s.type];
  const out: OutOfRange[] = [];
  const add = (kind: ProbeKind, value: unknown) => {
    if (!fieldAccepts(own, inputSchema, value)) out.push({ kind, value });
  };
  if (types.includes('integer') || types.includes('number')) {
    const step = types.includes('integer') ? 1 : 0.5;
    const min = num(s.minimum);
    const xmin = num(s.exclusiveMinimum);
    const max = num(s.maximum);
    const xmax = num(s.exclusiveMaximum);
    if (xmin !== undefined) add('below_minimum', xmin);
    else if (min !== undefined) add('below_minimum', min - step);
    if (xmax !== undefined) add('above_maximum', xmax);
    else if (max !== undefined) add('above_maximum', max + step);
  }
  const limit = fuzz ? Number.POSITIVE_INFINITY : MAX_PROBE_LENGTH;
  if (types.includes('string')) {
    const minLength = num(s.minLength);
    const maxLength = num(s.maxLength);
    if (minLength !== undefined && minLength > 0) add('too_short', 'x'.repeat(minLength - 1));
    if (maxLength !== undefined && maxLength < limit) add('too_long', 'x'.repeat(maxLength + 1));
    if (typeof s.pattern === 'string') {
      const miss = PATTERN_MISSES.find((v) => !fieldAccepts(own, inputSchema, v));
      if (miss !== undefined) add('pattern_mismatch', miss);
    }
  }
  if (types.includes('array')) {
    const item = basicValue(isObject(s.items) ? s.items : {}, inputSchema, 1);
    const minItems = num(s.minItems);
    const maxItems = num(s.maxItems);
    if (item !== undefined) {
      const of = (n: number) => Array.from({ length: n }, () => item.value);
      if (minItems !== undefined && minItems > 0) add('too_few_items', of(minItems - 1));
      if (maxItems !== undefined && maxItems < limit) add('too_many_items', of(maxItems + 1));
    }
  }
  return out;
}

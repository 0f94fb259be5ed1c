/**
 * The context a request's handler runs in: its parent's, with the request's span set. One is
 * built per request, so it is built small. The API's own context (`trace.setSpan`, through
 * `BaseContext.setValue`) copies its parent's whole Map and makes three closures for every
 * value set; this one, an implementation of the API's `Context` interface, holds its parent,
 * one key and its value, and asks the parent for every other key. What is read through it is
 * what `trace.setSpan(parent, span)` would give: `trace.getSpan`, `trace.getActiveSpan`,
 * propagators, baggage and instrumentations see the same values.
 */
import { type Context, type Span, trace } from '@opentelemetry/api';

/** A context with one more value than its parent. */
class ContextWith implements Context {
  // Made per request: fields `private`, not `#private` (V8 defines each `#` field through a
  // keyed store call on every construction: docs/performance.md).
  private readonly _parent: Context;
  private readonly _key: symbol;
  private readonly _value: unknown;

  constructor(parent: Context, key: symbol, value: unknown) {
    this._parent = parent;
    this._key = key;
    this._value = value;
  }

  getValue(key: symbol): unknown {
    return key === this._key ? this._value : this._parent.getValue(key);
  }

  setValue(key: symbol, value: unknown): Context {
    return new ContextWith(this, key, value);
  }

  /** The key reads as unset from here on (`getValue` answers undefined, as the API's does). */
  deleteValue(key: symbol): Context {
    return new ContextWith(this, key, undefined);
  }
}

/**
 * The key under which the API keeps the active span, asked of the API itself: `trace.getSpan`
 * reads it from whatever context it is given.
 */
function spanKeyOfApi(): symbol {
  let key: symbol | undefined;
  const recorder: Context = {
    getValue(asked: symbol): unknown {
      key = asked;
      return undefined;
    },
    setValue: () => recorder,
    deleteValue: () => recorder,
  };
  trace.getSpan(recorder);
  if (key === undefined) throw new Error('@opentelemetry/api read no context key for the active span');
  return key;
}

const SPAN_KEY = spanKeyOfApi();

/**
 * `trace.setSpan(parent, span)`, without copying the parent.
 *
 * @example
 * const ctx = withSpan(ROOT_CONTEXT, span);
 * trace.getSpan(ctx) === span; // true
 */
export function withSpan(parent: Context, span: Span): Context {
  return new ContextWith(parent, SPAN_KEY, span);
}

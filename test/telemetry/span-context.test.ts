/**
 * The request's context (span-context.ts) reads as the API's own `trace.setSpan` context
 * does: the span, every value of the parent, values set and deleted on top of it, the active
 * span inside `context.with`, the `traceparent` a propagator injects, tracing suppression.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type Context,
  context,
  createContextKey,
  propagation,
  ROOT_CONTEXT,
  type Span,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { isTracingSuppressed, suppressTracing, W3CTraceContextPropagator } from '@opentelemetry/core';
import { withSpan } from '../../src/telemetry/span-context.ts';

const span: Span = trace.wrapSpanContext({
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  traceFlags: 1,
});
const A = createContextKey('test a');
const B = createContextKey('test b');

let manager: AsyncLocalStorageContextManager;
before(() => {
  manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
});
after(() => context.disable());

describe('the request context, against trace.setSpan', () => {
  test('the span, and every value of the parent', () => {
    const baggage = propagation.createBaggage({ tenant: { value: 'acme' } });
    const parent = propagation.setBaggage(ROOT_CONTEXT.setValue(A, 'a'), baggage);
    const ours = withSpan(parent, span);
    assert.equal(trace.getSpan(ours), span);
    assert.equal(ours.getValue(A), 'a');
    assert.equal(propagation.getBaggage(ours)?.getEntry('tenant')?.value, 'acme');
    assert.equal(trace.getSpan(parent), undefined, 'the parent is left as it was');
  });

  test('values set and deleted on top read the same as on the API context', () => {
    const parent = ROOT_CONTEXT.setValue(A, 'a').setValue(B, 'b');
    const sequences: Array<(c: Context) => Context> = [
      (c) => c.setValue(A, 'a2'),
      (c) => c.deleteValue(A),
      (c) => c.deleteValue(A).setValue(A, 'a3'),
      (c) => c.setValue(B, undefined),
      (c) => trace.deleteSpan(c),
      (c) => trace.setSpan(c, trace.wrapSpanContext({ ...span.spanContext(), spanId: '00f067aa0ba902b7' })),
    ];
    for (const apply of sequences) {
      const api = apply(trace.setSpan(parent, span));
      const ours = apply(withSpan(parent, span));
      for (const key of [A, B]) assert.equal(ours.getValue(key), api.getValue(key), String(apply));
      assert.equal(trace.getSpan(ours)?.spanContext().spanId, trace.getSpan(api)?.spanContext().spanId);
    }
  });

  test('inside context.with, the active span; a propagator injects the same traceparent', async () => {
    const seen = await context.with(withSpan(ROOT_CONTEXT, span), async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return trace.getActiveSpan();
    });
    assert.equal(seen, span);
    const propagator = new W3CTraceContextPropagator();
    const inject = (ctx: Context) => {
      const carrier: Record<string, string> = {};
      propagator.inject(ctx, carrier, { set: (c, k, v) => Object.assign(c, { [k]: v }) });
      return carrier;
    };
    assert.deepEqual(inject(withSpan(ROOT_CONTEXT, span)), inject(trace.setSpan(ROOT_CONTEXT, span)));
    assert.equal(
      inject(withSpan(ROOT_CONTEXT, span)).traceparent,
      `00-${span.spanContext().traceId}-b7ad6b7169203331-01`,
    );
  });

  test('tracing suppressed on top of it is suppressed', () => {
    const ours = withSpan(ROOT_CONTEXT, span);
    assert.equal(isTracingSuppressed(ours), false);
    assert.equal(isTracingSuppressed(suppressTracing(ours)), true);
  });
});

/**
 * The per-call bookkeeping of the dispatcher: the client's presence (a departed client aborts
 * what runs for it), the in-flight table notifications/cancelled looks requests up in, and
 * the deadline's handling of handlers that return or throw without a promise.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ProtocolError } from '../../src/base/errors.ts';
import { ClientPresence } from '../../src/protocol/exchange.ts';
import { InflightRequests } from '../../src/protocol/inflight.ts';
import { RequestContext } from '../../src/protocol/request-context.ts';
import { withDeadline } from '../../src/registry/deadline.ts';

function request(): { abort(reason: unknown): void; reasons: unknown[] } {
  const reasons: unknown[] = [];
  return { reasons, abort: (reason) => reasons.push(reason) };
}

describe('ClientPresence', () => {
  test('leaving aborts every request still tracked, one or many, with "the client went away"', () => {
    const presence = new ClientPresence();
    const [a, b, c, done] = [request(), request(), request(), request()];
    for (const r of [a, b, c, done]) presence.track(r);
    presence.untrack(done);
    presence.leave();
    for (const r of [a, b, c]) {
      assert.equal(r.reasons.length, 1);
      assert.ok(r.reasons[0] instanceof ProtocolError);
      assert.match((r.reasons[0] as Error).message, /the client went away/);
    }
    assert.deepEqual(done.reasons, []);
    assert.equal(presence.gone, true);
  });

  test('untracking the first request keeps the others tracked', () => {
    const presence = new ClientPresence();
    const [a, b] = [request(), request()];
    presence.track(a);
    presence.track(b);
    presence.untrack(a);
    presence.leave();
    assert.deepEqual(a.reasons, []);
    assert.equal(b.reasons.length, 1);
  });

  test('a request tracked after the client left is aborted at once; leaving twice aborts once', () => {
    const presence = new ClientPresence();
    const early = request();
    presence.track(early);
    presence.leave();
    presence.leave();
    assert.equal(early.reasons.length, 1);
    const late = request();
    presence.track(late);
    assert.equal(late.reasons.length, 1);
  });
});

describe('InflightRequests', () => {
  test('ids are kept as sent: 1 and "1" are different requests, and sessions do not mix', () => {
    const table = new InflightRequests<string>();
    table.add('s1', 1, 'number one');
    table.add('s1', '1', 'string one');
    table.add('s2', 1, 'other session');
    assert.equal(table.get('s1', 1), 'number one');
    assert.equal(table.get('s1', '1'), 'string one');
    assert.equal(table.get('s2', 1), 'other session');
    table.delete('s1', 1);
    assert.equal(table.get('s1', 1), undefined);
    assert.equal(table.get('s1', '1'), 'string one');
    assert.equal(table.get('s3', 1), undefined);
  });

  test('quiet sessions are dropped once they pile up; busy ones are kept', () => {
    const table = new InflightRequests<number>();
    table.add('busy', 7, 7);
    for (let i = 0; i < 5000; i++) {
      table.add(`s${i}`, 1, i);
      table.delete(`s${i}`, 1);
    }
    assert.ok(table.sessions <= 1025, `${table.sessions} maps kept`);
    assert.equal(table.get('busy', 7), 7);
  });
});

describe('withDeadline', () => {
  const ctx = () =>
    new RequestContext({
      requestId: 1,
      method: 'tools/call',
      wire: '2025',
      protocolVersion: '2025-11-25',
      session: undefined,
      clientCapabilities: {},
      clientInfo: undefined,
      identity: undefined,
      meta: undefined,
      channel: undefined,
      logger: undefined as never,
      logThreshold: undefined,
    });

  test('a handler that returns a plain value resolves with it', async () => {
    assert.equal(await withDeadline(ctx(), 1000, () => 42), 42);
  });

  test('a handler that throws without a promise rejects with its error, and clears its timer', async () => {
    const boom = new Error('boom');
    const c = ctx();
    await assert.rejects(
      withDeadline(c, 1000, () => {
        throw boom;
      }),
      (err) => err === boom,
    );
    assert.equal(c.onAbort, undefined);
  });

  test('an abort while the handler runs rejects at once with the reason', async () => {
    const c = ctx();
    const running = withDeadline(c, 10_000, () => new Promise(() => {}));
    const reason = new Error('the client went away');
    c.abort(reason);
    await assert.rejects(running, (err) => err === reason);
  });
});

/**
 * The table of upstream calls held for our clients' answers (plugins/proxy/parking.ts): its
 * four bounds (calls and estimated bytes, per client and overall) each refuse the call that
 * would pass them with a message naming the setting, leave what is held untouched, and free
 * their room when a call is let go; a call weighed again is not counted twice. Who a request's
 * calls count against: its authenticated client, else its 2025 session.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { HandlerContext } from '@mcp-toolkit/server';
import type { HeldCall } from '../../../plugins/proxy/held-call.ts';
import { Parking, parkingClient } from '../../../plugins/proxy/parking.ts';

const limits = { maxParked: 4, maxParkedPerClient: 2, maxParkedBytes: 1000, maxParkedBytesPerClient: 600 };
let n = 0;
/** The table reads nothing of a call but its id. */
const call = () => ({ id: `call-${++n}` }) as HeldCall;

describe('Parking', () => {
  test('a client past its count is refused; another client is not', () => {
    const p = new Parking(limits);
    const [a1, a2, a3, b1] = [call(), call(), call(), call()];
    assert.equal(p.park(a1, 'a', 10), undefined);
    assert.equal(p.park(a2, 'a', 10), undefined);
    assert.match(p.park(a3, 'a', 10) ?? '', /MCP_PROXY_MAX_PARKED_PER_CLIENT=2/);
    assert.equal(p.get(a3.id), undefined);
    assert.equal(p.park(b1, 'b', 10), undefined);
    assert.deepEqual(p.size, { count: 3, bytes: 30 });
    p.delete(a1.id);
    assert.equal(p.park(a3, 'a', 10), undefined);
    assert.equal(p.get(a3.id), a3);
  });

  test('the server past its count refuses whoever asks', () => {
    const p = new Parking(limits);
    for (const client of ['a', 'a', 'b', 'b']) assert.equal(p.park(call(), client, 1), undefined);
    assert.match(p.park(call(), 'c', 1) ?? '', /MCP_PROXY_MAX_PARKED=4/);
  });

  test('bytes: per client, then overall; a call weighed again counts once', () => {
    const p = new Parking(limits);
    const a = call();
    assert.equal(p.park(a, 'a', 500), undefined);
    // Weighed again at 590: 590, not 1090, so still under the client's 600.
    assert.equal(p.park(a, 'a', 590), undefined);
    assert.deepEqual(p.size, { count: 1, bytes: 590 });
    assert.match(p.park(call(), 'a', 20) ?? '', /MCP_PROXY_MAX_PARKED_BYTES_PER_CLIENT=600/);
    assert.equal(p.park(call(), 'b', 400), undefined);
    assert.match(p.park(call(), 'c', 100) ?? '', /MCP_PROXY_MAX_PARKED_BYTES=1000/);
    // A call weighed again past the bound is refused, and keeps its old weight.
    assert.match(p.park(a, 'a', 700) ?? '', /MCP_PROXY_MAX_PARKED_BYTES_PER_CLIENT/);
    assert.deepEqual(p.size, { count: 2, bytes: 990 });
    p.delete(a.id);
    p.delete(a.id);
    assert.deepEqual(p.size, { count: 1, bytes: 400 });
  });

  test('many calls of one client hold no more than its bound', () => {
    const p = new Parking({ ...limits, maxParked: 1_000_000, maxParkedPerClient: 1_000_000 });
    let held = 0;
    for (let i = 0; i < 40_000; i++) if (p.park(call(), 'a', 2_048) === undefined) held++;
    assert.equal(held, Math.floor(600 / 2_048));
    assert.ok(p.size.bytes <= 600);
  });

  test('whose calls they are: the authenticated client, else the session', () => {
    const ctx = (c: Partial<HandlerContext>) =>
      ({ identity: undefined, sessionId: undefined, ...c }) as HandlerContext;
    assert.equal(
      parkingClient(ctx({ identity: { clientId: 'k1', scopes: [] }, sessionId: 's' })),
      'client k1',
    );
    assert.equal(parkingClient(ctx({ sessionId: 's1' })), 'session s1');
    assert.equal(parkingClient(ctx({})), 'unauthenticated');
  });
});

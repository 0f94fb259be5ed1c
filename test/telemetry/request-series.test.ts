/**
 * The series cache (src/telemetry/request-series.ts) serves the kind of request it served last
 * without a map lookup: what it answers must be what the maps answer, request kinds
 * interleaved, and a kind that differs in any part of its key (transport, HTTP or MCP version,
 * a target known or not) gets its own series.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SeriesCache, type SeriesKey } from '../../src/telemetry/request-series.ts';

const call = (over: Partial<SeriesKey> = {}): SeriesKey => ({
  method: 'tools/call',
  target: 'add',
  known: true,
  transport: 'http',
  httpVersion: '1.1',
  protocolVersion: '2026-07-28',
  ...over,
});

test('the same kind gets the same series, kinds interleaved', () => {
  const cache = new SeriesCache(false);
  const add = cache.get(call());
  const list = cache.get(call({ method: 'tools/list', target: undefined, known: false }));
  assert.notEqual(add, list);
  assert.equal(cache.get(call()), add);
  assert.equal(cache.get(call({ method: 'tools/list', target: undefined, known: false })), list);
  // A key built anew (new strings with the same text) is the same kind.
  assert.equal(cache.get(call({ method: ['tools', 'call'].join('/'), target: `ad${'d'}` })), add);
});

test('a kind differing in one part of its key gets its own series, and the first again after it', () => {
  const cache = new SeriesCache(true);
  const add = cache.get(call());
  const variants: SeriesKey[] = [
    call({ target: 'sub' }),
    call({ known: false }),
    call({ transport: 'stdio', httpVersion: undefined }),
    call({ httpVersion: '2' }),
    call({ protocolVersion: '2025-11-25' }),
  ];
  for (const key of variants) {
    const other = cache.get(key);
    assert.notEqual(other, add, JSON.stringify(key));
    assert.equal(cache.get(key), other, JSON.stringify(key));
    assert.equal(cache.get(call()), add, `after ${JSON.stringify(key)}`);
  }
  // The client's unknown tool name is no part of the series: its name and metrics carry none.
  const unknown = cache.get(call({ known: false, target: 'nope' }));
  assert.equal(unknown.name, 'tools/call');
  assert.equal(unknown.ok.attributes['gen_ai.tool.name'], undefined);
  assert.equal(cache.get(call({ known: false })).name, 'tools/call');
  assert.equal(add.name, 'tools/call add');
});

test('an unknown method is _OTHER, asked once or twice in a row', () => {
  const cache = new SeriesCache(false);
  const first = cache.get(call({ method: 'x/unknown', target: undefined, known: false }));
  const second = cache.get(call({ method: 'x/unknown', target: undefined, known: false }));
  for (const series of [first, second]) {
    assert.equal(series.name, '_OTHER');
    assert.equal(series.ok.attributes['mcp.method.name'], '_OTHER');
  }
  assert.equal(cache.get(call()).name, 'tools/call add');
});

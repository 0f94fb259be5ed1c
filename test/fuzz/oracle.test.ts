/**
 * The fuzz oracle on its own: what a payload is owed (JSON-RPC 2.0 §4-§6), which server
 * messages are well-formed, and how answers settle what was owed: a check that passes
 * everything would make the fuzz suite worthless.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sseData } from './http-target.ts';
import { nestingDepth } from './json-text.ts';
import { malformed, NULL_ID, type Owed, owedFor, parseIds, settle } from './oracle.ts';
import { owedForLines } from './stdio-target.ts';
import { LIMITS } from './target.ts';

const options = { batches: 'allowed', maxBatch: 3, depthLimit: 64 } as const;
const ids = (text: string) => owedFor(text, options).singles.map((o) => [o.ids, o.optional]);
const ok = (id: unknown, result: unknown = {}) => ({ jsonrpc: '2.0', id, result });
const err = (id: unknown) => ({ jsonrpc: '2.0', id, error: { code: -32600, message: 'x' } });
const deep = (n: number) =>
  `{"jsonrpc":"2.0","id":7,"method":"ping","params":${'['.repeat(n)}${']'.repeat(n)}}`;

describe('what a payload is owed', () => {
  test('a request its id; a notification or a response nothing', () => {
    assert.deepEqual(ids('{"jsonrpc":"2.0","id":1,"method":"ping"}'), [[['n1'], false]]);
    assert.deepEqual(ids('{"jsonrpc":"2.0","id":"a","method":"x"}'), [[['s"a"'], false]]);
    assert.deepEqual(ids('{"jsonrpc":"2.0","method":"notifications/initialized"}'), []);
    assert.deepEqual(ids('{"jsonrpc":"2.0","id":1,"result":{}}'), []);
    assert.deepEqual(ids('{"jsonrpc":"2.0","id":null,"error":{}}'), []);
  });

  test('what is not JSON, or not a valid request, an answer with id null or the id it carries', () => {
    assert.deepEqual(ids('{"jsonrpc":"2.0",'), [[[NULL_ID], false]]);
    assert.deepEqual(ids('42'), [[[NULL_ID], false]]);
    assert.deepEqual(ids('{"jsonrpc":"2.0","id":true,"method":"ping"}'), [[[NULL_ID], false]]);
    assert.deepEqual(ids('{"jsonrpc":"2.0","id":1e400,"method":"ping"}'), [[[NULL_ID], false]]);
    assert.deepEqual(ids('{"jsonrpc":"1.0","id":3,"method":"ping"}'), [[['n3'], false]]);
    assert.deepEqual(ids('{"jsonrpc":"2.0","id":3,"method":"ping","params":[]}'), [[['n3'], false]]);
    assert.deepEqual(ids('{"jsonrpc":"2.0","id":3,"result":{},"error":{}}'), [[['n3'], false]]);
    assert.deepEqual(ids('{"jsonrpc":"2.0","id":-0,"method":"ping"}'), [[['n0'], false]]);
  });

  test('past the nesting limit: its id or id null; silence allowed only for a notification or response shape', () => {
    assert.equal(nestingDepth(deep(100)), 101);
    assert.deepEqual(ids(deep(100)), [[['n7', NULL_ID], false]]);
    assert.deepEqual(ids(deep(3)), [[['n7'], false]]);
    const note = `{"jsonrpc":"2.0","method":"x","params":{"a":${'['.repeat(99)}${']'.repeat(99)}}}`;
    assert.deepEqual(ids(note), [[[NULL_ID], true]]);
  });

  test('batches: member by member; empty or too large, one error', () => {
    const owing = owedFor(
      '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"},2]',
      options,
    );
    assert.deepEqual(
      owing.batches.map((b) => b.members.map((m) => m.ids)),
      [[['n1'], [NULL_ID]]],
    );
    assert.deepEqual(ids('[]'), [[[NULL_ID], false]]);
    assert.deepEqual(ids('[1,2,3,4]'), [[[NULL_ID], false]]);
  });

  test('notifications/cancelled names the request it cancels', () => {
    const owing = owedFor(
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r"}}',
      options,
    );
    assert.deepEqual(owing.cancels, ['s"r"']);
  });

  test('stdio: each line on its own; blank lines nothing; an over-long line one error', () => {
    const owing = owedForLines(
      '{"jsonrpc":"2.0","id":1,"method":"a"}\r\n  \n{"jsonrpc":"2.0","id":2,"method":"b"}',
    );
    assert.deepEqual(
      owing.singles.map((o) => o.ids),
      [['n1'], ['n2']],
    );
    const long = owedForLines(`"${'x'.repeat(LIMITS.maxBodyBytes)}"`);
    assert.deepEqual(
      long.singles.map((o) => o.ids),
      [[NULL_ID]],
    );
  });
});

describe('well-formed messages from the server', () => {
  test('a response, an error, a notification and a batch reply pass', () => {
    for (const m of [ok(1), err(null), { jsonrpc: '2.0', method: 'n', params: {} }, [ok(1), err(2)]]) {
      assert.equal(malformed(m), undefined, JSON.stringify(m));
    }
  });

  test('a string result, result with error, a missing id, a bad code or a wrong version fail', () => {
    for (const m of [
      ok(1, '[object Undefined]'),
      { ...ok(1), error: { code: 1, message: '' } },
      { jsonrpc: '2.0', result: {} },
      { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'x' } },
      { jsonrpc: '1.0', id: 1, result: {} },
      { error: 'Request Header Fields Too Large', statusCode: 431 },
      [],
    ]) {
      assert.notEqual(malformed(m), undefined, JSON.stringify(m));
    }
  });
});

describe('settling answers against what was owed', () => {
  const owing = owedFor('{"jsonrpc":"2.0","id":1,"method":"ping"}', options);

  test('one answer with the id settles; none is unanswered; two is one too many', () => {
    assert.deepEqual(settle(owing.singles, owing.batches, [ok(1)]).unanswered, []);
    assert.equal(settle(owing.singles, owing.batches, []).unanswered.length, 1);
    assert.equal(settle(owing.singles, owing.batches, [ok(1), ok(1)]).unexpected.length, 1);
    assert.equal(settle(owing.singles, owing.batches, [ok(2)]).unexpected.length, 1);
  });

  test('an integer id past Number.MAX_SAFE_INTEGER is settled only by the same digits', () => {
    const text = '{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}';
    const big = owedFor(text, options);
    assert.deepEqual(big.singles[0]!.ids, ['n12345678901234567890']);
    const exact = parseIds('{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}');
    const rounded = parseIds('{"jsonrpc":"2.0","id":12345678901234567000,"result":{}}');
    assert.equal(malformed(exact), undefined);
    assert.deepEqual(settle(big.singles, big.batches, [exact]).unanswered, []);
    assert.equal(settle(big.singles, big.batches, [rounded]).unexpected.length, 1);
    const cancel = owedFor(
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345678901234567891}}',
      options,
    );
    assert.deepEqual(cancel.cancels, ['n12345678901234567891']);
  });

  test('a notification answered is an answer nothing was owed for', () => {
    const n = owedFor('{"jsonrpc":"2.0","method":"notifications/initialized"}', options);
    assert.equal(settle(n.singles, n.batches, [err(null)]).unexpected.length, 1);
  });

  test('a batch reply must answer exactly its members', () => {
    const b = owedFor(
      '[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]',
      options,
    );
    assert.deepEqual(settle(b.singles, b.batches, [[ok(2), ok(1)]]).unanswered, []);
    assert.equal(settle(b.singles, b.batches, [[ok(1)]]).unexpected.length, 1);
    assert.equal(settle(b.singles, b.batches, [ok(1), ok(2)]).unanswered.length, 1);
  });

  test('batch replies go to batches that must be answered before optional ones', () => {
    const must = (): Owed => ({ ids: [NULL_ID], optional: false, note: 'must' });
    const may = (): Owed => ({ ids: [NULL_ID], optional: true, note: 'may' });
    const one = { members: [must(), may()], mayRefuse: false, note: 'one' };
    const two = { members: [must(), must()], mayRefuse: false, note: 'two' };
    const open = { members: [may()], mayRefuse: false, note: 'open' };
    const s = settle([], [open, one, two], [[err(null)], [err(null), err(null)]]);
    assert.deepEqual([s.unanswered, s.unexpected], [[], []]);
  });

  test('a reply that fits two deep batches leaves the one it was given open for its own reply', () => {
    // Two deep batches sent together: one whose members may all go unanswered, one with a
    // request. The id-null reply the first gets fits the second too; the second's own reply
    // (id 29) may then come later, and must not count as an answer nothing was owed for.
    const nested = `${'['.repeat(70)}${']'.repeat(70)}`;
    const quiet = owedFor(`[{"jsonrpc":"2.0","id":null,"result":{},"error":${nested}}]`, options);
    const asks = owedFor(
      `[{"jsonrpc":"2.0","id":${nested},"error":{}},{"jsonrpc":"2.0","id":29,"method":"completion/complete"}]`,
      options,
    );
    const batches = [...quiet.batches, ...asks.batches];
    const first = settle([], batches, [[err(null)]], 'exact');
    assert.deepEqual([first.unanswered, first.unexpected], [[], []]);
    const later = settle(first.open.singles, first.open.batches, [[ok(29)]], 'exact');
    assert.deepEqual([later.unanswered, later.unexpected], [[], []]);
    // Without the ambiguity a paid batch is not kept open: its reply coming twice is one too many.
    const alone = settle([], asks.batches, [[ok(29)]], 'exact');
    assert.equal(settle(alone.open.singles, alone.open.batches, [[ok(29)]]).unexpected.length, 1);
  });

  test('an id-null answer pays an id-null debt before one its own id may still pay', () => {
    const both = [...owedFor('{', options).singles, ...owedFor(deep(100), options).singles];
    const s = settle(both, [], [err(null)], 'exact');
    assert.equal(s.unanswered.length, 1);
    assert.match(s.unanswered[0]!, /n7/);
  });
});

test('SSE: the data of each event, the empty priming event left out', () => {
  const text =
    'id: 1\nretry: 10\nevent: message\ndata: \n\nevent: message\ndata: {"a":1}\n\n: keep-alive\n\n';
  assert.deepEqual(sseData(text), ['{"a":1}']);
});

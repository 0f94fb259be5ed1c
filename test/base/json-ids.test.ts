import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { idKey, idText, isBigId, parseKeepingIds, parseMessage } from '../../src/base/json-ids.ts';
import { classify } from '../../src/base/jsonrpc.ts';

const BIG = '12345678901234567890';

describe('parseMessage', () => {
  test('keeps the digits of a big id, a cancelled requestId and progress tokens', () => {
    const text = `[{"jsonrpc":"2.0","id":${BIG},"method":"tools/call","params":{"arguments":{"id":${BIG},"n":${BIG}},"_meta":{"progressToken":-${BIG}}}},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${BIG}}},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":${BIG}}}]`;
    type Params = { arguments: Record<string, unknown>; _meta: Record<string, unknown> } & Record<
      string,
      unknown
    >;
    const value = parseMessage(text) as { id?: unknown; params: Params }[];
    assert.ok(isBigId(value[0]!.id));
    assert.ok(isBigId(value[0]!.params._meta.progressToken));
    assert.ok(isBigId(value[1]!.params.requestId));
    assert.ok(isBigId(value[2]!.params.progressToken));
    // Tool arguments are read as JSON.parse reads them, whatever their key.
    assert.equal(typeof value[0]!.params.arguments.id, 'number');
    assert.equal(typeof value[0]!.params.arguments.n, 'number');
    assert.equal(
      JSON.stringify(value[0]!.id) + JSON.stringify(value[0]!.params._meta),
      `${BIG}{"progressToken":-${BIG}}`,
    );
  });

  test('leaves safe integers, fractions, exponents and strings as JSON.parse reads them', () => {
    for (const id of [
      '9007199254740991',
      '1234567890123456.5',
      '1e30',
      `"${BIG}"`,
      '12345678901234567890.0',
    ]) {
      const value = parseMessage(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`) as { id: unknown };
      assert.deepEqual(value.id, JSON.parse(id), id);
    }
  });

  test('a message classifies with a big id; idKey compares it by value, apart from its string', () => {
    const a = parseMessage(`{"jsonrpc":"2.0","id":${BIG},"method":"ping"}`) as { id: unknown };
    const b = parseMessage(`{"jsonrpc":"2.0","id":${BIG},"method":"ping"}`) as { id: unknown };
    const c = parseMessage(`{"jsonrpc":"2.0","id":12345678901234567891,"method":"ping"}`) as { id: unknown };
    assert.equal(classify(a).kind, 'request');
    assert.equal(idKey(a.id), idKey(b.id));
    assert.notEqual(idKey(a.id), idKey(c.id));
    assert.notEqual(idKey(a.id), idKey(BIG));
    assert.equal(idText(a.id), BIG);
    assert.equal(idText(7), '7');
  });

  test('a text nested past the reviver’s stack is still parsed; bad JSON still throws', () => {
    const deep = `{"id":${BIG},"a":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    assert.equal(typeof (parseMessage(deep) as { id: unknown }).id, 'number');
    assert.throws(() => parseMessage(`{"id":${BIG},`), SyntaxError);
  });

  test('parseKeepingIds follows the paths it is given', () => {
    const value = parseKeepingIds(`{"event":{"requestId":${BIG},"other":${BIG}}}`, [
      ['event', 'requestId'],
    ]) as {
      event: { requestId: unknown; other: unknown };
    };
    assert.ok(isBigId(value.event.requestId));
    assert.equal(typeof value.event.other, 'number');
  });
});

describe('parseMessage: one plain parse unless an id needs its digits', () => {
  test('a long run of digits outside the ids (a tool argument, a string) keeps plain JSON.parse', (t) => {
    const parse = t.mock.method(JSON, 'parse');
    const text = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"card","arguments":{"number":"4111111111111111","n":${BIG}}}}`;
    const value = parseMessage(text) as { params: { arguments: { n: unknown } } };
    assert.equal(typeof value.params.arguments.n, 'number');
    assert.equal(parse.mock.callCount(), 1);
    assert.equal(parse.mock.calls[0]!.arguments.length, 1, 'no reviver');
  });

  test('an unsafe id anywhere in a batch takes the reviver; a batch of safe ids does not', (t) => {
    const parse = t.mock.method(JSON, 'parse');
    const safe = parseMessage(
      '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]',
    );
    assert.equal(parse.mock.callCount(), 1);
    assert.deepEqual(
      (safe as { id: unknown }[]).map((m) => m.id),
      [1, 2],
    );
    const mixed = parseMessage(
      `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":${BIG},"method":"ping"}]`,
    );
    assert.equal(parse.mock.callCount(), 3, 'parsed again, with the reviver');
    assert.ok(isBigId((mixed as { id: unknown }[])[1]!.id));
    assert.equal(
      JSON.stringify(mixed),
      `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":${BIG},"method":"ping"}]`,
    );
  });
});

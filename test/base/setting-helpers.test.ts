/**
 * `setting`, the public pieces of a plugin's settings schema (docs/plugins.md, "Settings"):
 * each turns the environment's string into the value the plugin reads, gives the default when
 * the variable is unset, and refuses a bad value with a message saying what it accepts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { setting } from '../../src/index.ts';

/** The parsed value, or the first issue's message. */
function parse<T>(schema: z.ZodType<T>, value: string | undefined): T | { error: string } {
  const r = schema.safeParse(value);
  return r.success ? r.data : { error: r.error.issues[0]?.message ?? '' };
}

test('int: an integer in its range, the default when unset, the range in the message', () => {
  const n = setting.int(100, 1, 10_000);
  assert.equal(parse(n, undefined), 100);
  assert.equal(parse(n, ' 42 '), 42);
  for (const bad of ['0', '10001', '1.5', 'ten', '', '-3']) {
    assert.deepEqual(parse(n, bad), { error: 'expected an integer from 1 to 10000' }, bad);
  }
});

test('list: comma-separated, trimmed, blanks dropped; unset is the default (the empty list unless given)', () => {
  assert.deepEqual(parse(setting.list(), undefined), []);
  assert.deepEqual(parse(setting.list(), ' a, b ,,c '), ['a', 'b', 'c']);
  assert.deepEqual(parse(setting.list(['x']), undefined), ['x']);
  assert.deepEqual(parse(setting.list(['x']), ''), []);
});

test('bool: true/false, 1/0, yes/no, on/off in any case; anything else says what it accepts', () => {
  const b = setting.bool(false);
  assert.equal(parse(b, undefined), false);
  for (const yes of ['true', 'TRUE', '1', 'yes', 'On']) assert.equal(parse(b, yes), true, yes);
  for (const no of ['false', '0', 'no', 'off']) assert.equal(parse(b, no), false, no);
  assert.deepEqual(parse(b, 'maybe'), { error: 'expected true or false' });
  assert.equal(parse(setting.bool(true), undefined), true);
});

test('text: trimmed; blank is unset, or the default when one is given', () => {
  assert.equal(parse(setting.text(), undefined), undefined);
  assert.equal(parse(setting.text(), '   '), undefined);
  assert.equal(parse(setting.text(), '  hello '), 'hello');
  assert.equal(parse(setting.text('fallback'), ''), 'fallback');
  assert.equal(parse(setting.text('fallback'), 'given'), 'given');
});

test('url: an absolute http(s) URL or unset; the example goes into the message', () => {
  const u = setting.url({ example: 'https://api.example.com/v1' });
  assert.equal(parse(u, undefined), undefined);
  assert.equal(parse(u, ' https://api.example.com/v1 '), 'https://api.example.com/v1');
  for (const bad of ['ftp://example.com/', 'api.example.com', 'file:///etc/passwd', 'http://']) {
    assert.deepEqual(
      parse(u, bad),
      { error: 'expected an http(s) URL, e.g. https://api.example.com/v1' },
      bad,
    );
  }
  assert.deepEqual(parse(setting.url(), 'nope'), { error: 'expected an http(s) URL' });
});

test('oneOf: one of the values, the default when unset, the values in the message', () => {
  const mode = setting.oneOf(['fast', 'safe'], 'safe');
  assert.equal(parse(mode, undefined), 'safe');
  assert.equal(parse(mode, 'fast'), 'fast');
  assert.deepEqual(parse(mode, 'quick'), { error: 'expected one of fast, safe' });
});

test('the pieces make a plugin schema whose parsed settings are typed', () => {
  const schema = z.object({ maxNotes: setting.int(100, 1, 10_000), tags: setting.list() });
  const parsed = schema.parse({ maxNotes: '7' });
  const count: number = parsed.maxNotes;
  const tags: string[] = parsed.tags;
  assert.deepEqual({ count, tags }, { count: 7, tags: [] });
});

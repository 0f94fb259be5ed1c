/**
 * Patterns of raw JSON Schemas (src/registry/linear-pattern.ts): matched by RE2 in linear time
 * with JavaScript's meaning (a differential check against V8 over a corpus of patterns and
 * values), the exponential `^(a+)+$` answered at once, patterns RE2 cannot take run under the
 * budget (a catastrophic one fails the one value, not the process), and a tool whose JSON
 * Schema carries the exponential pattern answers its caller and another caller alike.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { definePlugin, defineTool } from '../../src/index.ts';
import { compilePattern, PatternBudgetExceeded, toRe2Syntax } from '../../src/registry/linear-pattern.ts';
import { compileJsonSchema } from '../../src/registry/schema.ts';
import { TestClient } from '../../src/testing/client/test-client.ts';
import { startServer } from '../helpers/client.ts';

const EVIL = 'a'.repeat(40) + '!';

/**
 * A benign value on the budgeted engine, tried again when the budget ran out anyway: the
 * budget is wall-clock time, and on a machine loaded to an average of 20 a process can be
 * descheduled for longer than the whole budget. What is checked is the answer, not the time.
 */
function unhurried<T>(run: () => T): T {
  for (let attempt = 1; ; attempt++) {
    try {
      return run();
    } catch (err) {
      if (!(err instanceof PatternBudgetExceeded) || attempt === 5) throw err;
    }
  }
}

const PATTERNS = [
  '^(a+)+$',
  '^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$',
  '^\\d{4}-\\d{2}-\\d{2}$',
  '^\\s*$',
  '\\S+',
  '^.+$',
  '^[\\s\\d]+$',
  '\\u00e9',
  '\\u{1F600}',
  '\\uD83D\\uDE00',
  '^\\w+$',
  '\\bword\\b',
  '^(?<year>\\d{4})$',
  '[^/]+/[^/]+',
  '^\\p{Lu}\\p{Ll}+$',
  '\\cJ',
  '\\0',
  'a{2,5}',
  '^[\\-+]?\\d+(\\.\\d+)?$',
  '\\$\\{[^}]+\\}',
];
const VALUES = [
  '',
  'a',
  'aaaa',
  EVIL,
  'joe@example.com',
  '2026-12-01',
  '   ',
  '\u00a0\u2003',
  'line\nbreak',
  'line\rbreak',
  'café',
  '😀',
  'a word here',
  'Hello',
  'ÉCOLE',
  'x/y',
  '\n',
  '\0',
  '-12.5',
  '\u0024{HOME}',
  'sword',
];

describe('a JSON Schema pattern is matched in linear time, with JavaScript meaning', () => {
  test('RE2 agrees with V8 on a corpus of patterns and values', () => {
    for (const pattern of PATTERNS) {
      const compiled = compilePattern(pattern);
      assert.equal(compiled.engine, 're2', `${pattern} → ${toRe2Syntax(pattern)}`);
      const native = new RegExp(pattern, 'u');
      for (const value of VALUES) {
        if (pattern === '^(a+)+$' && value === EVIL) continue; // V8 would take hours
        assert.equal(compiled.test(value), native.test(value), `${pattern} on ${JSON.stringify(value)}`);
      }
    }
  });

  test('the exponential pattern answers at once, even on a long value', () => {
    const p = compilePattern('^(a+)+$');
    assert.equal(p.test(EVIL), false);
    assert.equal(p.test(`${'a'.repeat(100_000)}!`), false);
    assert.equal(p.test('a'.repeat(100_000)), true);
  });

  test('a pattern JavaScript refuses is refused (the schema is invalid)', () => {
    assert.throws(() => compilePattern('([a-z'), SyntaxError);
    // RE2 would take this one; JavaScript (with the u flag) does not.
    assert.throws(() => compilePattern('(?i)abc'), SyntaxError);
  });

  test('what RE2 cannot match runs on V8 under the budget', () => {
    const lookahead = compilePattern('^(?=.*\\d)[a-z\\d]+$');
    assert.equal(lookahead.engine, 'budgeted');
    assert.equal(
      unhurried(() => lookahead.test('abc1')),
      true,
    );
    assert.equal(
      unhurried(() => lookahead.test('abc')),
      false,
    );
    const backref = compilePattern('^(a)\\1$');
    assert.equal(backref.engine, 'budgeted');
    assert.equal(
      unhurried(() => backref.test('aa')),
      true,
    );
    // Exponential and not RE2's: stopped at the budget, for this value only.
    const evil = compilePattern('^(?=a)(a+)+$');
    assert.throws(() => evil.test(EVIL), PatternBudgetExceeded);
    assert.equal(
      unhurried(() => evil.test('aaa')),
      true,
    );
  });

  test('a budgeted pattern that runs out fails that value as invalid', () => {
    const schema = compileJsonSchema({
      type: 'object',
      properties: { v: { type: 'string', pattern: '^(?=a)(a+)+$' } },
    });
    const r = schema.validate({ v: EVIL });
    assert.equal(r.ok, false);
    assert.match(
      r.ok ? '' : (r.issues[0] ?? ''),
      /could not be checked against the pattern .* within \d+ ms/,
    );
    const fine = unhurried(() => {
      const again = schema.validate({ v: 'aaaa' });
      if (!again.ok && again.issues.some((i) => i.includes('could not be checked'))) {
        throw new PatternBudgetExceeded('^(?=a)(a+)+$');
      }
      return again.ok;
    });
    assert.equal(fine, true);
  });

  test('patternProperties keys are matched the same way', () => {
    const schema = compileJsonSchema({
      type: 'object',
      patternProperties: { '^(a+)+$': { type: 'number' } },
      additionalProperties: false,
    });
    assert.equal(schema.validate({ [EVIL]: 1 }).ok, false);
    assert.equal(schema.validate({ aaa: 1 }).ok, true);
    assert.equal(schema.validate({ aaa: 'x' }).ok, false);
  });
});

describe('a tool with an exponential pattern in its JSON Schema', () => {
  const tool = defineTool(
    {
      name: 'match',
      description: 'Takes a value matching ^(a+)+$',
      input: { type: 'object', properties: { value: { type: 'string', pattern: '^(a+)+$' } } },
    },
    async () => 'matched',
  );
  const echo = defineTool(
    { name: 'echo', description: 'Echoes', input: { type: 'object', properties: { t: { type: 'string' } } } },
    async (args) => String((args as { t?: string }).t),
  );

  test('the hostile argument is refused while another caller is answered', async () => {
    const plugin = definePlugin({
      name: 'patterns',
      register(app) {
        app.add(tool);
        app.add(echo);
      },
    });
    const server = await startServer({ plugins: [plugin] });
    const hostile = await TestClient.start({ server });
    const other = await TestClient.start({ server });
    try {
      const [refused, answered] = await Promise.all([
        hostile.callTool('match', { value: EVIL }),
        other.callTool('echo', { t: 'still here' }),
      ]);
      assert.equal(refused.isError, true);
      assert.match(JSON.stringify(refused.content), /must match pattern/);
      assert.equal(answered.isError, undefined);
      assert.match(JSON.stringify(answered.content), /still here/);
      assert.notEqual((await hostile.callTool('match', { value: 'aaa' })).isError, true);
    } finally {
      await hostile.close();
      await other.close();
      await server.close();
    }
  });
});

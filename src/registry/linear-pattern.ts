/**
 * The regular-expression engine behind `pattern` and `patternProperties` in raw JSON Schemas
 * (the ones that arrive as JSON: a proxied upstream's tools, an OpenAPI document's operations,
 * a tool defined with a JSON Schema). Such a pattern is written by someone else, and a
 * backtracking engine lets one pattern and one argument hold the event loop for minutes
 * (`^(a+)+$` against `"a" * 30 + "!"`): every other caller waits.
 *
 * So a pattern is matched by RE2 (`re2js`, a pure-JavaScript port: time linear in the input,
 * whatever the pattern), after its ECMA-262 escapes are rewritten into RE2's spelling. The few
 * patterns RE2 has no linear-time way to match (lookaround, back-references, repeat counts
 * over 1000, `\p{Script=...}`) run on V8's own engine in a `node:vm` context with a hard
 * budget of {@link PATTERN_BUDGET_MS}: past it the match is stopped and the one value fails
 * validation with {@link PatternBudgetExceeded}. docs/security.md states the cost.
 */
import vm from 'node:vm';
import { RE2JS } from 're2js';

/** The most a pattern RE2 cannot take may run for one value, on V8's backtracking engine. */
export const PATTERN_BUDGET_MS = 100;

/** Thrown by `test` when a budgeted pattern ran out of time on a value. */
export class PatternBudgetExceeded extends Error {
  override name = 'PatternBudgetExceeded';
  readonly pattern: string;
  constructor(pattern: string) {
    super(
      `the value could not be checked against the pattern ${JSON.stringify(pattern)} within ${PATTERN_BUDGET_MS} ms`,
    );
    this.pattern = pattern;
  }
}

/** What Ajv needs of a compiled pattern (its `code.regExp` option). */
export interface LinearPattern {
  /** Whether the pattern matches anywhere in `value` (JSON Schema patterns are not anchored). */
  test(value: string): boolean;
  /** Which engine matches it: `re2` (linear time) or `budgeted` (V8, under the budget). */
  readonly engine: 're2' | 'budgeted';
  toString(): string;
}

// ECMA-262 WhiteSpace and LineTerminator (what `\s` means in JavaScript); RE2's `\s` is ASCII.
const JS_SPACE =
  '\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';
// ECMA-262 `.` stops at every line terminator; RE2's only at `\n`.
const JS_DOT = '[^\\n\\r\\x{2028}\\x{2029}]';

const hex = (code: number) => `\\x{${code.toString(16).toUpperCase()}}`;

/**
 * Rewrites the ECMA-262 spellings RE2 reads differently or not at all: `\uXXXX` (surrogate
 * pairs joined), `\u{...}`, `\cX`, `\0`, `\s`/`\S` and `.` with JavaScript's meaning. Anything
 * else passes as it is; what RE2 then refuses goes to the budgeted engine.
 */
export function toRe2Syntax(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '\\') {
      const n = pattern[i + 1];
      const u4 = /^u([0-9A-Fa-f]{4})/.exec(pattern.slice(i + 1));
      if (u4) {
        let code = Number.parseInt(u4[1] as string, 16);
        i += 5;
        const low = /^\\u(D[C-F][0-9A-Fa-f]{2})/i.exec(pattern.slice(i + 1));
        if (code >= 0xd800 && code <= 0xdbff && low) {
          code = 0x10000 + ((code - 0xd800) << 10) + (Number.parseInt(low[1] as string, 16) - 0xdc00);
          i += 6;
        }
        out += hex(code);
        continue;
      }
      const braced = /^u\{([0-9A-Fa-f]{1,6})\}/.exec(pattern.slice(i + 1));
      if (braced) {
        out += hex(Number.parseInt(braced[1] as string, 16));
        i += braced[0].length;
        continue;
      }
      if (n === 'c' && /[A-Za-z]/.test(pattern[i + 2] ?? '')) {
        out += hex((pattern.charCodeAt(i + 2) as number) % 32);
        i += 2;
        continue;
      }
      if (n === '0' && !/[0-9]/.test(pattern[i + 2] ?? '')) {
        out += hex(0);
        i += 1;
        continue;
      }
      if (n === 's') {
        out += inClass ? JS_SPACE : `[${JS_SPACE}]`;
        i += 1;
        continue;
      }
      if (n === 'S' && !inClass) {
        out += `[^${JS_SPACE}]`;
        i += 1;
        continue;
      }
      out += c + (n ?? '');
      i += 1;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      continue;
    }
    out += c === '.' ? JS_DOT : c;
  }
  return out;
}

function budgeted(pattern: string, native: RegExp): LinearPattern {
  const sandbox = vm.createContext({ re: native, value: '' });
  const run = new vm.Script('re.test(value)');
  return {
    engine: 'budgeted',
    test(value) {
      sandbox.value = value;
      try {
        return run.runInContext(sandbox, { timeout: PATTERN_BUDGET_MS }) as boolean;
      } catch (err) {
        if ((err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
          throw new PatternBudgetExceeded(pattern);
        }
        throw err;
      } finally {
        sandbox.value = '';
      }
    },
    toString: () => `budgeted:/${pattern}/`,
  };
}

/**
 * Compiles one JSON Schema pattern (ECMA-262 syntax, with the `u` flag as Ajv uses it). A
 * pattern JavaScript itself refuses throws a SyntaxError, as Ajv's own engine would.
 *
 * @example
 * compilePattern('^(a+)+$').test('a'.repeat(30) + '!'); // false, in microseconds
 */
export function compilePattern(pattern: string, flags = 'u'): LinearPattern {
  // The pattern must be one JavaScript accepts: RE2 takes some that JavaScript does not.
  const native = new RegExp(pattern, flags);
  let re2: RE2JS | undefined;
  try {
    re2 = RE2JS.compile(toRe2Syntax(pattern));
  } catch {
    re2 = undefined;
  }
  if (re2 === undefined) return budgeted(pattern, native);
  const compiled = re2;
  return {
    engine: 're2',
    test: (value) => compiled.test(value),
    toString: () => `re2:/${pattern}/`,
  };
}

/** Ajv's `code.regExp` option: patterns compiled by {@link compilePattern}. */
export const linearRegExp = Object.assign(
  (pattern: string, flags: string) => compilePattern(pattern, flags),
  {
    code: 'compilePattern',
  },
);

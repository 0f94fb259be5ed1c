/**
 * The subset of RFC 6570 that resource templates use in practice: `{var}` (one path segment,
 * percent-decoded) and `{+var}` (reserved expansion: may span `/`). Matching is anchored and
 * compiled once per template.
 *
 * A template may come from outside the code (a proxied upstream's templates), and the URI
 * matched against it from the caller. With two or more expressions a backtracking engine takes
 * time polynomial in the URI's length on a URI that fails late (`x{+a}{+b}...{+j}y` against
 * thirty thousand characters does not finish), holding the event loop for every other caller;
 * such a template is matched by RE2 (`re2js`, linear time). A template with one expression is
 * anchored at both ends, which keeps V8's own engine linear, and it is the common case.
 */
import { RE2JS } from 're2js';
import { InternalCode, ToolkitError } from '../base/errors.ts';

export interface UriTemplate {
  readonly source: string;
  readonly variables: readonly string[];
  match(uri: string): Record<string, string> | undefined;
}

const EXPR = /\{(\+?)([A-Za-z0-9_]+)\}/g;

/** `{+var}`: anything up to a line terminator, as V8's `.` (RE2's `.` stops at `\n` only). */
const RESERVED = '([^\\n\\r\\u2028\\u2029]+)';
const SEGMENT = '([^/?#]+)';

/** The captured groups of `uri`, or undefined: V8 for one expression, RE2 for more. */
function matcherFor(
  pattern: string,
  expressions: number,
): (uri: string) => (string | undefined)[] | undefined {
  if (expressions < 2) {
    const re = new RegExp(pattern);
    return (uri) => re.exec(uri)?.slice(1);
  }
  const re2 = RE2JS.compile(pattern.replaceAll('\\u2028', '\\x{2028}').replaceAll('\\u2029', '\\x{2029}'));
  return (uri) => {
    const m = re2.matcher(uri);
    if (!m.matches()) return undefined;
    return Array.from({ length: expressions }, (_, i) => m.group(i + 1) ?? undefined);
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function compileTemplate(source: string): UriTemplate {
  if (typeof source !== 'string' || source === '') {
    throw new ToolkitError(InternalCode.InvalidDefinition, 'A resource template needs a uriTemplate');
  }
  const variables: string[] = [];
  const reserved: boolean[] = [];
  let pattern = '^';
  let last = 0;
  for (const m of source.matchAll(EXPR)) {
    pattern += escapeRegExp(source.slice(last, m.index));
    const isReserved = m[1] === '+';
    pattern += isReserved ? RESERVED : SEGMENT;
    variables.push(m[2] as string);
    reserved.push(isReserved);
    last = m.index + m[0].length;
  }
  const rest = source.slice(last);
  if (rest.includes('{') || rest.includes('}')) {
    throw new ToolkitError(
      InternalCode.InvalidDefinition,
      `Resource template ${source}: only {var} and {+var} expressions are supported`,
    );
  }
  pattern += `${escapeRegExp(rest)}$`;
  const groups = matcherFor(pattern, variables.length);
  return Object.freeze({
    source,
    variables: Object.freeze(variables),
    match(uri: string) {
      const m = groups(uri);
      if (!m) return undefined;
      const out: Record<string, string> = {};
      for (let i = 0; i < variables.length; i++) {
        const raw = m[i] as string;
        try {
          out[variables[i] as string] = reserved[i] ? decodeURI(raw) : decodeURIComponent(raw);
        } catch {
          return undefined;
        }
      }
      return out;
    },
  });
}

/**
 * The subset of RFC 6570 that resource templates use in practice: `{var}` (one path segment,
 * percent-decoded) and `{+var}` (reserved expansion: may span `/`). Matching is anchored and
 * compiled once per template.
 */
import { InternalCode, ToolkitError } from '../base/errors.ts';

export interface UriTemplate {
  readonly source: string;
  readonly variables: readonly string[];
  match(uri: string): Record<string, string> | undefined;
}

const EXPR = /\{(\+?)([A-Za-z0-9_]+)\}/g;

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
    pattern += isReserved ? '(.+)' : '([^/?#]+)';
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
  const re = new RegExp(pattern);
  return Object.freeze({
    source,
    variables: Object.freeze(variables),
    match(uri: string) {
      const m = re.exec(uri);
      if (!m) return undefined;
      const out: Record<string, string> = {};
      for (let i = 0; i < variables.length; i++) {
        const raw = m[i + 1] as string;
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

/**
 * JSON texts for the fuzz suite, built from a small tree rather than from JS values, so that
 * a message can hold what a JS object cannot or should not: a key `__proto__` as an own key,
 * a key given twice, a number as written (`1e400`, `-0`, 30 digits), a value nested 50,000
 * levels deep (written iteratively; never built as an object the fuzzer would have to
 * serialise recursively), or a string of 300 KB (kept as its length, so a counterexample
 * prints small).
 */

export type JsonNode =
  | null
  | boolean
  | number
  | string
  | { readonly t: 'num'; readonly text: string }
  | { readonly t: 'arr'; readonly items: readonly JsonNode[] }
  | { readonly t: 'obj'; readonly entries: readonly (readonly [string, JsonNode])[] }
  | {
      readonly t: 'deep';
      readonly depth: number;
      readonly shape: 'array' | 'object' | 'mixed';
      readonly key: string;
      readonly leaf: JsonNode;
    }
  | { readonly t: 'pad'; readonly bytes: number };

export const obj = (...entries: (readonly [string, JsonNode])[]): JsonNode => ({ t: 'obj', entries });
export const arr = (...items: JsonNode[]): JsonNode => ({ t: 'arr', items });

/** The JSON text of a node. Recursive over the tree, which is shallow: depth lives in `deep` nodes. */
export function toText(node: JsonNode): string {
  if (node === null || typeof node === 'boolean') return String(node);
  if (typeof node === 'number') return Number.isFinite(node) ? JSON.stringify(node) : 'null';
  if (typeof node === 'string') return JSON.stringify(node);
  switch (node.t) {
    case 'num':
      return node.text;
    case 'pad':
      return `"${'x'.repeat(node.bytes)}"`;
    case 'arr':
      return `[${node.items.map(toText).join(',')}]`;
    case 'obj':
      return `{${node.entries.map(([k, v]) => `${JSON.stringify(k)}:${toText(v)}`).join(',')}}`;
    case 'deep': {
      const key = JSON.stringify(node.key);
      const leaf = toText(node.leaf);
      if (node.shape === 'array') return '['.repeat(node.depth) + leaf + ']'.repeat(node.depth);
      if (node.shape === 'object') return `{${key}:`.repeat(node.depth) + leaf + '}'.repeat(node.depth);
      const half = Math.ceil(node.depth / 2);
      const rest = node.depth - half;
      return (
        `[{${key}:`.repeat(rest) +
        '['.repeat(half - rest) +
        leaf +
        ']'.repeat(half - rest) +
        '}]'.repeat(rest)
      );
    }
  }
}

/**
 * How deeply a JSON text nests arrays and objects (a top-level object is 1), by scanning it:
 * no recursion, so any depth can be measured. Meaningful for texts that parse.
 */
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > max) max = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/**
 * Strings that match a `pattern` (ECMA-262 regular expressions, as JSON Schema uses them), so a
 * field constrained by one gets generated values instead of silencing its tool's calls. Built on
 * randexp, made deterministic: the first sample takes every quantifier at its minimum and every
 * class at its first character; the others come from a PRNG seeded with the pattern, so a run
 * generates the same inputs (and the same test names) every time. Callers validate each sample
 * against the whole schema: a construct randexp cannot honour (lookarounds, `\p{...}`) yields a
 * string that is then dropped.
 */
import RandExpModule from 'randexp';

// randexp is CommonJS with an `exports.default`; the loader may or may not unwrap it.
type RandExpClass = typeof RandExpModule.default;
const RandExp: RandExpClass =
  (RandExpModule as unknown as { default?: RandExpClass }).default ??
  (RandExpModule as unknown as RandExpClass);

/** How far past a quantifier's minimum an open one (`*`, `+`, `{n,}`) may go. */
const OPEN_QUANTIFIER_MAX = 8;

/** A small deterministic PRNG (mulberry32), seeded from the pattern text. */
function seeded(text: string, salt: number): () => number {
  let state = salt;
  for (let i = 0; i < text.length; i++) state = Math.imul(state ^ text.charCodeAt(i), 2654435761);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Up to `count` distinct strings generated from `pattern`, simplest first; none when the pattern
 * does not compile.
 *
 * @example
 * patternSamples('^[A-Z]{3}-\\d{2}$'); // ['AAA-00', ...]
 */
export function patternSamples(pattern: string, count = 3): string[] {
  try {
    new RegExp(pattern, 'u');
  } catch {
    return [];
  }
  const out = new Set<string>();
  for (let n = 0; n < count * 2 && out.size < count; n++) {
    let gen: InstanceType<RandExpClass>;
    try {
      gen = new RandExp(pattern);
    } catch {
      return [...out];
    }
    gen.max = OPEN_QUANTIFIER_MAX;
    const random = seeded(pattern, n);
    gen.randInt =
      n === 0 ? (a: number) => a : (a: number, b: number) => a + Math.floor(random() * (b - a + 1));
    try {
      out.add(gen.gen());
    } catch {
      // A construct randexp cannot generate: no sample from this pattern.
      return [...out];
    }
  }
  return [...out];
}

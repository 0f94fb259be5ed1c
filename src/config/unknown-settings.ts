/**
 * `MCP_*` variables that nothing reads. A mistyped name (`MCP_TRNSPORT=http`) would otherwise
 * leave the default in force without a word, so start-up logs a warning and `doctor` fails a
 * check for each one, with the closest name that is a setting.
 */

/** `MCP_*` variables read by the project's tooling rather than by the server. */
const TOOLING_VARIABLES: ReadonlySet<string> = new Set([
  // test/helpers/spec-schema.ts: where the test suite finds the specification's JSON Schemas.
  'MCP_SPEC_SCHEMAS_DIR',
]);

export interface UnknownSetting {
  readonly name: string;
  /** The known setting closest to `name`, when one is close enough to be a typo of it. */
  readonly suggestion: string | undefined;
}

/** Optimal string alignment distance: edits, where swapping two neighbours counts as one. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i, ...Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i]!;
    const prev = rows[i - 1]!;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
      }
    }
  }
  return rows[a.length]![b.length]!;
}

/** The closest of `known` to `name`, if within a typo's reach (about one edit in four letters). */
export function closestName(name: string, known: Iterable<string>): string | undefined {
  const body = name.replace(/^MCP_/, '');
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(body, candidate.replace(/^MCP_/, ''));
    if (best === undefined || distance < best.distance) best = { name: candidate, distance };
  }
  if (best === undefined) return undefined;
  return best.distance <= Math.max(1, Math.min(3, Math.floor(body.length / 4))) ? best.name : undefined;
}

/**
 * The `MCP_*` variables of `env` that are neither in `known` (the core settings and those of
 * the loaded plugins) nor read by the project's tooling; empty values count as unset.
 *
 * @example
 * unknownSettings({ MCP_TRNSPORT: 'http' }, ['MCP_TRANSPORT']);
 * // → [{ name: 'MCP_TRNSPORT', suggestion: 'MCP_TRANSPORT' }]
 */
export function unknownSettings(
  env: Readonly<Record<string, string | undefined>>,
  known: Iterable<string>,
): UnknownSetting[] {
  const names = new Set(known);
  return Object.keys(env)
    .filter((name) => name.startsWith('MCP_') && env[name] !== undefined && env[name] !== '')
    .filter((name) => !names.has(name) && !TOOLING_VARIABLES.has(name))
    .sort()
    .map((name) => ({ name, suggestion: closestName(name, names) }));
}

/** `MCP_TRNSPORT is not a setting; did you mean MCP_TRANSPORT?` */
export function describeUnknownSetting(unknown: UnknownSetting): string {
  return unknown.suggestion
    ? `${unknown.name} is not a setting; did you mean ${unknown.suggestion}?`
    : `${unknown.name} is not a setting of the server or of a loaded plugin (see docs/configuration.md)`;
}

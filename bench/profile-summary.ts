/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, e.g. from `node bench/run.ts --profile DIR`):
 * where the samples fall by area (our code, each package, Node internals, GC, idle) and the
 * top functions by self time and by inclusive time.
 * Usage: `node bench/profile-summary.ts FILE.cpuprofile [--top N] [--from S]`; `--from` skips the
 * first S seconds of the profile (start-up: module loading, plugin registration).
 * `--compare OTHER.cpuprofile --requests A,B` puts two profiles side by side in µs per request
 * (A and B: the requests each server answered while profiled, e.g. summed from the run's JSON),
 * by area and by function, sorted by what OTHER spends more: where a feature's cost goes.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface Row {
  name: string;
  ms: number;
  share: number;
}

/** The area a frame belongs to: `src/<dir>`, `bench`, a package name, `node:internal`, or a V8 pseudo-frame. */
export function areaOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node:internal';
  const own = /\/(src\/[^/]+|bench|plugins\/[^/]+)\//.exec(url);
  return own ? own[1]! : url;
}

function frameName(n: ProfileNode): string {
  const { functionName, url, lineNumber } = n.callFrame;
  const file = url.replace(/^.*\/(node_modules\/|src\/|bench\/)/, '$1');
  return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
}

function top(map: Map<string, number>, totalMs: number, n: number): Row[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, ms]) => ({ name, ms, share: ms / totalMs }));
}

/** Self time per node (ms), from the sample ids and the time deltas between samples. */
export function summarise(
  profile: Profile,
  n = 25,
  fromSec = 0,
): { totalMs: number; areas: Row[]; self: Row[]; inclusive: Row[] } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMs = new Map<number, number>();
  let atUs = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    atUs += delta;
    if (atUs >= fromSec * 1e6) selfMs.set(id, (selfMs.get(id) ?? 0) + delta / 1000);
  });
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  let totalMs = 0;
  const areas = new Map<string, number>();
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, ms] of selfMs) {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') continue;
    totalMs += ms;
    const area = areaOf(node.callFrame.url, node.callFrame.functionName);
    areas.set(area, (areas.get(area) ?? 0) + ms);
    self.set(frameName(node), (self.get(frameName(node)) ?? 0) + ms);
    // Inclusive time: credit each distinct function on the stack once (recursion counted once).
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)!;
      if (frame.callFrame.url === '' && frame.callFrame.functionName === '(root)') continue;
      const name = frameName(frame);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
    }
  }
  return {
    totalMs,
    areas: top(areas, totalMs, n),
    self: top(self, totalMs, n),
    inclusive: top(inclusive, totalMs, n),
  };
}

function print(title: string, rows: Row[]): void {
  console.log(`\n${title}`);
  for (const r of rows)
    console.log(`${(r.share * 100).toFixed(1).padStart(6)}%  ${r.ms.toFixed(0).padStart(7)} ms  ${r.name}`);
}

export interface Delta {
  name: string;
  /** µs per request in A and in B. */
  a: number;
  b: number;
}

/** µs per request of each area and function in two profiles, sorted by B − A (largest first). */
export function compareProfiles(
  a: Profile,
  b: Profile,
  requests: readonly [number, number],
  fromSec = 0,
): { totals: [number, number]; areas: Delta[]; self: Delta[] } {
  const side = (p: Profile, requestCount: number) => {
    const s = summarise(p, Number.POSITIVE_INFINITY, fromSec);
    const per = (rows: Row[]) => new Map(rows.map((r) => [r.name, (r.ms * 1000) / requestCount]));
    return { total: (s.totalMs * 1000) / requestCount, areas: per(s.areas), self: per(s.self) };
  };
  const x = side(a, requests[0]);
  const y = side(b, requests[1]);
  const deltas = (ax: Map<string, number>, bx: Map<string, number>): Delta[] =>
    [...new Set([...ax.keys(), ...bx.keys()])]
      .map((name) => ({ name, a: ax.get(name) ?? 0, b: bx.get(name) ?? 0 }))
      .sort((p, q) => q.b - q.a - (p.b - p.a));
  return { totals: [x.total, y.total], areas: deltas(x.areas, y.areas), self: deltas(x.self, y.self) };
}

function printCompare(result: ReturnType<typeof compareProfiles>, n: number): void {
  const [ta, tb] = result.totals;
  console.log(`µs per request: ${ta.toFixed(1)} → ${tb.toFixed(1)} (${(tb - ta).toFixed(1)} more)`);
  for (const [title, rows] of [
    ['by area (self time)', result.areas],
    ['by function (self time)', result.self],
  ] as const) {
    console.log(`\n${title}: A µs/req, B µs/req, B − A`);
    for (const r of rows.slice(0, n))
      console.log(
        `${r.a.toFixed(2).padStart(8)} ${r.b.toFixed(2).padStart(8)} ${(r.b - r.a).toFixed(2).padStart(8)}  ${r.name}`,
      );
  }
}

const USAGE =
  'usage: node bench/profile-summary.ts FILE.cpuprofile [--top N] [--from S] [--compare OTHER.cpuprofile --requests A,B]';

if (import.meta.main) {
  const file = process.argv[2];
  if (file === undefined || file === '--help' || file === '-h' || file.startsWith('--')) {
    console.error(USAGE);
    process.exit(file === '--help' || file === '-h' ? 0 : 2);
  }
  const i = process.argv.indexOf('--top');
  const n = i > 0 ? Number(process.argv[i + 1]) : 25;
  const f = process.argv.indexOf('--from');
  const fromSec = f > 0 ? Number(process.argv[f + 1]) : 0;
  const load = (path: string): Profile => {
    try {
      return JSON.parse(readFileSync(path, 'utf8')) as Profile;
    } catch (error) {
      console.error(`cannot read the profile ${path}: ${(error as Error).message}\n${USAGE}`);
      process.exit(2);
    }
  };
  const profile = load(file);
  const c = process.argv.indexOf('--compare');
  if (c > 0) {
    const r = process.argv.indexOf('--requests');
    const requests = (r > 0 ? (process.argv[r + 1] ?? '') : '').split(',').map(Number);
    if (requests.length !== 2 || !requests.every((v) => v > 0)) {
      console.error('--compare needs --requests A,B: the requests each profiled server answered');
      process.exit(2);
    }
    const other = load(process.argv[c + 1] ?? '');
    printCompare(compareProfiles(profile, other, requests as [number, number], fromSec), n);
    process.exit(0);
  }
  const { totalMs, areas, self, inclusive } = summarise(profile, n, fromSec);
  console.log(`busy time sampled: ${totalMs.toFixed(0)} ms (idle excluded)`);
  print('by area (self time)', areas);
  print('top functions by self time', self);
  print('top functions by inclusive time', inclusive);
}

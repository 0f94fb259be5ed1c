/**
 * Prints a results file of `bench/run.ts` as the Markdown tables of docs/performance.md.
 * Usage: `node bench/to-markdown.ts [bench/results/latest.json]`.
 */
import { readFileSync } from 'node:fs';
import type { Results } from './harness/report.ts';

function n(value: number | undefined | null, digits = 0): string {
  return value === undefined || value === null || Number.isNaN(value) ? '–' : value.toFixed(digits);
}

function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

export function toMarkdown(results: Results): string {
  const out: string[] = [];
  const m = results.machine;
  out.push(
    `Run of ${results.generatedAt}: ${String(m.nproc)} cores (${String(m.cpuModel)}), Node ${String(m.node)}, ` +
      `${m.pinned ? 'servers pinned to core 0, load to core 1' : `unpinned (${String(m.note)})`}, ` +
      `load average ${JSON.stringify(m.loadavgBefore)} before and ${JSON.stringify(m.loadavgAfter)} after; ` +
      `${String(results.options.rounds)} rounds of ${String(results.options.durationSec)} s` +
      (results.options.processes === undefined
        ? ', '
        : results.options.processes === 1
          ? ' on one process of each HTTP server, '
          : ` on ${String(results.options.processes)} processes of each HTTP server in turn, `) +
      `${String(results.options.connections)} connections, HTTP load by ${String(results.options.load ?? 'autocannon')}.`,
    '',
  );
  out.push(
    row(['scenario', 'server', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'server busy', 'load busy']),
  );
  out.push(row(['---', '---', '---:', '---:', '---:', '---:', '---:', '---:']));
  for (const [id, scenario] of Object.entries(results.scenarios)) {
    for (const [i, r] of Object.values(scenario.servers).entries()) {
      const md = r.median;
      const status = r.status === 'ok' ? '' : ` (${r.status})`;
      out.push(
        row([
          i === 0 ? `${id}: ${scenario.title}` : '',
          `${r.label}${status}`,
          n(md?.rps),
          n(md?.p50Ms, 3),
          n(md?.p99Ms, 3),
          n(md?.cpuUsPerReq),
          md ? `${n(md.serverBusy * 100)}%` : '–',
          md ? `${n(md.loadBusy * 100)}%` : '–',
        ]),
      );
    }
  }
  out.push('', row(['ratio', 'req/s', 'CPU/req', 'p50', 'target (req/s)', 'verdict']));
  out.push(row(['---', '---:', '---:', '---:', '---:', '---']));
  for (const r of results.ratios) {
    const verdict =
      r.met === null ? (r.value === null ? 'not measured' : 'informative') : r.met ? 'met' : '**missed**';
    const target = r.target === null ? '–' : `≥ ${r.target}`;
    out.push(row([r.name, n(r.value, 2), n(r.cpuValue, 2), n(r.p50Value, 2), target, verdict]));
  }
  if (results.memory.length > 0) {
    out.push(
      '',
      row(['memory, idle 2025-wire sessions', 'sessions', 'RSS before MiB', 'RSS after MiB', 'KiB/session']),
    );
    out.push(row(['---', '---:', '---:', '---:', '---:']));
    for (const x of results.memory) {
      out.push(
        row([
          x.label,
          x.status === 'ok' ? String(x.sessions) : `n/a: ${x.error ?? ''}`,
          n(x.rssBeforeKiB === undefined ? undefined : x.rssBeforeKiB / 1024, 1),
          n(x.rssAfterKiB === undefined ? undefined : x.rssAfterKiB / 1024, 1),
          n(x.perSessionKiB, 1),
        ]),
      );
    }
  }
  if (results.startup.length > 0) {
    out.push(
      '',
      row(['start-up over stdio (spawn → initialize answered)', 'median ms']),
      row(['---', '---:']),
    );
    for (const s of results.startup)
      out.push(row([s.label, s.status === 'ok' ? n(s.medianMs) : `n/a: ${s.error ?? ''}`]));
  }
  const ins = results.instructions;
  if (ins !== undefined && ins.skipped === undefined) {
    out.push(
      '',
      row([
        `instructions per request (main thread without GC, ${ins.requests} after ${ins.warmup} warm-up)`,
        'instructions',
        'other threads',
      ]),
      row(['---', '---:', '---:']),
    );
    for (const f of ins.figures) out.push(row([f.server, n(f.perRequest), n(f.otherThreadsPerRequest)]));
    for (const r of ins.ratios)
      out.push(
        row([
          r.name,
          n(r.value, 3),
          r.limit === null ? 'informative' : `≤ ${r.limit}: ${r.met ? 'met' : '**missed**'}`,
        ]),
      );
  }
  return out.join('\n');
}

if (import.meta.main) {
  const file = process.argv[2] ?? 'bench/results/latest.json';
  console.log(toMarkdown(JSON.parse(readFileSync(file, 'utf8')) as Results));
}

/**
 * Counts the findings of the kit's third-party corpus, the figures of docs/testing.md ("What the
 * kit is sure of"), from a run of its pinned tests:
 *
 *   CORPUS_TALLY=/tmp/tally.jsonl node scripts/test.ts test/testing/third-party.test.ts \
 *     test/testing/third-party-frameworks.test.ts
 *   node scripts/corpus-figures.ts /tmp/tally.jsonl
 *
 * Each line of the tally is one `check` run whose findings the tests pinned (helpers/pinned.ts):
 * the server, its transport, and each finding's rule, level and status.
 */
import { readFileSync } from 'node:fs';

interface Run {
  server: string;
  transport: string;
  wires: string[];
  findings: { id: string; level: string; status: string }[];
}

const file = process.argv[2];
if (file === undefined) {
  process.stderr.write('usage: node scripts/corpus-figures.ts <tally.jsonl>\n');
  process.exit(2);
}
const runs = readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as Run);
const findings = runs.flatMap((r) => r.findings);
const count = (level: string, status: string) =>
  findings.filter((f) => f.level === level && f.status === status).length;
const servers = [...new Set(runs.map((r) => r.server))].sort();

const lines = [
  `servers: ${servers.length} (${servers.join(', ')})`,
  `runs: ${runs.length} (${runs.filter((r) => r.transport === 'stdio').length} stdio, ${runs.filter((r) => r.transport === 'http').length} HTTP)`,
  `pinned findings: ${findings.length}`,
  `MUST: ${count('MUST', 'fail')} failures, ${count('MUST', 'warn')} warnings`,
  `SHOULD: ${count('SHOULD', 'warn')} warnings, ${count('SHOULD', 'fail')} failures`,
  `house: ${count('HOUSE', 'warn')} warnings`,
  `MUST and SHOULD findings: ${findings.filter((f) => f.level !== 'HOUSE').length}`,
  'by rule:',
  ...[...new Set(findings.map((f) => `${f.id} ${f.level} ${f.status}`))]
    .sort()
    .map((k) => `  ${k}: ${findings.filter((f) => `${f.id} ${f.level} ${f.status}` === k).length}`),
];
process.stdout.write(`${lines.join('\n')}\n`);

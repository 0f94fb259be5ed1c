/**
 * JUnit XML for CI, from `check` and `test` alike, valid against the Jenkins JUnit schema: one
 * `<testsuite>` named after the target (URL or command line, also its `target` property) and
 * one `<testcase>` per check or generated test, its `classname` the check
 * (`tools.unknown-tool`, `test.schema-call`), so a CI page groups findings by rule and says
 * what was tested. The target is not put in a testcase `file` attribute: the schema has none,
 * and the CI annotators that read it resolve it as a source path in the repository. Failures
 * carry the level, the fix and the rule's address; warnings pass with the finding in
 * `<system-out>`; checks not run are `<skipped>` with the reason as text. The file is
 * rewritten (written beside, then renamed) after every verdict, so a run killed half-way
 * leaves a valid report of what it had judged.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Level } from '../conformance/check-catalog.ts';
import type { CheckStatus } from '../conformance/recorder.ts';

export interface JUnitCase {
  /** The check or family id: JUnit `classname`. */
  classname: string;
  /** The test name: a check's id and title, or a generated test's name. */
  name: string;
  status: CheckStatus;
  level: Level;
  reason?: string;
  fix: string;
  source: string;
  spec: string;
  durationMs?: number;
  notes?: readonly string[];
}

export interface JUnitSuite {
  /** e.g. `mcp-toolkit check`. */
  name: string;
  /** The URL or command line: the suite's name and its `target` property. */
  target: string;
  properties?: Readonly<Record<string, string | undefined>>;
}

// XML 1.0 forbids most control characters even escaped; a server's text may carry them.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly the characters removed
const INVALID_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

export function xmlEscape(text: string): string {
  return text
    .replace(INVALID_XML, '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

const attr = (name: string, value: string) => ` ${name}="${xmlEscape(value)}"`;

function seconds(ms: number | undefined): string {
  return ((ms ?? 0) / 1000).toFixed(3);
}

function detail(c: JUnitCase): string {
  return `${c.reason ?? ''}\n[${c.level}] fix: ${c.fix}\nrule: ${c.source}: ${c.spec}`;
}

function renderCase(c: JUnitCase): string {
  const open = `    <testcase${attr('name', c.name)}${attr('classname', c.classname)}${attr('time', seconds(c.durationMs))}`;
  const body: string[] = [];
  const firstLine = (c.reason ?? 'failed').split('\n')[0] as string;
  if (c.status === 'fail') {
    body.push(
      `      <failure${attr('message', firstLine)}${attr('type', c.level)}>${xmlEscape(detail(c))}</failure>`,
    );
  } else if (c.status === 'not-run') {
    body.push(`      <skipped>${xmlEscape(`not run: ${firstLine}`)}</skipped>`);
  }
  const out = [...(c.status === 'warn' ? [`WARNING ${detail(c)}`] : []), ...(c.notes ?? [])];
  if (out.length > 0) body.push(`      <system-out>${xmlEscape(out.join('\n'))}</system-out>`);
  return body.length === 0 ? `${open}/>` : `${open}>\n${body.join('\n')}\n    </testcase>`;
}

/** The whole document for the cases so far. */
export function renderJUnit(suite: JUnitSuite, cases: readonly JUnitCase[], startedAt: Date): string {
  const failures = cases.filter((c) => c.status === 'fail').length;
  const skipped = cases.filter((c) => c.status === 'not-run').length;
  const time = seconds(cases.reduce((sum, c) => sum + (c.durationMs ?? 0), 0));
  const counts = `${attr('tests', String(cases.length))}${attr('failures', String(failures))}${attr('errors', '0')}`;
  const props = Object.entries({ target: suite.target, ...suite.properties })
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => `      <property${attr('name', k)}${attr('value', v)}/>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attr('name', suite.name)}${counts}${attr('time', time)}>`,
    `  <testsuite${attr('name', `${suite.name}: ${suite.target}`)}${counts}${attr('skipped', String(skipped))}${attr('time', time)}${attr('timestamp', startedAt.toISOString().slice(0, 19))}${attr('hostname', hostname())}>`,
    '    <properties>',
    ...props,
    '    </properties>',
    ...cases.map(renderCase),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/**
 * Keeps a JUnit file up to date as verdicts arrive.
 *
 * @example
 * const junit = new JUnitWriter('mcp.xml', { name: 'mcp-toolkit check', target: url });
 * await conformanceReport(url, { onCheck: (c) => junit.add(checkCase(c)) });
 * junit.flush();
 */
export class JUnitWriter {
  readonly file: string;
  readonly #suite: JUnitSuite;
  readonly #cases: JUnitCase[] = [];
  readonly #started = new Date();

  constructor(file: string, suite: JUnitSuite) {
    this.file = file;
    this.#suite = { ...suite };
    this.flush();
  }

  /** Extra suite properties learned during the run (the negotiated protocol version). */
  setProperty(name: string, value: string): void {
    this.#suite.properties = { ...this.#suite.properties, [name]: value };
  }

  add(c: JUnitCase): void {
    this.#cases.push(c);
    this.flush();
  }

  /** Replaces the last case with the same classname and name (a verdict revised by a baseline). */
  replace(c: JUnitCase): void {
    const i = this.#cases.findLastIndex((x) => x.classname === c.classname && x.name === c.name);
    if (i === -1) this.#cases.push(c);
    else this.#cases[i] = c;
  }

  /** Writes the document beside the file and renames it over, so a reader never sees half of it. */
  flush(): void {
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, renderJUnit(this.#suite, this.#cases, this.#started));
    renameSync(tmp, this.file);
  }
}

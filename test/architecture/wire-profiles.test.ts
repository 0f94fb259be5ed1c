/**
 * One wire profile per protocol generation (docs/internals/architecture.md, "The wire profiles"): the
 * profile is chosen once, where a message is first classified, and every rule that differs
 * between the stateful 2025 wire and the stateless 2026 wire is asked of it. The test fails,
 * naming file:line, when code under src/, plugins/ (the bundled plugins, which read
 * wire-neutral facts of the context such as `ctx.inputRoundsInRequest`) or examples/ (what users
 * copy from) compares the wire or a
 * protocol version to choose what to do. Exempt: the profiles themselves (src/protocol/wires/),
 * where every dated rule lives, and the test kit (src/testing/): it is a client, which speaks
 * to any server, ours or another, on whichever wire and revision it is asked to, and judges
 * each answer by the rules of the revision it spoke; it must compare versions to do so, and it
 * may not import the server's profiles (it reaches the server only through the public entries).
 * src/base/versions.ts names the revisions and is scanned like any other file.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCANNED = [path.join(ROOT, 'src'), path.join(ROOT, 'plugins'), path.join(ROOT, 'examples')];
const EXEMPT = ['src/protocol/wires/', 'src/testing/'];

/** A comparison operator, spaced as the formatter writes one (`=>` and `<T>` are not one). */
const OP = String.raw`\s(?:[!=]==?|[<>]=?)\s`;
/** A revision as a literal (`'2025-11-25'`) or one of the constants naming revisions. */
const REVISION = String.raw`(?:['"\`]20\d\d-\d\d-\d\d['"\`]|\b[A-Z_]*VERSIONS?(?:_[A-Z0-9]+)*\b|\bLATEST_\w+)`;

/** What choosing behaviour by the wire or the version looks like, with the reason named in a failure. */
const PATTERNS: readonly { why: string; re: RegExp }[] = [
  { why: 'compares the wire', re: new RegExp(String.raw`\bwire\s*${OP}\s*['"\`]20\d\d`) },
  { why: 'compares the wire', re: new RegExp(String.raw`['"\`]20\d\d['"\`]\s*${OP}\s*[\w.?#]*\bwire\b`) },
  { why: 'switches on the wire', re: /\bcase\s*['"`]20\d\d['"`]\s*:/ },
  { why: 'asks whether the request is on the 2026 wire', re: /\b\w*[Mm]odern\w*\b/ },
  { why: 'compares a protocol version', re: new RegExp(String.raw`${OP}\s*${REVISION}`) },
  { why: 'compares a protocol version', re: new RegExp(String.raw`${REVISION}\s*${OP}`) },
  { why: 'orders protocol versions', re: /\b\w*[vV]ersion\s[<>]=?\s/ },
  { why: 'orders protocol versions', re: /\s[<>]=?\s+[\w.?]*[vV]ersion\b/ },
  {
    why: 'looks a version up in the revision list',
    re: /\b[A-Z_]*VERSIONS\w*\s*\.\s*(?:includes|indexOf)\(/,
  },
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The file's lines with comments blanked (a comment may well say "the 2026 wire"). */
function codeLines(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '));
  return text.split('\n').map((line) => line.replace(/(^|[^:'"`\\])\/\/.*$/, '$1'));
}

/** Every place under src/, plugins/ and examples/ (exemptions aside) that matches one of PATTERNS, as `file:line: why: code`. */
function wireDecisions(): string[] {
  const found: string[] = [];
  for (const file of SCANNED.flatMap(sources)) {
    const rel = path.relative(ROOT, file).split(path.sep).join('/');
    if (EXEMPT.some((e) => rel === e || rel.startsWith(e))) continue;
    codeLines(file).forEach((line, i) => {
      const hit = PATTERNS.find((p) => p.re.test(line));
      if (hit) found.push(`${rel}:${i + 1}: ${hit.why}: ${line.trim()}`);
    });
  }
  return found;
}

test('outside the wire profiles no code compares the wire or a protocol version to choose behaviour', () => {
  const found = wireDecisions();
  assert.deepEqual(found, []);
});

test('the scan reaches the bundled plugins, the examples and the files the version rules left', () => {
  const scanned = SCANNED.flatMap(sources).map((f) => path.relative(ROOT, f).split(path.sep).join('/'));
  for (const file of [
    'plugins/proxy/forward.ts',
    'plugins/proxy/index.ts',
    'src/protocol/dispatcher.ts',
    'src/base/versions.ts',
    'src/execution/results.ts',
    'src/transports/edge/post.ts',
    'examples/stdio-client.ts',
  ]) {
    assert.ok(scanned.includes(file), `${file} is scanned`);
  }
});

test('the patterns catch the shapes such a decision takes', () => {
  const samples = [
    "if (ctx.wire === '2026') return {};",
    "return record.wire !== '2025' ? a : b;",
    "case '2026':",
    'const modern = isModernRequest(req, headers);',
    "const resumable = session.protocolVersion >= '2025-11-25';",
    'if (version !== VERSION_2026) throw x;',
    'if (ctx.protocolVersion < CORE_TASKS_VERSION) throw x;',
    'if (version >= extra.since) caps = more;',
    'if (!SUPPORTED_VERSIONS.includes(pv)) refuse();',
  ];
  const missed = samples.filter((s) => !PATTERNS.some((p) => p.re.test(s)));
  assert.deepEqual(missed, []);
  const innocent = [
    "if (info.protocolVersion !== '') attributes.v = info.protocolVersion;",
    'const f = (version: string) => version;',
    'series.protocolVersion === key.protocolVersion',
    'wire: profile.wire,',
    'supportedVersions: SUPPORTED_VERSIONS,',
  ];
  const flagged = innocent.filter((s) => PATTERNS.some((p) => p.re.test(s)));
  assert.deepEqual(flagged, []);
});

/**
 * The user pages say what the code does now: no diary (times of day, rounds of work, internal
 * issue numbers), the benchmark page is short, holds no account of past runs, and its commands,
 * files and options exist, and the
 * observability page's rule for request lines is what a server writes. (Settings, commands,
 * scripts and error codes named anywhere in the docs are checked by test/deploy/docs.test.ts
 * and test/docs/errors-doc.test.ts; code blocks by test/docs/code-blocks.test.ts.)
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { USAGE as BENCH_USAGE } from '../../bench/harness/options.ts';
import { docPages } from '../helpers/doc-blocks.ts';
import { CLI, childEnv, REPO_ROOT } from '../helpers/spawn-server.ts';

const read = (page: string) => readFileSync(path.join(REPO_ROOT, page), 'utf8');

test('no page reads like a diary or cites internal issue numbers', () => {
  const diary =
    /(until|since|before|after) [0-2][0-9]:[0-5][0-9]|the [0-2][0-9]:[0-5][0-9] run|this session|(first|second|third|fourth|fifth) round|\bissue \d+|\(issue \d+\)/i;
  const found = docPages().flatMap((page) =>
    read(page)
      .split('\n')
      .map((line, i) => ({ page, line: i + 1, text: line }))
      .filter(({ text }) => diary.test(text))
      .map(({ page, line, text }) => `${page}:${line}: ${text.trim().slice(0, 120)}`),
  );
  assert.deepEqual(found, []);
});

test('performance.md: the figures lead, and its commands, files and options exist', () => {
  const page = read('docs/performance.md');
  const headings = [...page.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
  assert.equal(headings[0], 'Current figures');
  assert.ok(headings.includes('How to reproduce'));
  assert.match(page, /<!-- results:start[\s\S]*\| ratio \|[\s\S]*<!-- results:end -->/);
  for (const [, file] of page.matchAll(/\bnode (bench\/[\w/-]+\.ts)/g)) {
    assert.ok(existsSync(path.join(REPO_ROOT, file!)), `${file} exists`);
  }
  for (const [, file] of page.matchAll(/`(bench\/(?:servers|harness)\/[\w-]+\.ts)`/g)) {
    assert.ok(existsSync(path.join(REPO_ROOT, file!)), `${file} exists`);
  }
  const options = page.slice(page.indexOf('Options: '), page.indexOf('For figures worth comparing'));
  const named = [...options.matchAll(/`(--[a-z-]+)/g)].map((m) => m[1]!);
  assert.ok(named.length >= 10, `options listed: ${named.join(' ')}`);
  for (const option of named) assert.ok(BENCH_USAGE.includes(option), `bench/run.ts takes ${option}`);
});

test("performance.md states today's figures: short, and no account of past runs or cuts", () => {
  const page = read('docs/performance.md');
  const lines = page.split('\n').length - 1;
  assert.ok(lines < 250, `${lines} lines: reference detail belongs in bench/'s own files`);
  // Prose at the docs' width (tables, code and the generated results aside), so the line
  // count cannot be met by widening the lines.
  const prose = page
    .replace(/<!-- results:start[\s\S]*?<!-- results:end -->/, '')
    .replace(/```[\s\S]*?```/g, '')
    .split('\n')
    .filter((line) => !line.startsWith('|') && [...line].length > 100);
  assert.deepEqual(prose, [], 'lines over 100 characters');
  const found = page.split('\n').filter((line) => HISTORY.test(line));
  assert.deepEqual(found, []);
});

/** Words of a changelog or a lab notebook: history is git's, the docs say what is. */
const HISTORY =
  /\b(first|second|third|fourth|fifth|sixth|seventh|eighth|earlier|previous|last) runs?\b|\bbefore (the|this) (cut|change)|\bcut \d\b|\bused to\b|\bno longer\b|\b(shipped|added|landed) (in|on|since) (v?\d|\d{4}-\d\d)/i;

test('roadmap.md says what comes next, and no history', () => {
  const headings = [...read('docs/roadmap.md').matchAll(/^## (.+)$/gm)].map((m) => m[1]);
  assert.deepEqual(headings, ['Next']);
  const found = read('docs/roadmap.md')
    .split('\n')
    .filter((line) => HISTORY.test(line));
  assert.deepEqual(found, []);
});

test('observability.md: every request gets a request line, the handshake and refusals included; notifications none', async () => {
  assert.match(read('docs/observability.md'), /Every MCP request writes one `info` line/);
  const lines = [
    { jsonrpc: '2.0', id: 'early', method: 'tools/list' },
    {
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 'ping', method: 'ping' },
    { jsonrpc: '2.0', id: 'unknown', method: 'no/such-method' },
  ];
  const child = spawn(process.execPath, [CLI, 'run'], {
    cwd: REPO_ROOT,
    env: childEnv({ MCP_PLUGINS: 'conformance', MCP_LOG_LEVEL: 'info' }),
    stdio: 'pipe',
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  let answered = 0;
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    answered += c.split('\n').length - 1;
    if (answered >= 4) child.stdin.end();
  });
  for (const line of lines) child.stdin.write(`${JSON.stringify(line)}\n`);
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await new Promise((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  const requests = stderr
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { msg: string; requestId?: string; method?: string; outcome?: string })
    .filter((l) => l.msg === 'mcp request');
  const byId = new Map(requests.map((r) => [r.requestId, r]));
  assert.deepEqual([...byId.keys()].sort(), ['early', 'init', 'ping', 'unknown'], stderr);
  assert.equal(byId.get('early')?.outcome, 'error');
  assert.equal(byId.get('unknown')?.outcome, 'error');
  assert.equal(byId.get('init')?.outcome, 'ok');
  assert.ok(!requests.some((r) => r.method === 'notifications/initialized'));
});

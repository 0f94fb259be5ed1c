/**
 * `mcp-toolkit install <client>` against temporary home folders: each client's file lands
 * where that client reads it (per OS and scope) in that client's shape; an existing file is
 * merged without touching other servers or keys and kept as `.bak`; --dry-run writes nothing;
 * a file that is not JSON is refused and left alone; and the stdio entry written really starts
 * this server, which answers initialize.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { installCommand } from '../../src/cli/install.ts';
import { CliUsageError } from '../../src/cli/usage.ts';
import { CLI, childEnv, REPO_ROOT } from '../helpers/spawn-server.ts';

const base = mkdtempSync(path.join(tmpdir(), 'mcp-install-'));
after(() => rmSync(base, { recursive: true, force: true }));
let n = 0;

/** A fresh home and project folder, and an install runner bound to them. */
function setup(platform: NodeJS.Platform = 'linux') {
  const home = path.join(base, `home-${++n}`);
  const project = path.join(base, `project-${n}`);
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  const env =
    platform === 'win32'
      ? { USERPROFILE: home, APPDATA: path.join(home, 'AppData', 'Roaming') }
      : { HOME: home };
  const install = async (args: string[]) => {
    const out: string[] = [];
    const code = await installCommand(
      args,
      env,
      { out: (t) => out.push(t), err: (t) => out.push(t) },
      { platform, cwd: project },
    );
    return { code, out: out.join('') };
  };
  return { home, project, install };
}

const readJson = (file: string) =>
  JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, Record<string, unknown>>>;

describe('where each client keeps its file', () => {
  const cases: [string, NodeJS.Platform, string[], (home: string, project: string) => string][] = [
    [
      'claude-desktop',
      'darwin',
      [],
      (h) => path.join(h, 'Library/Application Support/Claude/claude_desktop_config.json'),
    ],
    ['claude-desktop', 'win32', [], (h) => path.join(h, 'AppData/Roaming/Claude/claude_desktop_config.json')],
    ['claude-desktop', 'linux', [], (h) => path.join(h, '.config/Claude/claude_desktop_config.json')],
    ['claude-code', 'linux', [], (h) => path.join(h, '.claude.json')],
    ['claude-code', 'linux', ['--scope', 'project'], (_h, p) => path.join(p, '.mcp.json')],
    ['cursor', 'darwin', [], (h) => path.join(h, '.cursor/mcp.json')],
    ['cursor', 'linux', ['--scope', 'project'], (_h, p) => path.join(p, '.cursor/mcp.json')],
    ['vscode', 'darwin', [], (h) => path.join(h, 'Library/Application Support/Code/User/mcp.json')],
    ['vscode', 'linux', [], (h) => path.join(h, '.config/Code/User/mcp.json')],
    ['vscode', 'linux', ['--scope', 'project'], (_h, p) => path.join(p, '.vscode/mcp.json')],
    ['windsurf', 'win32', [], (h) => path.join(h, '.codeium/windsurf/mcp_config.json')],
  ];
  for (const [client, platform, extra, where] of cases) {
    test(`${client} on ${platform} ${extra.join(' ')}`, async () => {
      const { home, project, install } = setup(platform);
      const r = await install([client, ...extra, '--env', 'MCP_FILESYSTEM_READ_ONLY=true']);
      assert.equal(r.code, 0, r.out);
      const file = where(home, project);
      assert.ok(existsSync(file), `${file} written:\n${r.out}`);
      const key = client === 'vscode' ? 'servers' : 'mcpServers';
      const entry = readJson(file)[key]?.['mcp-toolkit'];
      assert.ok(entry, JSON.stringify(readJson(file)));
      assert.equal(entry.command, process.execPath);
      assert.deepEqual(entry.args, [CLI, 'run', '--transport', 'stdio', '--cwd', project]);
      assert.deepEqual(entry.env, { MCP_FILESYSTEM_READ_ONLY: 'true' });
      if (client === 'vscode' || client === 'claude-code') assert.equal(entry.type, 'stdio');
    });
  }
});

describe('HTTP servers', () => {
  const shapes: Record<string, Record<string, unknown>> = {
    'claude-code': { type: 'http', url: 'https://mcp.example.test/mcp', headers: { 'X-API-Key': 'k' } },
    cursor: { url: 'https://mcp.example.test/mcp', headers: { 'X-API-Key': 'k' } },
    vscode: { type: 'http', url: 'https://mcp.example.test/mcp', headers: { 'X-API-Key': 'k' } },
    windsurf: { serverUrl: 'https://mcp.example.test/mcp', headers: { 'X-API-Key': 'k' } },
  };
  for (const [client, shape] of Object.entries(shapes)) {
    test(`${client}: the client's own shape of a remote entry`, async () => {
      const { install } = setup();
      const r = await install([
        client,
        '--url',
        'https://mcp.example.test/mcp',
        '--header',
        'X-API-Key: k',
        '--dry-run',
      ]);
      assert.equal(r.code, 0);
      const printed = JSON.parse(r.out.slice(r.out.indexOf('{'), r.out.lastIndexOf('}') + 1)) as Record<
        string,
        Record<string, unknown>
      >;
      assert.deepEqual(Object.values(printed)[0]?.['mcp-toolkit'], shape);
    });
  }

  test('claude-desktop refuses a URL (its file takes stdio servers only)', async () => {
    const { install } = setup();
    await assert.rejects(install(['claude-desktop', '--url', 'https://mcp.example.test/mcp']), CliUsageError);
  });
});

describe('merging', () => {
  test('other servers and keys stay; the previous file is kept as .bak', async () => {
    const { home, install } = setup();
    const file = path.join(home, '.claude.json');
    const before = {
      numStartups: 7,
      mcpServers: { other: { command: 'other-server', args: [] } },
      projects: { '/x': {} },
    };
    writeFileSync(file, JSON.stringify(before));
    const r = await install(['claude-code', '--name', 'files']);
    assert.equal(r.code, 0, r.out);
    const after = readJson(file) as unknown as typeof before & { mcpServers: Record<string, unknown> };
    assert.equal(after.numStartups, 7);
    assert.deepEqual(after.projects, { '/x': {} });
    assert.deepEqual(after.mcpServers.other, before.mcpServers.other);
    assert.ok(after.mcpServers.files);
    assert.equal(readFileSync(`${file}.bak`, 'utf8'), JSON.stringify(before));
    assert.match(r.out, /Added the server "files"/);
    // Again: the entry is replaced, not duplicated.
    const again = await install(['claude-code', '--name', 'files', '--env', 'MCP_LOG_LEVEL=debug']);
    assert.match(again.out, /Replaced the server "files"/);
    assert.deepEqual(Object.keys(readJson(file).mcpServers ?? {}), ['other', 'files']);
  });

  test('--dry-run prints the change and writes nothing', async () => {
    const { home, install } = setup();
    const r = await install(['cursor', '--dry-run']);
    assert.equal(r.code, 0);
    assert.match(r.out, /would get/);
    assert.match(r.out, /"mcp-toolkit"/);
    assert.equal(existsSync(path.join(home, '.cursor')), false);
  });

  test('a file that is not JSON is refused and left as it is', async () => {
    const { home, install } = setup();
    const file = path.join(home, '.cursor', 'mcp.json');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '{ // a comment\n "mcpServers": {} }');
    await assert.rejects(
      install(['cursor']),
      (err: unknown) => err instanceof CliUsageError && err.message.includes('is not plain JSON'),
    );
    assert.equal(readFileSync(file, 'utf8'), '{ // a comment\n "mcpServers": {} }');
    assert.equal(existsSync(`${file}.bak`), false);
  });

  test('a usage mistake exits 2 from the command line', () => {
    const r = spawnSync(process.execPath, [CLI, 'install', 'notepad'], {
      cwd: REPO_ROOT,
      env: childEnv(),
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(r.status, 2);
    assert.match(
      r.stderr,
      /unknown client "notepad": choose one of claude-desktop, claude-code, cursor, vscode, windsurf/,
    );
  });
});

test('the stdio entry written starts this server in the project folder, and it answers initialize', async () => {
  const { home, project, install } = setup();
  await install(['windsurf', '--env', 'MCP_LOG_LEVEL=warn']);
  const entry = readJson(path.join(home, '.codeium/windsurf/mcp_config.json')).mcpServers?.[
    'mcp-toolkit'
  ] as {
    command: string;
    args: string[];
    env: Record<string, string>;
  };
  // As a client spawns it: its own working folder, the entry's environment.
  const child = spawn(entry.command, entry.args, {
    cwd: tmpdir(),
    env: { ...childEnv(), ...entry.env },
    stdio: 'pipe',
  });
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no answer within 30 s')), 30_000);
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve(out.slice(0, out.indexOf('\n')));
      }
    });
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
    );
  }).finally(() => child.kill());
  const answer = JSON.parse(line) as { id: number; result: { serverInfo: { name: string } } };
  assert.equal(answer.id, 1);
  assert.equal(answer.result.serverInfo.name, 'mcp-toolkit');
  // The filesystem plugin's default root, ./workspace, was made in the project: --cwd took effect.
  assert.ok(existsSync(path.join(project, 'workspace')));
});

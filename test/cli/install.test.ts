// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the clients' placeholders (${VAR}, ${env:VAR}, ${input:id}) are the expected file contents, not templates
/**
 * `mcp-toolkit install <client>` against temporary home folders: each client's file lands
 * where that client reads it (per OS and scope) in that client's shape; an existing file is
 * merged without touching other servers or keys and kept as `.bak`; --dry-run writes nothing;
 * a file that is not JSON is refused and left alone; secrets are written as each client's own
 * placeholder (never as given into a project's file); VS Code's JSONC is merged with its
 * comments kept; and the stdio entry written really starts this server, which answers initialize.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { type ParseError, parse as parseJsonc } from 'jsonc-parser';
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
      // `node` from the client's PATH, except where the client is known to start servers without it.
      assert.equal(entry.command, client === 'claude-desktop' ? process.execPath : 'node');
      assert.deepEqual(entry.args, [CLI, 'run', '--transport', 'stdio', '--cwd', project]);
      assert.deepEqual(entry.env, { MCP_FILESYSTEM_READ_ONLY: 'true' });
      if (client === 'vscode' || client === 'claude-code') assert.equal(entry.type, 'stdio');
    });
  }
});

describe('which Node the entry runs', () => {
  const entryOf = (home: string) =>
    readJson(path.join(home, '.cursor/mcp.json')).mcpServers?.['mcp-toolkit'] as { command: string };

  test('`node` from PATH by default, and the output names the Node that PATH finds here', async () => {
    const { home, install } = setup();
    const r = await install(['cursor']);
    assert.equal(r.code, 0, r.out);
    assert.equal(entryOf(home).command, 'node');
    assert.match(
      r.out,
      /The entry runs `node` from the PATH the client starts with, so it keeps working after a Node upgrade/,
    );
  });

  test('--absolute-node writes this Node by path, and says so', async () => {
    const { home, install } = setup();
    const r = await install(['cursor', '--absolute-node']);
    assert.equal(r.code, 0, r.out);
    assert.equal(entryOf(home).command, process.execPath);
    assert.ok(
      r.out.includes(
        `The entry runs Node by its absolute path, ${process.execPath}: you asked for it with --absolute-node.`,
      ),
      r.out,
    );
  });

  test("Claude Desktop gets the absolute path, and the output says it lacks the shell's PATH", async () => {
    const { install } = setup('darwin');
    const r = await install(['claude-desktop', '--dry-run']);
    assert.equal(r.code, 0, r.out);
    assert.ok(r.out.includes(`"command": ${JSON.stringify(process.execPath)}`), r.out);
    assert.match(r.out, /absolute path, .*: Claude Desktop starts servers without your shell's PATH/);
    assert.match(r.out, /Run install again after upgrading or moving Node\./);
  });

  test('no node on PATH, or another Node there: the output says what to do', async () => {
    const dir = mkdtempSync(path.join(base, 'path-'));
    const run = async (PATH: string) => {
      const out: string[] = [];
      const code = await installCommand(
        ['cursor', '--dry-run'],
        { HOME: path.join(base, 'home-path'), PATH },
        { out: (t) => out.push(t), err: (t) => out.push(t) },
        { platform: 'linux', cwd: dir },
      );
      return { code, out: out.join('') };
    };
    const none = await run(dir);
    assert.equal(none.code, 0);
    assert.match(
      none.out,
      /no `node` is on this PATH now: install Node 22\.18 or later there, or use --absolute-node/,
    );
    const other = path.join(dir, 'node');
    writeFileSync(other, '#!/bin/sh\n', { mode: 0o755 });
    const elsewhere = await run(dir);
    assert.ok(elsewhere.out.includes(`(here ${other}, not the Node running this command`), elsewhere.out);
    const same = await run(path.dirname(process.execPath));
    assert.ok(same.out.includes(`(here ${path.join(path.dirname(process.execPath), 'node')})`), same.out);
  });

  test('--absolute-node with --url is refused: that server runs elsewhere', async () => {
    const { install } = setup();
    await assert.rejects(
      install(['cursor', '--url', 'https://mcp.example.test/mcp', '--absolute-node']),
      (err: unknown) => err instanceof CliUsageError && /--absolute-node/.test(err.message),
    );
  });
});

describe('HTTP servers', () => {
  const shapes: Record<string, Record<string, unknown>> = {
    'claude-code': { type: 'http', url: 'https://mcp.example.test/mcp', headers: { 'X-Tenant': 't1' } },
    cursor: { url: 'https://mcp.example.test/mcp', headers: { 'X-Tenant': 't1' } },
    vscode: { type: 'http', url: 'https://mcp.example.test/mcp', headers: { 'X-Tenant': 't1' } },
    windsurf: { serverUrl: 'https://mcp.example.test/mcp', headers: { 'X-Tenant': 't1' } },
  };
  for (const [client, shape] of Object.entries(shapes)) {
    test(`${client}: the client's own shape of a remote entry`, async () => {
      const { install } = setup();
      const r = await install([
        client,
        '--url',
        'https://mcp.example.test/mcp',
        '--header',
        'X-Tenant: t1',
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

/** The file as its client reads it: JSONC for VS Code (comments, trailing commas), strict JSON otherwise. */
function clientParse(client: string, text: string): Record<string, unknown> {
  if (client !== 'vscode') return JSON.parse(text) as Record<string, unknown>;
  const errors: ParseError[] = [];
  const value = parseJsonc(text, errors, { allowTrailingComma: true }) as Record<string, unknown>;
  assert.deepEqual(errors, [], 'VS Code reads it as JSONC');
  return value;
}

describe('secrets stay out of the file', () => {
  const SECRET = 's3cr3t-value-42';
  // client, scope, the file, the placeholder of --header Authorization and of --env MCP_API_KEYS.
  const cases: [string, string, (home: string, project: string) => string, string, string][] = [
    [
      'claude-code',
      'project',
      (_h, p) => path.join(p, '.mcp.json'),
      'Bearer ${TOOLKIT_AUTHORIZATION}',
      '${MCP_API_KEYS}',
    ],
    [
      'cursor',
      'project',
      (_h, p) => path.join(p, '.cursor/mcp.json'),
      'Bearer ${env:TOOLKIT_AUTHORIZATION}',
      '${env:MCP_API_KEYS}',
    ],
    [
      'vscode',
      'project',
      (_h, p) => path.join(p, '.vscode/mcp.json'),
      'Bearer ${input:mcp-toolkit-authorization}',
      '${input:mcp-toolkit-mcp-api-keys}',
    ],
    [
      'windsurf',
      'user',
      (h) => path.join(h, '.codeium/windsurf/mcp_config.json'),
      'Bearer ${env:TOOLKIT_AUTHORIZATION}',
      '${env:MCP_API_KEYS}',
    ],
  ];
  for (const [client, scope, where, headerRef, envRef] of cases) {
    test(`${client} (${scope}): a secret header becomes ${headerRef}, and the file parses as ${client} reads it`, async () => {
      const { home, project, install } = setup();
      const r = await install([
        client,
        '--scope',
        scope,
        '--url',
        'https://mcp.example.test/mcp',
        '--header',
        `Authorization: Bearer ${SECRET}`,
        '--header',
        'X-Tenant: t1',
      ]);
      assert.equal(r.code, 0, r.out);
      const text = readFileSync(where(home, project), 'utf8');
      assert.ok(!text.includes(SECRET), `the secret is not in the file:\n${text}`);
      assert.ok(!r.out.includes(SECRET), 'nor printed');
      const config = clientParse(client, text);
      const key = client === 'vscode' ? 'servers' : 'mcpServers';
      const entry = (config[key] as Record<string, { headers: Record<string, string> }>)['mcp-toolkit'];
      assert.deepEqual(entry?.headers, { Authorization: headerRef, 'X-Tenant': 't1' });
      if (client === 'vscode') {
        assert.deepEqual(config.inputs, [
          {
            type: 'promptString',
            id: 'mcp-toolkit-authorization',
            description: 'Authorization header for the MCP server "mcp-toolkit"',
            password: true,
          },
        ]);
        assert.match(
          r.out,
          /input "mcp-toolkit-authorization": the value of --header Authorization, after "Bearer "/,
        );
      } else {
        assert.match(
          r.out,
          /set them in the environment .* starts from:\n {2}TOOLKIT_AUTHORIZATION: the value of --header Authorization, after "Bearer "/,
        );
      }
    });

    test(`${client} (${scope}): an --env whose name looks secret becomes ${envRef}`, async () => {
      const { home, project, install } = setup();
      const r = await install([
        client,
        '--scope',
        scope,
        '--env',
        `MCP_API_KEYS=${SECRET}`,
        '--env',
        'MCP_AUTH=api_key',
      ]);
      assert.equal(r.code, 0, r.out);
      const text = readFileSync(where(home, project), 'utf8');
      assert.ok(!text.includes(SECRET), `the secret is not in the file:\n${text}`);
      const config = clientParse(client, text);
      const key = client === 'vscode' ? 'servers' : 'mcpServers';
      const entry = (config[key] as Record<string, { env: Record<string, string> }>)['mcp-toolkit'];
      assert.deepEqual(entry?.env, { MCP_API_KEYS: envRef, MCP_AUTH: 'api_key' });
      assert.match(
        r.out,
        client === 'vscode'
          ? /input "mcp-toolkit-mcp-api-keys"/
          : /\n {2}MCP_API_KEYS: the value of --env MCP_API_KEYS\n/,
      );
    });
  }

  test('--plain-secret is refused for a project file, which is meant to be committed (exit 2)', () => {
    const { project } = setup();
    const r = spawnSync(
      process.execPath,
      [
        CLI,
        'install',
        'claude-code',
        '--scope',
        'project',
        '--url',
        'https://mcp.example.test/mcp',
        '--header',
        `Authorization: Bearer ${SECRET}`,
        '--plain-secret',
      ],
      { cwd: project, env: childEnv(), encoding: 'utf8', timeout: 30_000 },
    );
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      /--plain-secret writes secrets into a user's own file only: a project file \(--scope project\) is meant to be committed/,
    );
    assert.equal(existsSync(path.join(project, '.mcp.json')), false);
  });

  test('--plain-secret writes the value into a user file', async () => {
    const { home, install } = setup();
    const r = await install(['cursor', '--env', `MCP_API_KEYS=${SECRET}`, '--plain-secret']);
    assert.equal(r.code, 0, r.out);
    const entry = readJson(path.join(home, '.cursor/mcp.json')).mcpServers?.['mcp-toolkit'];
    assert.deepEqual(entry?.env, { MCP_API_KEYS: SECRET });
    assert.match(r.out, /--plain-secret: --env MCP_API_KEYS written as given/);
  });

  test('Claude Desktop has no placeholders: a secret needs --plain-secret', async () => {
    const { home, install } = setup();
    const file = path.join(home, '.config/Claude/claude_desktop_config.json');
    await assert.rejects(
      install(['claude-desktop', '--env', `MCP_API_KEYS=${SECRET}`]),
      (err: unknown) =>
        err instanceof CliUsageError && /has no placeholder .* add --plain-secret/.test(err.message),
    );
    assert.equal(existsSync(file), false);
    const r = await install(['claude-desktop', '--env', `MCP_API_KEYS=${SECRET}`, '--plain-secret']);
    assert.equal(r.code, 0, r.out);
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')).mcpServers['mcp-toolkit'].env, {
      MCP_API_KEYS: SECRET,
    });
  });

  test("a value that is already a placeholder is the user's own and stays as given", async () => {
    const { install } = setup();
    const r = await install([
      'claude-code',
      '--url',
      'https://mcp.example.test/mcp',
      '--header',
      'Authorization: Bearer ${MY_TOKEN}',
      '--dry-run',
    ]);
    assert.match(r.out, /"Authorization": "Bearer \$\{MY_TOKEN\}"/);
    assert.doesNotMatch(r.out, /TOOLKIT_AUTHORIZATION/);
  });
});

describe("VS Code's JSONC", () => {
  const original = `// Shared MCP servers of this project
{
  "inputs": [
    // the other server's key
    { "type": "promptString", "id": "other-key", "description": "Other key", "password": true },
    { "type": "promptString", "id": "mcp-toolkit-authorization", "description": "old" },
  ],
  "servers": {
    /* kept as it is */
    "other": { "type": "stdio", "command": "other-server" },
  },
}
`;

  test('a file with comments and trailing commas is merged, its comments kept; an input of the same id is replaced', async () => {
    const { project, install } = setup();
    const file = path.join(project, '.vscode', 'mcp.json');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, original);
    const r = await install([
      'vscode',
      '--scope',
      'project',
      '--url',
      'https://mcp.example.test/mcp',
      '--header',
      'Authorization: Bearer abc',
    ]);
    assert.equal(r.code, 0, r.out);
    const text = readFileSync(file, 'utf8');
    for (const comment of [
      '// Shared MCP servers of this project',
      "// the other server's key",
      '/* kept as it is */',
    ])
      assert.ok(text.includes(comment), `${comment} kept:\n${text}`);
    const config = clientParse('vscode', text) as {
      inputs: { id: string; description: string }[];
      servers: Record<string, Record<string, unknown>>;
    };
    assert.deepEqual(Object.keys(config.servers), ['other', 'mcp-toolkit']);
    assert.deepEqual(config.servers.other, { type: 'stdio', command: 'other-server' });
    assert.deepEqual(config.servers['mcp-toolkit']?.headers, {
      Authorization: 'Bearer ${input:mcp-toolkit-authorization}',
    });
    assert.deepEqual(
      config.inputs.map((i) => [i.id, i.description]),
      [
        ['other-key', 'Other key'],
        ['mcp-toolkit-authorization', 'Authorization header for the MCP server "mcp-toolkit"'],
      ],
    );
    assert.equal(readFileSync(`${file}.bak`, 'utf8'), original);
  });

  test('a JSONC file that does not parse is refused and left as it is', async () => {
    const { project, install } = setup();
    const file = path.join(project, '.vscode', 'mcp.json');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '{ "servers": { // unclosed\n');
    await assert.rejects(
      install(['vscode', '--scope', 'project']),
      (err: unknown) => err instanceof CliUsageError && err.message.includes('is not valid JSONC'),
    );
    assert.equal(readFileSync(file, 'utf8'), '{ "servers": { // unclosed\n');
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

test('the stdio entry written (`node` from PATH) starts this server in the project folder, and it answers initialize', async () => {
  const { home, project, install } = setup();
  await install(['windsurf', '--env', 'MCP_LOG_LEVEL=warn']);
  const entry = readJson(path.join(home, '.codeium/windsurf/mcp_config.json')).mcpServers?.[
    'mcp-toolkit'
  ] as {
    command: string;
    args: string[];
    env: Record<string, string>;
  };
  assert.equal(entry.command, 'node');
  // As a client spawns it: its own working folder, the entry's environment, `node` looked up
  // on its PATH (this test's, where Node 24 comes first).
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

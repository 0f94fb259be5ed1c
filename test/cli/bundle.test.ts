/**
 * `mcp-toolkit bundle`: an MCP Bundle of this clone with the filesystem plugin, validated and
 * packed by @anthropic-ai/mcpb; its manifest's form comes from the settings schema (the root
 * as a folder picker, a secret as a sensitive field); unpacked by `mcpb unpack`, the server
 * runs from that folder exactly as the manifest says (its command, `${__dirname}` and the
 * form's values substituted) and the official client calls its tools over stdio. Without the
 * packer installed where it looks, or with a setting that is not one, it exits with usage.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { filesystemPlugin } from '../../plugins/filesystem/index.ts';
import { bundleCommand } from '../../src/cli/bundle.ts';
import { CliUsageError } from '../../src/cli/usage.ts';
import { settingEnvName } from '../../src/plugin/define.ts';
import { REPO_ROOT } from '../helpers/spawn-server.ts';

const run = promisify(execFile);
const MCPB = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@anthropic-ai/mcpb')),
  'cli/cli.js',
);

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mcp-bundle-'));
});
after(() => rm(dir, { recursive: true, force: true }));

interface Field {
  type: string;
  title: string;
  description: string;
  required: boolean;
  sensitive?: boolean;
  default?: unknown;
}

/** `${__dirname}` and `${user_config.key}` as a desktop client substitutes them. */
function substitute(value: string, root: string, config: Record<string, unknown>): string {
  return value
    .replaceAll(`\${__dirname}`, root)
    .replace(/\$\{user_config\.([a-z0-9_]+)\}/g, (_, key: string) => String(config[key] ?? ''));
}

test('the bundle validates, unpacks and serves over stdio from its folder', {
  timeout: 600_000,
}, async () => {
  const bundle = path.join(dir, 'out', 'server.mcpb');
  let out = '';
  let err = '';
  const code = await bundleCommand(
    ['--output', bundle, '--setting', 'MCP_STATE_SECRET', '--display-name', 'Files'],
    { MCP_PLUGINS: 'filesystem' },
    {
      out: (t) => {
        out += t;
      },
      err: (t) => {
        err += t;
      },
    },
    REPO_ROOT,
  );
  assert.equal(code, 0, err);
  // Every setting of the plugin, and the core one asked for.
  const expected = [
    ...Object.keys(filesystemPlugin.settings?.shape ?? {}).map((k) => settingEnvName('filesystem', k)),
    'MCP_STATE_SECRET',
  ].map((n) => n.toLowerCase());
  assert.match(
    out,
    new RegExp(
      `wrote .*server\\.mcpb: @mcp-toolkit/server \\d+\\.\\d+\\.\\d+, plugins filesystem, ${expected.length} settings in its form`,
    ),
  );

  const unpacked = path.join(dir, 'unpacked');
  await run(process.execPath, [MCPB, 'unpack', bundle, unpacked], { maxBuffer: 16 * 1024 * 1024 });
  // The packer's own check of the manifest as it arrived.
  await run(process.execPath, [MCPB, 'validate', path.join(unpacked, 'manifest.json')]);
  const manifest = JSON.parse(await readFile(path.join(unpacked, 'manifest.json'), 'utf8')) as {
    manifest_version: string;
    display_name: string;
    server: {
      type: string;
      entry_point: string;
      mcp_config: { command: string; args: string[]; env: Record<string, string> };
    };
    user_config: Record<string, Field>;
  };
  assert.equal(manifest.manifest_version, '0.3');
  assert.equal(manifest.display_name, 'Files');
  assert.equal(manifest.server.type, 'node');
  assert.deepEqual(Object.keys(manifest.user_config).sort(), expected.sort());
  assert.equal(manifest.user_config.mcp_filesystem_root?.type, 'directory');
  assert.equal(manifest.user_config.mcp_filesystem_root?.default, './workspace');
  assert.equal(manifest.user_config.mcp_filesystem_read_only?.type, 'boolean');
  assert.equal(manifest.user_config.mcp_filesystem_read_only?.default, false);
  assert.equal(manifest.user_config.mcp_state_secret?.sensitive, true);
  assert.equal(manifest.user_config.mcp_filesystem_root?.sensitive, undefined);
  assert.equal(manifest.server.mcp_config.env.MCP_PLUGINS, 'filesystem');
  assert.equal(manifest.server.mcp_config.env.MCP_FILESYSTEM_ROOT, `\${user_config.mcp_filesystem_root}`);

  // The form's answers, as a user gives them in the client.
  const root = path.join(dir, 'notes');
  await mkdir(root);
  await writeFile(path.join(root, 'hello.txt'), 'hello from the bundle\n');
  const config = {
    mcp_filesystem_root: root,
    mcp_filesystem_read_only: true,
    mcp_state_secret: 'x'.repeat(32),
  };
  const { command, args, env } = manifest.server.mcp_config;
  const transport = new StdioClientTransport({
    command: command === 'node' ? process.execPath : command,
    args: args.map((a) => substitute(a, unpacked, config)),
    env: {
      PATH: process.env.PATH ?? '',
      ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, substitute(v, unpacked, config)])),
    },
    cwd: dir,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const client = new Client({ name: 'bundle-test', version: '1.0.0' });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(names.includes('read_file'), names.join(', '));
    assert.ok(!names.includes('write_file'), 'read-only from the form: no write_file');
    const result = await client.callTool({ name: 'read_file', arguments: { path: 'hello.txt' } });
    assert.equal(result.isError ?? false, false, JSON.stringify(result));
    assert.match(JSON.stringify(result.content), /hello from the bundle/);
  } catch (e) {
    throw new Error(`${(e as Error).message}\nserver stderr:\n${stderr}`);
  } finally {
    await client.close().catch(() => {});
  }
});

test('a setting that is not one, and a project without package.json, are usage mistakes', async () => {
  const io = { out: () => {}, err: () => {} };
  await assert.rejects(
    bundleCommand(['--setting', 'MCP_NOT_A_SETTING'], { MCP_PLUGINS: 'filesystem' }, io, REPO_ROOT),
    (e: unknown) =>
      e instanceof CliUsageError && /--setting MCP_NOT_A_SETTING: not an MCP_\* setting/.test(e.message),
  );
  await assert.rejects(
    bundleCommand([], {}, io, dir),
    (e: unknown) => e instanceof CliUsageError && /no package.json in/.test(e.message),
  );
});

/**
 * `mcp-toolkit bundle`: an MCP Bundle (`.mcpb`) of the stdio server, for desktop clients. The
 * bundle holds the project's package.json, its own plugins that MCP_PLUGINS names, the
 * toolkit's command and the production dependencies as installed (`npm ls --omit=dev`, copied,
 * so no network is needed), and a manifest whose form (`user_config`) is generated from the
 * settings schema (mcpb-manifest.ts). The manifest is validated and the folder packed by
 * `@anthropic-ai/mcpb` (`mcpb validate`, `mcpb pack`), resolved from the project.
 *
 * Exit codes: 0 packed, 1 the packer refused the manifest or failed, 2 a usage mistake, no
 * package.json, or @anthropic-ai/mcpb not installed.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseSettings } from '../config/settings.ts';
import { importPlugin, resolvePluginPath } from '../plugin/loader.ts';
import { buildManifest } from './mcpb-manifest.ts';
import { coreSettingInputs, pluginSettingInputs, type SettingInput } from './setting-inputs.ts';
import { CliUsageError, parseCommand, USAGE } from './usage.ts';

const run = promisify(execFile);

export interface BundleIo {
  out(text: string): void;
  err(text: string): void;
}

interface PackageJson {
  name?: string;
  version?: string;
  description?: string;
  homepage?: string;
  license?: string;
  author?: string | { name?: string; email?: string; url?: string };
  engines?: { node?: string };
}

const TOOLKIT = '@mcp-toolkit/server';

/** `Ada <ada@example.com> (https://ada.example)` → `{ name, email, url }`. */
function authorOf(author: PackageJson['author']): { name: string; email?: string; url?: string } {
  if (typeof author === 'object' && author?.name) return { ...author, name: author.name };
  const m =
    typeof author === 'string' ? /^([^<(]+?)\s*(?:<([^>]+)>)?\s*(?:\(([^)]+)\))?$/.exec(author) : null;
  if (!m?.[1]) return { name: 'unknown' };
  return { name: m[1], ...(m[2] ? { email: m[2] } : {}), ...(m[3] ? { url: m[3] } : {}) };
}

/** The packer's command line (`node …/@anthropic-ai/mcpb/dist/cli/cli.js`), from the project or the toolkit. */
function mcpbCli(cwd: string): string | undefined {
  for (const from of [path.join(cwd, 'package.json'), import.meta.url]) {
    try {
      // Its main entry is dist/index.js (package.json is not exported); the CLI sits beside it.
      const main = createRequire(from).resolve('@anthropic-ai/mcpb');
      const cli = path.join(path.dirname(main), 'cli', 'cli.js');
      if (existsSync(cli)) return cli;
    } catch {
      // not installed there
    }
  }
  return undefined;
}

/** The installed production packages (absolute folders), as `npm ls --omit=dev` lists them. */
async function productionPackages(cwd: string): Promise<string[]> {
  let stdout: string;
  try {
    ({ stdout } = await run('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
      cwd,
      maxBuffer: 64 * 1024 * 1024,
    }));
  } catch (err) {
    // npm ls exits 1 for an extraneous or invalid package but still lists what is there.
    stdout = (err as { stdout?: string }).stdout ?? '';
    if (stdout === '') throw new Error(`npm ls --omit=dev failed in ${cwd}: ${(err as Error).message}`);
  }
  const root = path.resolve(cwd);
  return [...new Set(stdout.split('\n').filter((line) => line !== '' && path.resolve(line) !== root))];
}

/** Copies one package folder without its nested node_modules (npm ls lists those on their own). */
async function copyPackage(from: string, to: string): Promise<void> {
  const nested = path.join(from, 'node_modules');
  await cp(from, to, {
    recursive: true,
    dereference: true,
    filter: (src) => src !== nested && !src.startsWith(nested + path.sep),
  });
}

/**
 * @example
 * process.exitCode = await bundleCommand(['--output', 'notes.mcpb'], process.env, { out, err });
 */
export async function bundleCommand(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: BundleIo,
  cwd: string = process.cwd(),
): Promise<number> {
  const parsed = parseCommand('bundle', args, {
    output: { type: 'string' },
    setting: { type: 'string', multiple: true },
    'display-name': { type: 'string' },
  });
  if (parsed.help) {
    io.out(`${USAGE.bundle}\n`);
    return 0;
  }
  const v = parsed.values as { output?: string; setting?: string[]; 'display-name'?: string };
  const file = path.join(cwd, 'package.json');
  if (!existsSync(file)) throw new CliUsageError('bundle', `no package.json in ${cwd}`);
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as PackageJson;
  if (!pkg.name || !pkg.version) throw new CliUsageError('bundle', `${file} needs "name" and "version"`);
  const cli = mcpbCli(cwd);
  if (cli === undefined) {
    throw new CliUsageError('bundle', 'the packer is not installed: npm install -D @anthropic-ai/mcpb');
  }
  const core = new Map(coreSettingInputs().map((s) => [s.name, s]));
  const extra: SettingInput[] = [];
  for (const name of v.setting ?? []) {
    const s = core.get(name);
    if (s === undefined)
      throw new CliUsageError('bundle', `--setting ${name}: not an MCP_* setting of the core`);
    extra.push(s);
  }
  const settings = parseSettings(env);
  const plugins = settings.MCP_PLUGINS;
  const inputs: SettingInput[] = [...extra];
  for (const ref of plugins) inputs.push(...pluginSettingInputs(await importPlugin(ref, cwd)));

  const stage = await mkdtemp(path.join(tmpdir(), 'mcp-toolkit-bundle-'));
  try {
    await writeFile(path.join(stage, 'package.json'), readFileSync(file));
    // The clone is the toolkit itself: its command and sources; a project runs the installed one.
    const isToolkit = pkg.name === TOOLKIT;
    if (isToolkit) {
      for (const part of ['bin', 'src'])
        await cp(path.join(cwd, part), path.join(stage, part), { recursive: true });
    }
    // The project's own plugins; the toolkit's bundled ones come with its package.
    for (const ref of plugins) {
      const folder = path.dirname(resolvePluginPath(ref, cwd));
      const rel = path.relative(cwd, folder);
      if (rel.startsWith('..') || path.isAbsolute(rel) || rel.split(path.sep).includes('node_modules'))
        continue;
      await cp(folder, path.join(stage, rel), {
        recursive: true,
        filter: (src) => !/\.test\.[cm]?[jt]s$/.test(src),
      });
    }
    const packages = await productionPackages(cwd);
    if (!isToolkit && !packages.some((p) => p.endsWith(path.join('node_modules', TOOLKIT)))) {
      throw new CliUsageError('bundle', `${TOOLKIT} is not installed in ${cwd}: npm install ${TOOLKIT}`);
    }
    for (const from of packages) await copyPackage(from, path.join(stage, path.relative(cwd, from)));
    const entryPoint = isToolkit ? 'bin/mcp-toolkit.js' : `node_modules/${TOOLKIT}/bin/mcp-toolkit.js`;
    const manifest = buildManifest({
      packageName: pkg.name,
      ...(v['display-name'] ? { displayName: v['display-name'] } : {}),
      version: pkg.version,
      description: pkg.description?.trim() || pkg.name,
      author: authorOf(pkg.author),
      ...(pkg.homepage ? { homepage: pkg.homepage } : {}),
      ...(pkg.license ? { license: pkg.license } : {}),
      entryPoint,
      settings: inputs,
      fixed: { MCP_PLUGINS: plugins.join(','), MCP_TRANSPORT: 'stdio' },
      ...(pkg.engines?.node ? { node: pkg.engines.node } : {}),
    });
    await writeFile(path.join(stage, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    const output = path.resolve(
      cwd,
      v.output ?? `${pkg.name.replace(/^@/, '').replaceAll('/', '-')}-${pkg.version}.mcpb`,
    );
    await mkdir(path.dirname(output), { recursive: true });
    for (const step of [
      ['validate', path.join(stage, 'manifest.json')],
      ['pack', stage, output],
    ]) {
      try {
        await run(process.execPath, [cli, ...step], { cwd: stage, maxBuffer: 64 * 1024 * 1024 });
      } catch (err) {
        const e = err as { stdout?: string; stderr?: string; message: string };
        io.err(`mcp-toolkit bundle: mcpb ${step[0]} failed:\n${e.stdout ?? ''}${e.stderr ?? e.message}\n`);
        return 1;
      }
    }
    const fields = Object.keys((manifest.user_config as object | undefined) ?? {}).length;
    io.out(
      `wrote ${path.relative(cwd, output) || output}: ${pkg.name} ${pkg.version}, plugins ${plugins.join(', ')}, ${fields} settings in its form, validated and packed by @anthropic-ai/mcpb\n`,
    );
    return 0;
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

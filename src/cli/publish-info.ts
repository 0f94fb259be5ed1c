/**
 * `mcp-toolkit publish-info`: writes `server.json` for the official MCP Registry from the
 * project's package.json (name by `mcpName`, version, description, repository, homepage) and
 * the settings of the plugins MCP_PLUGINS names, each an environment variable with its
 * description, whether it is required and whether it is secret. The document is checked
 * against the registry's JSON Schema before it is written; `--check` compares it with the file
 * on disk instead, so CI fails when package.json and server.json drift apart.
 *
 * Exit codes: 0 written (or up to date), 1 the file on disk differs (`--check`) or the document
 * does not validate, 2 a usage mistake or a package.json field the registry cannot take.
 */
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseSettings } from '../config/settings.ts';
import { importPlugin } from '../plugin/loader.ts';
import { buildServerJson, REGISTRY_SCHEMA_VERSION, registrySchemaProblems } from './server-json.ts';
import { coreSettingInputs, pluginSettingInputs, type SettingInput } from './setting-inputs.ts';
import { CliUsageError, parseCommand, USAGE } from './usage.ts';

export interface PublishInfoIo {
  out(text: string): void;
  err(text: string): void;
}

interface PackageJson {
  name?: string;
  version?: string;
  description?: string;
  mcpName?: string;
  homepage?: string;
  repository?: string | { url?: string };
}

/** Registry names: reverse-DNS namespace, one slash (the schema's pattern). */
const NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
/** A version range or tag, which the registry refuses: one release only. */
const RANGE = /[\^~<>=*|\s]|(^|\.)[xX](\.|$)|^latest$/;

function readPackageJson(cwd: string): PackageJson {
  const file = path.join(cwd, 'package.json');
  if (!existsSync(file)) throw new CliUsageError('publish-info', `no package.json in ${cwd}`);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as PackageJson;
  } catch (err) {
    throw new CliUsageError('publish-info', `${file} is not JSON: ${(err as Error).message}`);
  }
}

/** The settings the package is run with: the core's, then each plugin's, in MCP_PLUGINS order. */
async function settingsOf(plugins: readonly string[], cwd: string): Promise<SettingInput[]> {
  const inputs = coreSettingInputs();
  for (const ref of plugins) inputs.push(...pluginSettingInputs(await importPlugin(ref, cwd)));
  return inputs;
}

/**
 * @example
 * process.exitCode = await publishInfoCommand(['--check'], process.env, { out, err });
 */
export async function publishInfoCommand(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: PublishInfoIo,
  cwd: string = process.cwd(),
): Promise<number> {
  const parsed = parseCommand('publish-info', args, {
    output: { type: 'string' },
    name: { type: 'string' },
    remote: { type: 'string', multiple: true },
    'package-arg': { type: 'string', multiple: true },
    check: { type: 'boolean' },
    stdout: { type: 'boolean' },
  });
  if (parsed.help) {
    io.out(`${USAGE['publish-info']}\n`);
    return 0;
  }
  const v = parsed.values as {
    output?: string;
    name?: string;
    remote?: string[];
    'package-arg'?: string[];
    check?: boolean;
    stdout?: boolean;
  };
  const pkg = readPackageJson(cwd);
  const name = v.name ?? pkg.mcpName;
  const fix = (what: string) => new CliUsageError('publish-info', what);
  if (name === undefined) {
    throw fix(
      'package.json has no "mcpName": add "mcpName": "io.github.<you>/<server>" (the registry checks it against the npm package), or pass --name',
    );
  }
  if (!NAME.test(name) || name.length > 200)
    throw fix(`the name "${name}" is not reverse-DNS with one slash (io.github.<you>/<server>)`);
  if (pkg.version === undefined || RANGE.test(pkg.version))
    throw fix(`package.json "version" must be one release (1.2.3), not ${JSON.stringify(pkg.version)}`);
  const description = pkg.description?.trim() ?? '';
  if (description.length === 0 || description.length > 100) {
    throw fix(
      `package.json "description" must be 1 to 100 characters for the registry (it is ${description.length})`,
    );
  }
  for (const url of v.remote ?? []) {
    if (!/^https:\/\//.test(url)) throw fix(`--remote ${url}: a hosted endpoint is an https:// URL`);
  }
  const settings = parseSettings(env);
  const plugins = settings.MCP_PLUGINS;
  const repositoryUrl = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
  const packageArguments = v['package-arg'] ?? (pkg.name === '@mcp-toolkit/server' ? ['run'] : []);
  const doc = buildServerJson({
    name,
    version: pkg.version,
    description,
    ...(pkg.name !== undefined ? { npmPackage: pkg.name } : {}),
    packageArguments,
    ...(repositoryUrl !== undefined ? { repositoryUrl } : {}),
    ...(pkg.homepage !== undefined ? { websiteUrl: pkg.homepage } : {}),
    remotes: v.remote ?? [],
    remoteAuth: settings.MCP_AUTH !== 'none',
    settings: await settingsOf(plugins, cwd),
    fixed: { MCP_PLUGINS: plugins.join(','), MCP_TRANSPORT: 'stdio' },
  });
  const problems = registrySchemaProblems(doc);
  if (problems.length > 0) {
    io.err(
      `mcp-toolkit publish-info: the document does not validate against the registry schema ${REGISTRY_SCHEMA_VERSION}:\n  ${problems.join('\n  ')}\n`,
    );
    return 1;
  }
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  if (v.stdout) {
    io.out(text);
    return 0;
  }
  const file = path.resolve(cwd, v.output ?? 'server.json');
  if (v.check) {
    const current = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    if (current === text) {
      io.out(`${path.relative(cwd, file) || file} is up to date (${name} ${pkg.version})\n`);
      return 0;
    }
    io.err(
      `${file} ${current === undefined ? 'does not exist' : 'differs from package.json and the plugins’ settings'}: run mcp-toolkit publish-info to rewrite it\n`,
    );
    return 1;
  }
  await writeFile(file, text);
  const count = (doc.packages as { environmentVariables: unknown[] }[] | undefined)?.[0]?.environmentVariables
    .length;
  io.out(
    `wrote ${path.relative(cwd, file) || file}: ${name} ${pkg.version}, ${count ?? 0} environment variables, valid against the registry schema ${REGISTRY_SCHEMA_VERSION}\n`,
  );
  return 0;
}

/**
 * `mcp-toolkit publish-info`: server.json for the MCP Registry from package.json and the loaded
 * plugins' settings, valid against the registry's JSON Schema kept in src/cli/registry/ (a
 * document the schema refuses fails here, so the generator and the schema cannot drift apart
 * unnoticed); every MCP_* variable with its description, whether it is required and whether
 * it is secret; `--check` fails when package.json moved on; bad package.json fields are refused
 * with what to change, and the installed command exits 2 for them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { publishInfoCommand } from '../../src/cli/publish-info.ts';
import {
  REGISTRY_SCHEMA,
  REGISTRY_SCHEMA_VERSION,
  registrySchemaProblems,
} from '../../src/cli/server-json.ts';
import { CliUsageError } from '../../src/cli/usage.ts';
import { SETTING_NAMES, settingsSchema } from '../../src/config/settings.ts';
import { REPO_ROOT } from '../helpers/spawn-server.ts';

interface EnvVar {
  name: string;
  description: string;
  isRequired: boolean;
  isSecret: boolean;
  value?: string;
  default?: string;
  choices?: string[];
  format?: string;
}

let project: string;
const PACKAGE = {
  name: '@acme/weather-mcp',
  version: '1.4.2',
  description: 'Weather forecasts for agents',
  mcpName: 'io.github.acme/weather',
  homepage: 'https://acme.example/weather',
  repository: { type: 'git', url: 'git+https://github.com/acme/weather-mcp.git' },
  type: 'module',
};

before(async () => {
  project = await mkdtemp(path.join(tmpdir(), 'mcp-publish-info-'));
  await symlink(path.join(REPO_ROOT, 'node_modules'), path.join(project, 'node_modules'), 'dir');
  await mkdir(path.join(project, 'plugins', 'weather'), { recursive: true });
  const entry = pathToFileURL(path.join(REPO_ROOT, 'src/index.ts')).href;
  await writeFile(
    path.join(project, 'plugins', 'weather', 'index.ts'),
    `import { z } from 'zod';
import { definePlugin } from '${entry}';
export default definePlugin({
  name: 'weather',
  settings: z.object({
    apiKey: z.string().describe('API key of the forecast service'),
    units: z.enum(['metric', 'imperial']).default('metric').describe('Units of the forecasts'),
    cacheSeconds: z.coerce.number().default(300).describe('How long a forecast is kept'),
  }),
  register() {},
});
`,
  );
  await writePackage(PACKAGE);
});
after(() => rm(project, { recursive: true, force: true }));

function writePackage(pkg: Record<string, unknown>) {
  return writeFile(path.join(project, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
}

async function run(args: string[], env: Record<string, string> = { MCP_PLUGINS: 'weather' }) {
  let out = '';
  let err = '';
  const code = await publishInfoCommand(
    args,
    env,
    {
      out: (t) => {
        out += t;
      },
      err: (t) => {
        err += t;
      },
    },
    project,
  );
  return { code, out, err };
}

test('server.json validates against the registry schema and lists every MCP_* variable', async () => {
  const { code, out, err } = await run(['--stdout', '--remote', 'https://weather.acme.example/mcp'], {
    MCP_PLUGINS: 'weather',
    MCP_AUTH: 'api_key',
  });
  assert.equal(code, 0, err);
  const doc = JSON.parse(out) as Record<string, unknown>;
  assert.deepEqual(registrySchemaProblems(doc), []);
  assert.equal(doc.$schema, REGISTRY_SCHEMA.$id);
  assert.equal(doc.name, 'io.github.acme/weather');
  assert.equal(doc.version, '1.4.2');
  assert.deepEqual(doc.repository, { url: 'https://github.com/acme/weather-mcp', source: 'github' });
  assert.equal(doc.websiteUrl, 'https://acme.example/weather');
  const [pkg] = doc.packages as {
    identifier: string;
    version: string;
    transport: unknown;
    environmentVariables: EnvVar[];
  }[];
  assert.ok(pkg);
  assert.equal(pkg.identifier, '@acme/weather-mcp');
  assert.equal(pkg.version, '1.4.2');
  assert.deepEqual(pkg.transport, { type: 'stdio' });
  const byName = new Map(pkg.environmentVariables.map((v) => [v.name, v]));
  // Every core setting, with the schema's own description.
  for (const name of SETTING_NAMES) {
    const v = byName.get(name);
    assert.ok(v, `${name} is listed`);
    assert.equal(v.description, settingsSchema.shape[name].description);
  }
  assert.deepEqual(byName.get('MCP_PLUGINS')?.value, 'weather');
  assert.equal(byName.get('MCP_TRANSPORT')?.value, 'stdio');
  assert.equal(byName.get('MCP_STATE_SECRET')?.isSecret, true);
  assert.equal(byName.get('MCP_API_KEYS')?.isSecret, true);
  assert.deepEqual(byName.get('MCP_WEATHER_API_KEY'), {
    name: 'MCP_WEATHER_API_KEY',
    description: 'API key of the forecast service',
    isRequired: true,
    isSecret: true,
    format: 'string',
  });
  assert.deepEqual(byName.get('MCP_WEATHER_UNITS'), {
    name: 'MCP_WEATHER_UNITS',
    description: 'Units of the forecasts',
    isRequired: false,
    isSecret: false,
    format: 'string',
    default: 'metric',
    choices: ['metric', 'imperial'],
  });
  assert.equal(byName.get('MCP_WEATHER_CACHE_SECONDS')?.format, 'number');
  assert.equal(byName.get('MCP_LOG_LEVEL')?.choices?.includes('debug'), true);
  assert.deepEqual(doc.remotes, [
    {
      type: 'streamable-http',
      url: 'https://weather.acme.example/mcp',
      headers: [
        {
          name: 'Authorization',
          description: 'Bearer followed by your API key or access token',
          isRequired: true,
          isSecret: true,
        },
      ],
    },
  ]);
});

test('the kept schema is the registry schema of its version, and it refuses what the registry refuses', () => {
  assert.equal(REGISTRY_SCHEMA_VERSION, '2025-09-29');
  assert.equal(
    REGISTRY_SCHEMA.$id,
    `https://static.modelcontextprotocol.io/schemas/${REGISTRY_SCHEMA_VERSION}/server.schema.json`,
  );
  const base = { name: 'io.github.acme/weather', description: 'd', version: '1.0.0' };
  assert.deepEqual(registrySchemaProblems(base), []);
  const npm = { registryType: 'npm', identifier: 'x', transport: { type: 'stdio' } };
  for (const bad of [
    { ...base, name: 'weather' },
    { ...base, description: 'x'.repeat(101) },
    { ...base, packages: [{ ...npm, version: 'latest' }] },
    { ...base, packages: [{ ...npm, version: '1.0.0', transport: { type: 'carrier-pigeon' } }] },
    { ...base, packages: [{ ...npm, version: '1.0.0', environmentVariables: [{ description: 'no name' }] }] },
  ]) {
    assert.notDeepEqual(registrySchemaProblems(bad), [], JSON.stringify(bad));
  }
});

test('--check passes on the file it wrote and fails once package.json moves on', async () => {
  const file = path.join(project, 'server.json');
  const wrote = await run([]);
  assert.equal(wrote.code, 0, wrote.err);
  assert.match(
    wrote.out,
    /wrote server\.json: io\.github\.acme\/weather 1\.4\.2, \d+ environment variables, valid against the registry schema 2025-09-29/,
  );
  assert.equal(JSON.parse(await readFile(file, 'utf8')).version, '1.4.2');
  assert.equal((await run(['--check'])).code, 0);
  await writePackage({ ...PACKAGE, version: '1.5.0' });
  try {
    const stale = await run(['--check']);
    assert.equal(stale.code, 1);
    assert.match(stale.err, /differs from package\.json.*run mcp-toolkit publish-info/);
    // A different plugin set is drift too.
    await writePackage(PACKAGE);
    assert.equal((await run(['--check'], { MCP_PLUGINS: 'weather,filesystem' })).code, 1);
  } finally {
    await writePackage(PACKAGE);
  }
});

test('package.json fields the registry cannot take are refused with what to change', async () => {
  const cases: [Record<string, unknown>, string[], RegExp][] = [
    [{ ...PACKAGE, mcpName: undefined }, [], /no "mcpName": add "mcpName": "io\.github\.<you>\/<server>"/],
    [{ ...PACKAGE, mcpName: 'weather' }, [], /not reverse-DNS with one slash/],
    [{ ...PACKAGE, version: '^1.0.0' }, [], /"version" must be one release/],
    [
      { ...PACKAGE, description: 'x'.repeat(101) },
      [],
      /"description" must be 1 to 100 characters.*it is 101/,
    ],
    [PACKAGE, ['--remote', 'http://weather.acme.example/mcp'], /--remote .*is an https:\/\/ URL/],
  ];
  try {
    for (const [pkg, args, message] of cases) {
      await writePackage(pkg);
      await assert.rejects(
        run(['--stdout', ...args]),
        (e: unknown) => e instanceof CliUsageError && message.test(e.message),
        JSON.stringify(pkg),
      );
    }
  } finally {
    await writePackage(PACKAGE);
  }
});

test('the command exits 2 for a usage mistake, naming what to change', () => {
  const r = spawnSync(
    process.execPath,
    [path.join(REPO_ROOT, 'bin/mcp-toolkit.js'), 'publish-info', '--bogus'],
    {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, MCP_PLUGINS: 'weather' },
    },
  );
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /Usage: mcp-toolkit publish-info/);
});

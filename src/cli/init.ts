/**
 * `mcp-toolkit init <name>`: scaffolds a plugin that starts green: `plugins/<name>/index.ts`
 * (one tool with zod input and output schemas, an example, annotations, and the plugin's
 * own `MCP_<NAME>_*` settings schema) and `test/plugins/<name>/<name>.test.ts`, which drives
 * it through TestClient. The generated files pass `tsc` and `biome check` as written, and the
 * settings table of the docs is regenerated so that `npm test` stays green.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { definePlugin, settingEnvName } from '../plugin/define.ts';
import { USAGE as COMMAND_USAGE } from './usage.ts';

const USAGE = COMMAND_USAGE.init!;

/** Where `runInit` writes its lines (the CLI passes console.log and console.error). */
export interface InitIo {
  out(line: string): void;
  err(line: string): void;
}

/** The repository this CLI belongs to: where the plugin loader looks for `plugins/<name>/`. */
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TABLE_SCRIPT = path.join('scripts', 'settings-table.ts');

/** The spellings a plugin name takes in generated code. */
interface Names {
  /** `my-plugin` */
  readonly name: string;
  /** `myPlugin`: prefix of the exported values. */
  readonly camel: string;
  /** `MyPlugin`: prefix of the exported types. */
  readonly pascal: string;
  /** `my_plugin_greet`: the tool (prefixed, so tools of several plugins never collide). */
  readonly tool: string;
  /** `MCP_MY_PLUGIN_GREETING`: the one setting. */
  readonly setting: string;
  /** `MCP_MY_PLUGIN_`: the prefix of every setting of the plugin. */
  readonly prefix: string;
  /** The repository's package name, which its code imports itself by (`@mcp-toolkit/server`). */
  readonly pkg: string;
}

/** Package imports in the order biome sorts them (by specifier). */
function importLines(lines: string[]): string {
  const specifier = (line: string) => /from '([^']+)'/.exec(line)?.[1] ?? '';
  return [...lines].sort((a, b) => (specifier(a) < specifier(b) ? -1 : 1)).join('\n');
}

function namesOf(name: string, pkg: string): Names {
  const camel = name.replace(/-+([a-z0-9])/g, (_, c: string) => c.toUpperCase()).replaceAll('-', '');
  return {
    name,
    camel,
    pascal: camel.charAt(0).toUpperCase() + camel.slice(1),
    tool: `${name.replaceAll('-', '_')}_greet`,
    setting: settingEnvName(name, 'greeting'),
    prefix: settingEnvName(name, 'greeting').slice(0, -'GREETING'.length),
    pkg,
  };
}

// The templates are formatted the way biome formats them, for any valid name: a name only
// ever appears where its length (up to 40) cannot push a line past biome's width or change
// how biome breaks it (test/cli/init.test.ts checks the shortest and the longest name).

/** The plugin module. */
function pluginSource(n: Names): string {
  return `/**
 * The ${n.name} plugin, scaffolded by \`mcp-toolkit init ${n.name}\`: one tool, \`${n.tool}\`,
 * and one setting, \`${n.setting}\`. Load it with \`MCP_PLUGINS=filesystem,${n.name}\`;
 * its test is test/plugins/${n.name}/${n.name}.test.ts. Replace the tool with your own: the
 * plugin guide in docs/ covers resources, prompts, asking the client for input, and errors.
 */
${importLines([`import { definePlugin, defineTool } from '${n.pkg}';`, "import { z } from 'zod';"])}

/**
 * The plugin's settings, read from \`${n.prefix}*\` environment variables: the key
 * \`greeting\` is \`${n.setting}\`. Values arrive as strings (use \`z.stringbool()\`,
 * \`z.coerce.number()\`); a bad value stops start-up with a message naming the variable.
 */
export const ${n.camel}Settings = z.object({
  greeting: z
    .string()
    .trim()
    .min(1, { error: 'expected a word such as Hello' })
    .default('Hello')
    .describe('Word the greeting starts with.'),
});

// Every argument is described: the descriptions are how a model knows what to send.
const greetInput = z.object({
  name: z.string().min(1).max(100).describe('Name of the person to greet'),
  excited: z.boolean().default(false).describe('End with "!" rather than "."'),
});

// With an output schema, the result is validated and sent as structuredContent plus a text block.
const greetOutput = z.object({
  message: z.string().describe('The greeting'),
});

export type Settings = z.output<typeof ${n.camel}Settings>;

/**
 * The plugin definition; \`MCP_PLUGINS=${n.name}\` loads it.
 *
 * @example
 * const client = await TestClient.start({ plugins: [${n.camel}Plugin] });
 */
export const ${n.camel}Plugin = definePlugin({
  name: '${n.name}',
  description: 'Greets people by name (scaffolded by mcp-toolkit init: say what your plugin offers).',
  settings: ${n.camel}Settings,
  register(app, settings) {
    app.add(
      defineTool(
        {
          name: '${n.tool}',
          title: 'Greet someone',
          description: 'Greet a person by name. Returns the greeting as text and as structured content.',
          input: greetInput,
          output: greetOutput,
          // Read-only and closed-world; destructiveHint and idempotentHint only mean
          // something for tools that change things (MCP spec, ToolAnnotations).
          annotations: { title: 'Greet someone', readOnlyHint: true, openWorldHint: false },
          // Published as inputSchema.examples; \`mcp-toolkit test\` calls the tool with each one.
          examples: [{ name: 'Ada' }],
        },
        ({ name, excited }) => ({ message: \`\${settings.greeting}, \${name}\${excited ? '!' : '.'}\` }),
      ),
    );
  },
});

export default ${n.camel}Plugin;
`;
}

/** The plugin's test, driven through TestClient. */
function pluginTestSource(n: Names): string {
  return `/**
 * The ${n.name} plugin through TestClient: real JSON-RPC messages and the real handshake,
 * in-process, every message round-tripped through JSON. Scaffolded by
 * \`mcp-toolkit init ${n.name}\`; \`npm test\` runs it, or
 * \`node --test test/plugins/${n.name}/${n.name}.test.ts\`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { JsonObject } from '${n.pkg}';
import { TestClient } from '${n.pkg}/testing';
import plugin from '../../../plugins/${n.name}/index.ts';

const TOOL = '${n.tool}';

describe('${n.name} plugin', () => {
  let client: TestClient;
  before(async () => {
    client = await TestClient.start({ plugins: [plugin] });
  });
  after(async () => {
    await client?.close();
  });

  test('lists the tool with its schemas, example and annotations', async () => {
    const tool = (await client.listTools()).find((t) => t.name === TOOL);
    assert.ok(tool, 'the tool is listed');
    const input = tool.inputSchema as JsonObject;
    assert.equal(input.type, 'object');
    assert.deepEqual(input.examples, [{ name: 'Ada' }]);
    assert.equal((tool.outputSchema as JsonObject).type, 'object');
    assert.equal((tool.annotations as JsonObject).readOnlyHint, true);
  });

  test('answers with structured content and a text block', async () => {
    const result = await client.callTool(TOOL, { name: 'Ada' });
    assert.notEqual(result.isError, true);
    assert.deepEqual(result.structuredContent, { message: 'Hello, Ada.' });
    const text = await client.callText(TOOL, { name: 'Ada', excited: true });
    assert.deepEqual(JSON.parse(text), { message: 'Hello, Ada!' });
  });

  test('invalid arguments come back as an error result the model can read', async () => {
    const result = await client.callTool(TOOL, { name: '' });
    assert.equal(result.isError, true);
  });

  test('its setting changes the greeting', async () => {
    const custom = await TestClient.start({
      plugins: [plugin],
      env: { ${n.setting}: 'Bonjour' },
    });
    try {
      const result = await custom.callTool(TOOL, { name: 'Ada' });
      assert.deepEqual(result.structuredContent, { message: 'Bonjour, Ada.' });
    } finally {
      await custom.close();
    }
  });
});
`;
}

/** The name the repository's code imports itself by: its package.json `name`. */
function packageName(root: string): string {
  try {
    const { name } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { name?: unknown };
    if (typeof name === 'string' && name !== '') return name;
  } catch {
    // no readable package.json: the default name
  }
  return '@mcp-toolkit/server';
}

/** Refuses what is not a plugin name, with the rule of `definePlugin` (src/plugin/define.ts). */
function nameProblem(name: string): string | undefined {
  try {
    definePlugin({ name, register() {} });
    return undefined;
  } catch {
    return `"${name}" is not a valid plugin name: use 1-40 lower-case letters, digits and "-", starting with a letter (it becomes plugins/${name}/ and MCP_<NAME>_* settings)`;
  }
}

/**
 * Runs `mcp-toolkit init <name> [--dir D]`; resolves with the exit code: 0 done, 1 the
 * files were written but the settings table could not be regenerated, 2 refused (bad
 * usage, invalid or existing name, a folder that is not an mcp-toolkit repository).
 *
 * @example
 * process.exitCode = await runInit(['weather'], { out: console.log, err: console.error });
 */
export async function runInit(argv: string[], io: InitIo): Promise<number> {
  let parsed: { values: { dir?: string; help?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      options: { dir: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    io.err(`mcp-toolkit init: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help === true) {
    io.out(USAGE);
    return 0;
  }
  const [name, ...extra] = parsed.positionals;
  if (name === undefined || extra.length > 0) {
    io.err(`mcp-toolkit init: expected one plugin name\n\n${USAGE}`);
    return 2;
  }
  const problem = nameProblem(name);
  if (problem) {
    io.err(`mcp-toolkit init: ${problem}`);
    return 2;
  }
  const root = path.resolve(parsed.values.dir ?? PACKAGE_ROOT);
  if (!existsSync(path.join(root, 'src', 'index.ts')) || !existsSync(path.join(root, 'plugins'))) {
    io.err(`mcp-toolkit init: ${root} is not an mcp-toolkit repository (no src/index.ts and plugins/)`);
    return 2;
  }
  const n = namesOf(name, packageName(root));
  const pluginDir = path.join('plugins', name);
  const files = [
    { rel: path.join(pluginDir, 'index.ts'), text: pluginSource(n) },
    { rel: path.join('test', 'plugins', name, `${name}.test.ts`), text: pluginTestSource(n) },
  ];
  const taken = [pluginDir, ...files.map((f) => f.rel)].filter((rel) => existsSync(path.join(root, rel)));
  if (taken.length > 0) {
    io.err(`mcp-toolkit init: a plugin named "${name}" already exists (${taken[0]}); choose another name`);
    return 2;
  }
  for (const f of files) {
    await mkdir(path.dirname(path.join(root, f.rel)), { recursive: true });
    // 'wx': never overwrite, even if something appeared since the check above.
    await writeFile(path.join(root, f.rel), f.text, { flag: 'wx' });
    io.out(`created ${f.rel}`);
  }
  io.out(
    [
      '',
      'Next:',
      `  node --test ${files[1]!.rel}    run its test (npm test runs it too)`,
      `  MCP_PLUGINS=filesystem,${name} npm start    serve it beside the filesystem plugin`,
      `  ${n.setting}=Hi    its setting (see plugins/${name}/index.ts)`,
      `  node ${TABLE_SCRIPT} --plugin ${name}    its settings as a Markdown table, for its docs`,
    ].join('\n'),
  );
  return 0;
}

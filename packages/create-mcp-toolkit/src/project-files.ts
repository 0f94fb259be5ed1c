/**
 * The files of a new project: package.json (depending on @mcp-toolkit/server from the registry),
 * the settings file the scripts load, the project's own plugin and its TestClient test, a
 * README, .gitignore and a CI workflow. Nothing of the toolkit's own code is copied: the plugin
 * imports `@mcp-toolkit/server`, the scripts run its `mcp-toolkit` command.
 */
import { randomBytes } from 'node:crypto';
import type { Choices } from './choices.ts';
import { deployFiles, readmeDeploy } from './deploy-files.ts';

/** `weather-mcp` → `weatherMcp`. */
function camel(name: string): string {
  return name.replace(/-+([a-z0-9])/g, (_, c: string) => c.toUpperCase()).replaceAll('-', '');
}

/** `weather-mcp` → `weather_mcp_greet`. */
export function toolName(plugin: string): string {
  return `${plugin.replaceAll('-', '_')}_greet`;
}

/** `weather-mcp` → `MCP_WEATHER_MCP_GREETING`. */
function greetingSetting(plugin: string): string {
  return `MCP_${plugin.replaceAll('-', '_').toUpperCase()}_GREETING`;
}

/** The command the scripts run: the installed toolkit's, with the settings file loaded. */
const CLI =
  'node --env-file=mcp-toolkit.env --env-file-if-exists=.env node_modules/@mcp-toolkit/server/bin/mcp-toolkit.js';

function packageJson(c: Choices, toolkitVersion: string, zodVersion: string): string {
  const serve = c.transport === 'stdio' ? 'stdio' : 'http';
  const scripts: Record<string, string> = {
    start: `${CLI} run --transport ${serve}`,
    dev: `${CLI} dev`,
    test: 'node --test "test/**/*.test.ts"',
    doctor: `${CLI} doctor`,
    'publish-info': `${CLI} publish-info`,
  };
  if (c.transport === 'stdio') delete scripts.dev;
  if (c.deploy.includes('mcpb')) scripts.bundle = `${CLI} bundle`;
  const pkg = {
    name: c.name,
    version: '0.1.0',
    private: true,
    description: `An MCP server: the ${c.plugin} plugin on mcp-toolkit`,
    type: 'module',
    engines: { node: '>=22.18' },
    scripts,
    dependencies: { '@mcp-toolkit/server': `^${toolkitVersion}`, zod: zodVersion },
    ...(c.deploy.includes('mcpb') ? { devDependencies: { '@anthropic-ai/mcpb': '^2.1.2' } } : {}),
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

function settingsFile(c: Choices): string {
  const lines = [
    '# The settings `npm start` and the other scripts run with (node --env-file). Every MCP_*',
    '# variable is listed by `npm run doctor`; the environment wins over this file. Secrets go',
    '# in .env (not committed) or the environment, never here.',
    `MCP_PLUGINS=${[c.plugin, ...c.plugins].join(',')}`,
    `MCP_SERVER_NAME=${c.plugin}`,
    `MCP_AUTH=${c.auth}`,
  ];
  if (c.auth === 'oauth') lines.push('# MCP_OAUTH_ISSUER=https://your-issuer.example (required for oauth)');
  if (c.plugins.includes('openapi'))
    lines.push('# MCP_OPENAPI_SPEC=./openapi.yaml (required by the openapi plugin)');
  if (c.plugins.includes('proxy'))
    lines.push('# MCP_PROXY_URL=https://upstream.example/mcp (or MCP_PROXY_COMMAND)');
  return `${lines.join('\n')}\n`;
}

/** .env for secrets: an API key to start with when the auth mode is api_key. */
function secretsFile(c: Choices): string | undefined {
  if (c.auth !== 'api_key') return undefined;
  return `# Secrets (not committed). Replace this key before sharing the server.\nMCP_API_KEYS=dev:${randomBytes(24).toString('hex')}\n`;
}

function pluginSource(c: Choices): string {
  const n = camel(c.plugin);
  return `/**
 * The ${c.plugin} plugin: one tool, \`${toolName(c.plugin)}\`, and one setting,
 * \`${greetingSetting(c.plugin)}\`. Replace the tool with your own; the plugin guide of
 * @mcp-toolkit/server covers resources, prompts, asking the client for input and errors.
 */
import { definePlugin, defineTool } from '@mcp-toolkit/server';
import { z } from 'zod';

/** Read from \`MCP_${c.plugin.replaceAll('-', '_').toUpperCase()}_*\` variables; a bad value stops start-up naming the variable. */
export const ${n}Settings = z.object({
  greeting: z.string().trim().min(1).default('Hello').describe('Word the greeting starts with.'),
});

export const ${n}Plugin = definePlugin({
  name: '${c.plugin}',
  description: 'Greets people by name.',
  settings: ${n}Settings,
  register(app, settings) {
    app.add(
      defineTool(
        {
          name: '${toolName(c.plugin)}',
          title: 'Greet someone',
          description: 'Greet a person by name. Returns the greeting as text and as structured content.',
          input: z.object({ name: z.string().min(1).max(100).describe('Name of the person to greet') }),
          output: z.object({ message: z.string().describe('The greeting') }),
          annotations: { readOnlyHint: true, openWorldHint: false },
          examples: [{ name: 'Ada' }],
        },
        ({ name }) => ({ message: \`\${settings.greeting}, \${name}.\` }),
      ),
    );
  },
});

export default ${n}Plugin;
`;
}

function testSource(c: Choices): string {
  const n = camel(c.plugin);
  return `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer } from '@mcp-toolkit/server';
import { conformanceReport, formatReport, TestClient } from '@mcp-toolkit/server/testing';
import { ${n}Plugin } from '../plugins/${c.plugin}/index.ts';

for (const wire of ['2025', '2026'] as const) {
  test(\`${toolName(c.plugin)} greets by name (\${wire} wire)\`, async () => {
    const client = await TestClient.start({ plugins: [${n}Plugin], wire });
    const result = await client.callTool('${toolName(c.plugin)}', { name: 'Ada' });
    assert.deepEqual(result.structuredContent, { message: 'Hello, Ada.' });
    await client.close();
  });
}

test('a bad argument is reported to the model, not thrown', async () => {
  const client = await TestClient.start({ plugins: [${n}Plugin] });
  const result = await client.callTool('${toolName(c.plugin)}', { name: '' });
  assert.equal(result.isError, true);
  await client.close();
});

test('the server passes the conformance report', async () => {
  const server = await createServer({
    plugins: [${n}Plugin],
    settings: { MCP_LOG_LEVEL: 'silent' },
    transport: 'none',
  });
  const report = await conformanceReport(server);
  assert.equal(report.failed, 0, formatReport(report));
  await server.close();
});
`;
}

function readme(c: Choices): string {
  const serve = c.transport === 'stdio' ? 'stdio' : 'HTTP on http://127.0.0.1:8000/mcp';
  return `# ${c.name}

An MCP server built on [mcp-toolkit](https://www.npmjs.com/package/@mcp-toolkit/server): the
\`${c.plugin}\` plugin (\`plugins/${c.plugin}/index.ts\`)${c.plugins.length > 0 ? ` and the bundled ${c.plugins.join(', ')}` : ''}.

\`\`\`sh
npm install
npm test          # TestClient tests of the plugin, on both protocol generations
npm start         # serves ${serve}
npm run doctor    # every setting as parsed, each plugin and its checks
\`\`\`

Settings are \`MCP_*\` variables: \`mcp-toolkit.env\` holds the ones this project chose (the
plugins, the auth mode), \`.env\` (not committed) the secrets, and the environment wins over
both. Over stdio, a desktop client runs the server itself:
\`npx mcp-toolkit install claude-desktop --env MCP_PLUGINS=${c.plugin}\`.

## Your tools

Edit \`plugins/${c.plugin}/index.ts\` and its test, \`test/${c.plugin}.test.ts\`. \`npm run dev\`
reloads the plugin on every save. Add a plugin in \`plugins/<name>/index.ts\` and list it in
\`MCP_PLUGINS\`.

## Publishing

- \`npm run publish-info\` writes \`server.json\` for the official MCP Registry (set \`mcpName\`
  in package.json first: \`npm pkg set mcpName=io.github.<you>/${c.plugin}\`).
${c.deploy.includes('mcpb') ? '- `npm run bundle` builds an MCP Bundle (`.mcpb`) for desktop clients.\n' : ''}${readmeDeploy(c)}`;
}

const GITIGNORE = `node_modules/
.env
*.mcpb
workspace/
server.json.tmp
`;

function ciWorkflow(): string {
  return `name: ci
on:
  push:
  pull_request:
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 24
      - run: npm install --no-audit --no-fund
      - run: npm test
`;
}

/**
 * Every file of the project, by path relative to its folder.
 *
 * @example
 * const files = projectFiles(choices, '0.1.0', '^4.1.0');
 */
export function projectFiles(c: Choices, toolkitVersion: string, zodVersion: string): Record<string, string> {
  const files: Record<string, string> = {
    'package.json': packageJson(c, toolkitVersion, zodVersion),
    'mcp-toolkit.env': settingsFile(c),
    [`plugins/${c.plugin}/index.ts`]: pluginSource(c),
    [`test/${c.plugin}.test.ts`]: testSource(c),
    'README.md': readme(c),
    '.gitignore': GITIGNORE,
    '.github/workflows/ci.yml': ciWorkflow(),
    ...deployFiles(c),
  };
  const secrets = secretsFile(c);
  if (secrets !== undefined) files['.env'] = secrets;
  return files;
}

#!/usr/bin/env node
/**
 * `npm create mcp-toolkit@latest <folder>`: creates an MCP server project that depends on
 * @mcp-toolkit/server from the registry, with the choices of choices.ts and the files of
 * project-files.ts. It writes the files and prints what to run next; it installs nothing
 * (`npm install` is the user's first command, as with `npm create vite`).
 *
 * Exit codes: 0 created, 2 a usage mistake, 1 a failure writing the files.
 */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Choices, resolveChoices, USAGE, UsageError } from './choices.ts';
import { projectFiles, toolName } from './project-files.ts';

/** This package's version: the toolkit version the project depends on (they are released together). */
const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
/** The zod the plugin imports: the major the toolkit's schemas are written for. */
const ZOD = '^4.1.0';

async function write(c: Choices): Promise<string[]> {
  const files = projectFiles(c, VERSION, ZOD);
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(c.dir, rel);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);
  }
  return Object.keys(files).sort();
}

/** Runs the command; resolves with the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const out = (text: string) => void process.stdout.write(text);
  try {
    const choices = await resolveChoices(argv, process.cwd(), {
      out,
      isTTY: process.stdin.isTTY === true && process.stdout.isTTY === true,
      input: process.stdin,
    });
    if (choices === 'help') {
      out(`${USAGE}\n`);
      return 0;
    }
    const files = await write(choices);
    const rel = path.relative(process.cwd(), choices.dir) || '.';
    out(
      `Created ${choices.name} in ${rel} (@mcp-toolkit/server ^${VERSION}; transport ${choices.transport}, auth ${choices.auth}, plugins ${[choices.plugin, ...choices.plugins].join(', ')}${choices.deploy.length > 0 ? `, deploy ${choices.deploy.join(', ')}` : ''}):\n` +
        files.map((f) => `  ${f}\n`).join('') +
        `\nNext:\n  cd ${rel}\n  npm install\n  npm test\n  npm start\n\nThe tool ${toolName(choices.plugin)} is in plugins/${choices.plugin}/index.ts.\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`create-mcp-toolkit: ${err.message}\n\n${USAGE}\n`);
      return 2;
    }
    process.stderr.write(`create-mcp-toolkit: ${(err as Error).message}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));

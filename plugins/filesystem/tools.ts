/**
 * The filesystem tools: list_files, read_file and (unless read-only) write_file. Each has a
 * title, annotations, described inputs, an example that works on a fresh workspace (the
 * plugin seeds README.md when it creates the root) and an output schema, as the strict
 * mode of `mcp-toolkit test` demands.
 */
import { z } from 'zod';
import { defineTool, type ToolDefinition } from '../../src/index.ts';
import { listFolder, MAX_FILE_BYTES, MAX_LIST_ENTRIES, readTextFile, writeTextFile } from './files.ts';
import type { Sandbox } from './sandbox.ts';
import { FILE_BROWSER_URI } from './view/file-browser.ts';

const RELATIVE = 'relative to the workspace root, with "/" separators';

const listInput = z.object({
  path: z.string().default('.').describe(`Folder to list, ${RELATIVE}; "." is the root`),
});
const listOutput = z.object({
  path: z.string().describe('The folder listed, relative to the root'),
  entries: z
    .array(
      z.object({
        name: z.string().describe('Entry name'),
        type: z
          .enum(['file', 'directory', 'symlink', 'other'])
          .describe('Kind of entry; symbolic links are not followed'),
        size: z.number().int().min(0).describe('Size in bytes (0 for anything but files)'),
      }),
    )
    .describe('Entries sorted by name'),
  truncated: z.boolean().describe(`True when the folder holds more than ${MAX_LIST_ENTRIES} entries`),
});

const readInput = z.object({
  path: z.string().min(1).describe(`File to read, ${RELATIVE}`),
});
const readOutput = z.object({
  path: z.string().describe('The file read, relative to the root'),
  content: z.string().describe('The file content (UTF-8)'),
  size: z.number().int().min(0).describe('Size in bytes'),
});

const writeInput = z.object({
  path: z.string().min(1).describe(`File to create or replace, ${RELATIVE}; missing folders are created`),
  content: z.string().describe(`Full new content (UTF-8, at most ${MAX_FILE_BYTES} bytes)`),
});
const writeOutput = z.object({
  path: z.string().describe('The file written, relative to the root'),
  bytes: z.number().int().min(0).describe('Bytes written'),
});

/** list_files: a folder's entries, sorted by name. */
export function listFilesTool(sandbox: Sandbox): ToolDefinition {
  return defineTool(
    {
      name: 'list_files',
      title: 'List files',
      description:
        'List the files and folders in a folder of the workspace, sorted by name, with their type and size. Paths are relative to the workspace root.',
      input: listInput,
      output: listOutput,
      annotations: {
        title: 'List files',
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      examples: [{ path: '.' }],
      // Hosts that render MCP Apps show the listing in the file browser view (view/).
      ui: { resourceUri: FILE_BROWSER_URI },
    },
    ({ path }, ctx) => {
      ctx.signal.throwIfAborted();
      return listFolder(sandbox, path ?? '.');
    },
  );
}

/** read_file: a UTF-8 text file of at most 1 MiB. */
export function readFileTool(sandbox: Sandbox): ToolDefinition {
  return defineTool(
    {
      name: 'read_file',
      title: 'Read file',
      description: `Read a UTF-8 text file of the workspace (at most ${MAX_FILE_BYTES / 1024 / 1024} MiB). Paths are relative to the workspace root.`,
      input: readInput,
      output: readOutput,
      annotations: {
        title: 'Read file',
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      examples: [{ path: 'README.md' }],
    },
    ({ path }, ctx) => readTextFile(sandbox, path, ctx.signal),
  );
}

/** write_file: creates or replaces a text file; never registered in read-only mode. */
export function writeFileTool(sandbox: Sandbox): ToolDefinition {
  return defineTool(
    {
      name: 'write_file',
      title: 'Write file',
      description:
        'Create or replace a UTF-8 text file in the workspace, creating missing folders. Replaces the whole content. Paths are relative to the workspace root.',
      input: writeInput,
      output: writeOutput,
      annotations: {
        title: 'Write file',
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      },
      examples: [{ path: 'notes/hello.txt', content: 'Hello from mcp-toolkit\n' }],
    },
    ({ path, content }, ctx) => {
      ctx.signal.throwIfAborted();
      return writeTextFile(sandbox, path, content);
    },
  );
}

/** The plugin's tools for the given mode. */
export function filesystemTools(sandbox: Sandbox, options: { readOnly: boolean }): ToolDefinition[] {
  const tools = [listFilesTool(sandbox), readFileTool(sandbox)];
  if (!options.readOnly) tools.push(writeFileTool(sandbox));
  return tools;
}

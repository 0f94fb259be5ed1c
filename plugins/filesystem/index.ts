/**
 * The filesystem plugin: sandboxed file tools over one root folder, the files as a
 * `file:///{+path}` resource template, and a `summarise_file` prompt.
 *
 * Settings: `MCP_FILESYSTEM_ROOT` (default `./workspace`, created when missing),
 * `MCP_FILESYSTEM_READ_ONLY` (default false; when true, `write_file` is not registered at
 * all, so clients never see a tool they cannot use) and `MCP_FILESYSTEM_ALLOW_HARDLINKS`
 * (default false: files with more than one hard link are refused; see sandbox.ts).
 */
import { mkdir, realpath, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { definePlugin, InternalCode, ToolkitError } from '../../src/index.ts';
import { checkRoot } from './doctor.ts';
import { fileTemplate, summariseFilePrompt } from './resources.ts';
import { createSandbox, PATH_MODE_WARNING } from './sandbox.ts';
import { filesystemTools } from './tools.ts';
import { fileBrowserView } from './view/file-browser.ts';

/** Settings as the core hands them over: raw strings from `MCP_FILESYSTEM_*`. */
export const filesystemSettings = z.object({
  root: z
    .string()
    .trim()
    .min(1, { error: 'expected a folder path' })
    .default('./workspace')
    .describe(
      'Folder the filesystem tools may use (relative to the working directory); created when missing.',
    ),
  readOnly: z
    .stringbool({ error: 'expected true or false' })
    .default(false)
    .describe('When true, write_file is not offered and nothing under the root is changed by clients.'),
  allowHardlinks: z
    .stringbool({ error: 'expected true or false' })
    .default(false)
    .describe(
      'When true, regular files with more than one hard link are read and replaced; by default they are refused, since another link may sit outside the root.',
    ),
});

export type FilesystemSettings = z.output<typeof filesystemSettings>;

// Written once, when the plugin creates the root, so a fresh workspace is not empty and the
// read_file example (`README.md`) works in `mcp-toolkit test`.
const WELCOME = `# Workspace

Files in this folder are visible to MCP clients through the filesystem plugin of
mcp-toolkit: list_files, read_file and write_file (unless MCP_FILESYSTEM_READ_ONLY is true),
and the file:/// resources. Paths are relative to this folder; nothing outside it is reachable.
`;

/** Creates the root when missing and returns its real path. */
async function prepareRoot(root: string): Promise<string> {
  const absolute = path.resolve(root);
  let created: string | undefined;
  try {
    created = await mkdir(absolute, { recursive: true });
  } catch (err) {
    throw new ToolkitError(
      InternalCode.InvalidSetting,
      `MCP_FILESYSTEM_ROOT cannot be created as a folder (${String((err as { code?: unknown }).code ?? err)})`,
      { cause: err },
    );
  }
  const real = await realpath(absolute);
  if (!(await stat(real)).isDirectory()) {
    throw new ToolkitError(InternalCode.InvalidSetting, 'MCP_FILESYSTEM_ROOT names a file, not a folder');
  }
  if (created !== undefined) await writeFile(path.join(real, 'README.md'), WELCOME, { flag: 'wx' });
  return real;
}

/**
 * The plugin definition; `MCP_PLUGINS=filesystem` loads it.
 *
 * @example
 * const client = await TestClient.start({ plugins: [filesystemPlugin], env: { MCP_FILESYSTEM_ROOT: dir } });
 */
export const filesystemPlugin = definePlugin<FilesystemSettings>({
  name: 'filesystem',
  description:
    'Sandboxed files under MCP_FILESYSTEM_ROOT: tools list_files, read_file and write_file (write_file is not registered when MCP_FILESYSTEM_READ_ONLY is true), the file:///{+path} resource template with path completion, and the summarise_file prompt.',
  settings: filesystemSettings,
  instructions: ({ readOnly }) =>
    `Files: paths are relative to the workspace root ("." is the root); call list_files to find a file before read_file.${
      readOnly ? ' The workspace is read-only: there is no write_file.' : ''
    }`,
  async register(app, settings) {
    const sandbox = createSandbox(await prepareRoot(settings.root), {
      allowHardlinks: settings.allowHardlinks,
    });
    const tools = filesystemTools(sandbox, { readOnly: settings.readOnly });
    app.add(...tools, fileTemplate(sandbox), summariseFilePrompt(sandbox), fileBrowserView());
    app.logger.info(
      {
        root: sandbox.root,
        readOnly: settings.readOnly,
        allowHardlinks: sandbox.allowHardlinks,
        sandbox: sandbox.mode,
        tools: tools.map((t) => t.name),
      },
      'filesystem plugin ready',
    );
    if (sandbox.mode === 'path') app.logger.warn(PATH_MODE_WARNING);
  },
  doctor: (settings) => checkRoot(settings),
});

export default filesystemPlugin;

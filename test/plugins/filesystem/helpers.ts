/** Shared fixtures of the filesystem plugin tests: a temp tree, a stub context, a stub app. */
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { filesystemPlugin, filesystemSettings } from '../../../plugins/filesystem/index.ts';
import type {
  Definition,
  HandlerContext,
  PluginApp,
  PromptDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from '../../../src/index.ts';

export interface Tree {
  /** The temp folder holding everything (its real path): must never appear in a message. */
  base: string;
  /** The sandbox root (real path). */
  root: string;
  /** A sibling of the root holding `secret.txt`. */
  outside: string;
  cleanup(): Promise<void>;
}

/**
 * root/a.txt, root/sub/b.txt, root/.hidden, and links: link-in → sub/b.txt, link-in-dir → sub,
 * link-out-file → ../outside/secret.txt, link-out-dir → ../outside, dangling-out →
 * ../outside/new.txt (missing), dangling-dir → ../outside/newdir (missing).
 */
export async function makeTree(prefix = 'mcp-fs-'): Promise<Tree> {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  await mkdir(path.join(root, 'sub'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'top secret');
  await writeFile(path.join(root, 'a.txt'), 'alpha');
  await writeFile(path.join(root, 'sub', 'b.txt'), 'bravo');
  await writeFile(path.join(root, '.hidden'), 'h');
  await symlink(path.join('sub', 'b.txt'), path.join(root, 'link-in'));
  await symlink('sub', path.join(root, 'link-in-dir'));
  await symlink(path.join(outside, 'secret.txt'), path.join(root, 'link-out-file'));
  await symlink(outside, path.join(root, 'link-out-dir'));
  await symlink(path.join(outside, 'new.txt'), path.join(root, 'dangling-out'));
  await symlink(path.join(outside, 'newdir'), path.join(root, 'dangling-dir'));
  return { base, root, outside, cleanup: () => rm(base, { recursive: true, force: true }) };
}

/**
 * A context good enough for handlers that use only `signal` and `logger` (Partial, so members
 * the core adds later need no change here).
 */
export function stubContext(signal: AbortSignal = new AbortController().signal): HandlerContext {
  const notImplemented = () => {
    throw new Error('not available in this stub');
  };
  const ctx: Partial<HandlerContext> = {
    signal,
    logger: pino({ level: 'silent' }),
    log: async () => {},
    progress: async () => {},
    notify: async () => {},
    requestId: 1,
    protocolVersion: '2025-11-25',
    wire: '2025',
    sessionId: undefined,
    clientCapabilities: {},
    clientInfo: undefined,
    identity: undefined,
    meta: {},
    inputResponses: undefined,
    requestState: undefined,
    askInput: notImplemented,
    elicit: notImplemented,
    sample: notImplemented,
    listRoots: notImplemented,
  };
  return ctx as HandlerContext;
}

export interface Loaded {
  tools: Map<string, ToolDefinition>;
  template: ResourceTemplateDefinition;
  prompt: PromptDefinition;
}

/** Runs the plugin's register step with raw (environment-like) settings, collecting definitions. */
export async function loadPlugin(raw: Record<string, string>): Promise<Loaded> {
  const defs: Definition[] = [];
  const app: PluginApp = {
    add: (...more) => {
      defs.push(...more);
    },
    remove: () => false,
    onReady: () => {},
    onClose: () => {},
    onSessionEnd: () => {},
    notifyResourceUpdated: () => {},
    notifyListChanged: () => {},
    use: () => {},
    httpRoute: () => {},
    logger: pino({ level: 'silent' }),
  };
  await filesystemPlugin.register(app, filesystemSettings.parse(raw));
  const tools = new Map<string, ToolDefinition>();
  let template: ResourceTemplateDefinition | undefined;
  let prompt: PromptDefinition | undefined;
  for (const def of defs) {
    if (def.kind === 'tool') tools.set(def.name, def);
    else if (def.kind === 'resource-template') template = def;
    else if (def.kind === 'prompt') prompt = def;
  }
  if (!template || !prompt) throw new Error('the plugin registered no template or no prompt');
  return { tools, template, prompt };
}

/** Runs a tool handler as the registry would: arguments validated (defaults applied) first. */
export async function callHandler(tool: ToolDefinition, args: Record<string, unknown>): Promise<unknown> {
  const checked = tool.input.validate(args);
  if (!checked.ok) throw new Error(`invalid arguments: ${checked.issues.join('; ')}`);
  return tool.handler(checked.value, stubContext());
}

/** Awaits a rejection and returns the error, failing when the promise resolves. */
export async function rejection(promise: Promise<unknown>): Promise<Error & { code?: unknown }> {
  try {
    await promise;
  } catch (err) {
    return err as Error & { code?: unknown };
  }
  throw new Error('expected a rejection');
}

/**
 * Plugin failures that say where: a module that does not import names its file, `line:column`
 * and the cause (with the offending line for a syntax error); a `register()` that throws names
 * the plugin and the first stack frame in the author's code. Both become ToolkitErrors, so
 * the CLI exits with 2 as it does for a bad setting.
 */
import { isAbsolute, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InternalCode, ToolkitError } from '../base/errors.ts';

/** The toolkit's own sources: a frame there is ours, not the plugin author's. */
const TOOLKIT_SRC = fileURLToPath(new URL('../', import.meta.url));

export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

/** `file:///a/b.ts` or `/a/b.ts` → a path relative to `cwd` when it lies inside it. */
function displayPath(file: string, cwd: string = process.cwd()): string {
  const path = file.startsWith('file://') ? fileURLToPath(file) : file;
  if (!isAbsolute(path)) return path;
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

// `at fn (file:///a/b.ts:1:2)` or `at file:///a/b.ts:1:2`; `node:internal/...` frames never match.
const FRAME_RE = /(?:\(|at )((?:file:\/\/|\/|[A-Za-z]:\\)[^\s()]+):(\d+):(\d+)\)?\s*$/;

/** Every `at ... (file:line:col)` frame of a stack, in order, internals excluded. */
function frames(stack: string): SourceLocation[] {
  const out: SourceLocation[] = [];
  for (const line of stack.split('\n')) {
    if (!/^\s+at /.test(line)) continue;
    const match = FRAME_RE.exec(line);
    if (!match) continue;
    const file = match[1]!.startsWith('file://') ? fileURLToPath(match[1]!) : match[1]!;
    out.push({ file, line: Number(match[2]), column: Number(match[3]) });
  }
  return out;
}

/**
 * The first frame of `err`'s stack in the author's code: not Node's internals, not a
 * dependency under node_modules, not the toolkit's own src/ (a `defineTool` that refuses a
 * definition throws from src/registry/, but the line to fix is the plugin's call to it).
 */
function firstProjectFrame(err: unknown): SourceLocation | undefined {
  const stack = err instanceof Error && typeof err.stack === 'string' ? err.stack : '';
  const all = frames(stack);
  const mine = (f: SourceLocation) => !f.file.includes(`${sep}node_modules${sep}`);
  return all.find((f) => mine(f) && !f.file.startsWith(TOOLKIT_SRC)) ?? all.find(mine);
}

/**
 * Where a SyntaxError points. Node decorates the stack of a module that does not parse with
 * `file:line`, the source line and a caret under the column: that is where the file and
 * column come from (the message alone, e.g. "Expression expected", names neither).
 */
function syntaxErrorLocation(err: unknown): (SourceLocation & { source: string }) | undefined {
  if (!(err instanceof SyntaxError) || typeof err.stack !== 'string') return undefined;
  const lines = err.stack.split('\n');
  const head = /^(.+):(\d+)$/.exec(lines[0] ?? '');
  if (!head) return undefined;
  const caretAt = lines.findIndex((l, i) => i > 0 && /^\s*\^+\s*$/.test(l));
  const source = caretAt > 1 ? (lines[caretAt - 1] ?? '') : '';
  const column = caretAt > 1 ? lines[caretAt]!.indexOf('^') + 1 : 1;
  return { file: head[1]!, line: Number(head[2]), column, source };
}

function causeOf(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}

/**
 * The error for a plugin module that failed to import.
 *
 * @example
 * // Plugin "broken" failed to load: plugins/broken/index.ts:2:11: SyntaxError: Expression expected
 * //     const a = ;
 * //               ^
 */
export function pluginImportError(ref: string, path: string, err: unknown): ToolkitError {
  const syntax = syntaxErrorLocation(err);
  if (syntax) {
    const where = `${displayPath(syntax.file)}:${syntax.line}:${syntax.column}`;
    const snippet = syntax.source ? `\n    ${syntax.source}\n    ${' '.repeat(syntax.column - 1)}^` : '';
    return new ToolkitError(
      InternalCode.PluginInvalid,
      `Plugin "${ref}" failed to load: ${where}: ${causeOf(err)}${snippet}`,
      { cause: err },
    );
  }
  const frame = firstProjectFrame(err);
  const where = frame ? `${displayPath(frame.file)}:${frame.line}:${frame.column}` : displayPath(path);
  return new ToolkitError(
    InternalCode.PluginInvalid,
    `Plugin "${ref}" failed to load: ${where}: ${causeOf(err)}`,
    { cause: err },
  );
}

/**
 * The error for a `register()` that threw: the plugin's name, the cause and the first frame
 * in the author's code. A ToolkitError keeps its code (an invalid definition, a duplicate
 * name); anything else becomes ERR_MCP_PLUGIN_INVALID. `step` names another step that threw
 * (an `onReady` hook).
 */
export function pluginRegisterError(plugin: string, err: unknown, step = 'register()'): ToolkitError {
  const frame = firstProjectFrame(err);
  const at = frame ? `\n    at ${displayPath(frame.file)}:${frame.line}:${frame.column}` : '';
  const code = err instanceof ToolkitError ? err.code : InternalCode.PluginInvalid;
  const cause = err instanceof ToolkitError ? err.message : causeOf(err);
  return new ToolkitError(code, `Plugin "${plugin}" failed in ${step}: ${cause}${at}`, { cause: err });
}

/**
 * The workspace as resources (`file:///{+path}`, with path completion) and the
 * `summarise_file` prompt, which embeds a file as a resource content block
 * (spec: server/prompts, "Embedded Resources").
 */
import {
  type Completer,
  definePrompt,
  defineResourceTemplate,
  ErrorCode,
  InternalCode,
  type PromptDefinition,
  ProtocolError,
  type ResourceTemplateDefinition,
  ToolkitError,
} from '@mcp-toolkit/server';
import { FileAccessError, FileErrorCode } from './errors.ts';
import { completePath, readTextFile } from './files.ts';
import type { Sandbox } from './sandbox.ts';

const SCHEME = 'file:///';
const MIME = 'text/plain';

/** `notes/a b.md` → `file:///notes/a%20b.md` (each segment percent-encoded, `/` kept). */
export function fileUri(relativePath: string): string {
  return SCHEME + relativePath.split('/').map(encodeURIComponent).join('/');
}

/**
 * The relative path a `file:///` URI names. Read from the URI itself rather than the
 * template variable: RFC 6570 `{+path}` matching decodes with `decodeURI`, which leaves
 * `%23` (`#`) and `%3F` (`?`) encoded, so such names would not round-trip.
 */
export function pathOfUri(uri: string): string {
  if (!uri.startsWith(SCHEME)) {
    throw new FileAccessError(FileErrorCode.InvalidPath, `Expected a ${SCHEME} URI`);
  }
  const raw = uri.slice(SCHEME.length).split(/[?#]/, 1)[0] ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new FileAccessError(FileErrorCode.InvalidPath, 'The URI has an invalid percent-encoding');
  }
}

/**
 * Unlike a tool failure (an `isError` result the model reads), a failed resource read or
 * prompt is a JSON-RPC error, and the dispatcher hides unknown exceptions behind "Internal
 * error". Our failures are the client's to fix and carry clean messages, so they become
 * -32602; a missing file is "Resource not found" with the URI in `data` (SEP-2164).
 */
function asProtocolError(err: unknown, uri?: string): unknown {
  const safe =
    err instanceof FileAccessError ||
    (err instanceof ToolkitError && err.code === InternalCode.PathOutsideRoot);
  if (!safe) return err;
  if (uri !== undefined && err.code === FileErrorCode.NotFound) {
    return new ProtocolError(ErrorCode.InvalidParams, `Resource not found: ${uri}`, { data: { uri } });
  }
  return new ProtocolError(ErrorCode.InvalidParams, err.message, uri === undefined ? {} : { data: { uri } });
}

/** `file:///{+path}`: any text file under the root. */
export function fileTemplate(sandbox: Sandbox): ResourceTemplateDefinition {
  const complete: Completer = (value) => completePath(sandbox, value);
  return defineResourceTemplate(
    {
      uriTemplate: `${SCHEME}{+path}`,
      name: 'file',
      title: 'Workspace file',
      description: 'A UTF-8 text file of the workspace; the path is relative to the workspace root.',
      mimeType: MIME,
      complete: { path: complete },
    },
    async (uri, _variables, ctx) => {
      try {
        const file = await readTextFile(sandbox, pathOfUri(uri), ctx.signal);
        return { text: file.content, mimeType: MIME };
      } catch (err) {
        throw asProtocolError(err, uri);
      }
    },
  );
}

/** `summarise_file`: the file as an embedded resource, then the instruction. */
export function summariseFilePrompt(sandbox: Sandbox): PromptDefinition {
  return definePrompt(
    {
      name: 'summarise_file',
      title: 'Summarise a file',
      description: 'Summarise a text file of the workspace.',
      arguments: [
        {
          name: 'path',
          description: 'File to summarise, relative to the workspace root',
          required: true,
          complete: (value) => completePath(sandbox, value),
        },
      ],
    },
    async ({ path }, ctx) => {
      if (path === undefined || path === '') {
        throw new ProtocolError(ErrorCode.InvalidParams, 'The "path" argument is required');
      }
      const file = await readTextFile(sandbox, path, ctx.signal).catch((err: unknown) => {
        throw asProtocolError(err);
      });
      return {
        description: `Summarise ${file.path}`,
        messages: [
          {
            role: 'user',
            content: {
              type: 'resource',
              resource: { uri: fileUri(file.path), mimeType: MIME, text: file.content },
            },
          },
          {
            role: 'user',
            content: {
              type: 'text',
              text: `Summarise the file ${file.path} above in a few sentences: its purpose, its main points, and anything that looks unfinished or wrong.`,
            },
          },
        ],
      };
    },
  );
}

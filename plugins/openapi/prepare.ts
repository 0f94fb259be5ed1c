/**
 * Everything the plugin derives from its settings, computed once per settings object and
 * shared by `register` and `doctor`: in a running server /readyz asks doctor every few
 * seconds, and it must not read and dereference the document each time.
 */
import { InternalCode, ToolkitError } from '@mcp-toolkit/server';
import { type Operation, operationsOf } from './document.ts';
import { type LoadedApi, loadDocument } from './load.ts';
import { selectOperations, toolNames } from './select.ts';
import type { OpenapiSettings } from './settings.ts';
import { type BuiltTools, buildTools, DEFAULT_USER_AGENT } from './tools.ts';

export interface Prepared extends BuiltTools {
  readonly loaded: LoadedApi;
  readonly selected: readonly Operation[];
  /** Entries of MCP_OPENAPI_INCLUDE that named no operation. */
  readonly unmatched: readonly string[];
}

const cache = new WeakMap<OpenapiSettings, Promise<Prepared>>();

/**
 * Loads the document and builds the tools; throws a ToolkitError that names the setting (and
 * the operation) at fault. A failure is not cached, so a later doctor run tries again.
 *
 * @example
 * const { tools, skipped } = await prepare(settings);
 */
export function prepare(settings: OpenapiSettings): Promise<Prepared> {
  let pending = cache.get(settings);
  if (pending === undefined) {
    pending = build(settings);
    cache.set(settings, pending);
    pending.catch(() => cache.delete(settings));
  }
  return pending;
}

async function build(settings: OpenapiSettings): Promise<Prepared> {
  if (settings.spec === undefined) {
    throw new ToolkitError(
      InternalCode.InvalidSetting,
      'MCP_OPENAPI_SPEC is required by the openapi plugin: set it to the file path or http(s) URL of an OpenAPI 3.0 or 3.1 document',
    );
  }
  const loaded = await loadDocument(settings.spec, {
    timeoutMs: settings.timeoutMs,
    userAgent: settings.userAgent ?? DEFAULT_USER_AGENT,
    allowRefs: settings.allowRefs,
  });
  const { selected, unmatched } = selectOperations(operationsOf(loaded.api), settings);
  const built = buildTools(loaded.api, selected, toolNames(selected), settings, loaded.url);
  return { loaded, selected, unmatched, ...built };
}

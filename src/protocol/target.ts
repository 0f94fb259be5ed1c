/**
 * What a request names, resolved once: the tool of a `tools/call`, the prompt of a
 * `prompts/get`, the resource or template match of a `resources/read` (and of a subscribe or
 * unsubscribe). The dispatcher resolves it where it builds the request record, before any
 * middleware, and carries it as `record.target`; the middleware's `call.tool`, the 2026 header
 * checks and the method handlers read it from there instead of asking the registry again.
 *
 * The target is what the registry holds, whoever asks: visibility (a hidden item answers
 * exactly as an absent one, src/registry/visibility.ts) is still applied by the method handlers,
 * to the definition found here, as it was to the one they looked up themselves.
 *
 * A middleware may replace `call.params` before `next()`, a tool's name or a resource's URI
 * included (docs/plugins.md, "Middleware"): then the handler gets what the new params name,
 * looked up for that name (`toolNamed`, `promptNamed`, `resourceAt`).
 */
import type { JsonObject } from '../base/jsonrpc.ts';
import type { ResourceTarget } from '../execution/call.ts';
import type { PromptDefinition, ToolDefinition } from '../registry/define.ts';
import type { Registry } from '../registry/registry.ts';

/** A request's target as the registry answered when the request arrived; `undefined` definitions: nothing by that name. */
export type RequestTarget =
  | { readonly kind: 'tool'; readonly name: string; readonly def: ToolDefinition | undefined }
  | { readonly kind: 'prompt'; readonly name: string; readonly def: PromptDefinition | undefined }
  | { readonly kind: 'resource'; readonly uri: string; readonly match: ResourceTarget | undefined };

/** The registry's lookups a target is resolved with. */
export type TargetLookups = Pick<Registry, 'tool' | 'prompt' | 'resolveResource'>;

/** The target of a request to `method` with `params`: one registry lookup, or none for a method that names no target. */
export function resolveTarget(
  method: string,
  params: JsonObject | undefined,
  registry: TargetLookups,
): RequestTarget | undefined {
  switch (method) {
    case 'tools/call': {
      const name = params?.name;
      return typeof name === 'string' ? { kind: 'tool', name, def: registry.tool(name) } : undefined;
    }
    case 'prompts/get': {
      const name = params?.name;
      return typeof name === 'string' ? { kind: 'prompt', name, def: registry.prompt(name) } : undefined;
    }
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe': {
      const uri = params?.uri;
      return typeof uri === 'string'
        ? { kind: 'resource', uri, match: registry.resolveResource(uri) }
        : undefined;
    }
    default:
      return undefined;
  }
}

/** The tool `name` names: the request's target, or (a middleware renamed it) the registry's answer for the new name. */
export function toolNamed(
  target: RequestTarget | undefined,
  name: string,
  registry: Pick<Registry, 'tool'>,
): ToolDefinition | undefined {
  return target?.kind === 'tool' && target.name === name ? target.def : registry.tool(name);
}

/** The prompt `name` names, as `toolNamed` finds a tool. */
export function promptNamed(
  target: RequestTarget | undefined,
  name: string,
  registry: Pick<Registry, 'prompt'>,
): PromptDefinition | undefined {
  return target?.kind === 'prompt' && target.name === name ? target.def : registry.prompt(name);
}

/** The resource or template match `uri` names, as `toolNamed` finds a tool. */
export function resourceAt(
  target: RequestTarget | undefined,
  uri: string,
  registry: Pick<Registry, 'resolveResource'>,
): ResourceTarget | undefined {
  return target?.kind === 'resource' && target.uri === uri ? target.match : registry.resolveResource(uri);
}

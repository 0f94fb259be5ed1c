/**
 * The registry: every tool, resource, template and prompt the server exposes, in
 * registration order (stable list order, as 2026 clients expect), with change events that
 * become `list_changed` notifications.
 */
import { ErrorCode, InternalCode, ProtocolError, ToolkitError } from '../base/errors.ts';
import type { JsonObject } from '../base/jsonrpc.ts';
import type {
  Definition,
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from './define.ts';
import { type ListChange, type ListKind, touchedItem } from './list-change.ts';
import { isAppOnly } from './tool-ui.ts';
import { isRestricted, type Restrictable } from './visibility.ts';

export type { ListKind } from './list-change.ts';
/** Told of every change, with the item versions it touched (list-change.ts). */
export type ChangeListener = (change: ListChange) => void;

export interface Page {
  items: JsonObject[];
  nextCursor?: string;
}

function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

function decodeCursor(cursor: unknown): number {
  if (cursor === undefined) return 0;
  if (typeof cursor === 'string') {
    try {
      const o = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown }).o;
      if (typeof o === 'number' && Number.isInteger(o) && o >= 0) return o;
    } catch {
      // fall through: an unreadable cursor is the client's error
    }
  }
  throw new ProtocolError(
    ErrorCode.InvalidParams,
    'Invalid cursor: pass back a nextCursor from a previous page',
  );
}

/** Pages a list with opaque cursors (spec: utilities/pagination). */
export function paginate(list: readonly JsonObject[], cursor: unknown, pageSize: number): Page {
  const start = decodeCursor(cursor);
  if (start > list.length) {
    throw new ProtocolError(ErrorCode.InvalidParams, 'Invalid cursor: it points past the end of the list');
  }
  const end = Math.min(start + pageSize, list.length);
  const page: Page = { items: list.slice(start, end) };
  if (end < list.length) page.nextCursor = encodeCursor(end);
  return page;
}

/**
 * Holds the server's definitions.
 *
 * @example
 * const registry = new Registry();
 * registry.add(defineTool({ name: 'hello', description: 'Say hello' }, async () => 'hello'));
 */
/** The four list methods' item kinds. */
export type ListingKind = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

export class Registry {
  readonly #tools = new Map<string, ToolDefinition>();
  readonly #resources = new Map<string, ResourceDefinition>();
  readonly #templates = new Map<string, ResourceTemplateDefinition>();
  readonly #prompts = new Map<string, PromptDefinition>();
  readonly #listeners = new Set<ChangeListener>();
  /** The changes held back while `batch` runs. */
  #held: ListChange[] | undefined;
  #toolListing: JsonObject[] | undefined;
  #modelToolListing: JsonObject[] | undefined;
  #resourceListing: JsonObject[] | undefined;
  #templateListing: JsonObject[] | undefined;
  #promptListing: JsonObject[] | undefined;

  /** Adds a definition; a duplicate name or URI is refused with a clear message. */
  add(def: Definition): this {
    if (def.kind === 'tool') this.#put(this.#tools, def.name, def, 'tool');
    else if (def.kind === 'resource') this.#put(this.#resources, def.uri, def, 'resource');
    else if (def.kind === 'resource-template')
      this.#put(this.#templates, def.template.source, def, 'resource template');
    else this.#put(this.#prompts, def.name, def, 'prompt');
    this.#invalidate(def);
    return this;
  }

  /** Removes a tool, resource (by URI), template (by its template string) or prompt. */
  remove(kind: Definition['kind'], key: string): boolean {
    const map: Map<string, Definition> =
      kind === 'tool'
        ? this.#tools
        : kind === 'resource'
          ? this.#resources
          : kind === 'resource-template'
            ? this.#templates
            : this.#prompts;
    const def = map.get(key);
    if (!def) return false;
    map.delete(key);
    this.#invalidate(def);
    return true;
  }

  /** Drops the cached listings of the definition's list and tells the listeners what changed. */
  #invalidate(def: Definition): void {
    const items = [touchedItem(def)];
    if (def.kind === 'tool') {
      this.#toolListing = undefined;
      this.#modelToolListing = undefined;
      this.#emit({ kind: 'tools', items });
    } else if (def.kind === 'prompt') {
      this.#promptListing = undefined;
      this.#emit({ kind: 'prompts', items });
    } else {
      this.#resourceListing = undefined;
      this.#templateListing = undefined;
      this.#emit({ kind: 'resources', items });
    }
  }

  #put<T>(map: Map<string, T>, key: string, def: T, what: string): void {
    if (map.has(key)) {
      throw new ToolkitError(
        InternalCode.DuplicateName,
        `Duplicate ${what} "${key}": each ${what} must be registered once`,
      );
    }
    map.set(key, def);
  }

  #emit(change: ListChange): void {
    if (this.#held) {
      this.#held.push(change);
      return;
    }
    for (const listener of this.#listeners) listener(change);
  }

  /**
   * Applies many changes as one: the listeners hear nothing while `apply` runs, then one change
   * per list whose listing differs from before (compared as listed, by its JSON), naming every
   * item touched. A list that ends as it began is not announced, however much was removed and
   * added again; one a plugin announced itself (`notifyListChanged`) is. Returns the lists
   * announced. For swaps such as `mcp-toolkit dev`'s reload.
   *
   * @example
   * registry.batch(() => { registry.remove('tool', 'a'); registry.add(newA); }); // → [] if newA lists as a did
   */
  batch(apply: () => void): ListKind[] {
    if (this.#held) {
      apply(); // inside another batch: that one announces
      return [];
    }
    const before = this.#listed();
    const held: ListChange[] = [];
    this.#held = held;
    try {
      apply();
    } finally {
      this.#held = undefined;
    }
    const after = this.#listed();
    const announced: ListKind[] = [];
    for (const kind of ['tools', 'resources', 'prompts'] as const) {
      const changes = held.filter((c) => c.kind === kind);
      const unsaid = changes.some((c) => c.items === undefined);
      if (changes.length === 0 || (!unsaid && before[kind] === after[kind])) continue;
      this.#emit(unsaid ? { kind } : { kind, items: changes.flatMap((c) => c.items ?? []) });
      announced.push(kind);
    }
    return announced;
  }

  /** Each list as clients are given it, as JSON (resources: the resources and the templates). */
  #listed(): Record<ListKind, string> {
    return {
      tools: JSON.stringify(this.toolListing()),
      resources: JSON.stringify([this.resourceListing(), this.templateListing()]),
      prompts: JSON.stringify(this.promptListing()),
    };
  }

  /**
   * Announces a list change that the registry cannot see (e.g. a plugin's dynamic content);
   * as it does not say which items changed, every client is told.
   */
  notifyListChanged(kind: ListKind): void {
    this.#emit({ kind });
  }

  /** Subscribes to list changes; returns the unsubscribe function. */
  onChange(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  tool(name: string): ToolDefinition | undefined {
    return this.#tools.get(name);
  }
  /** Every registered tool, in registration order. */
  tools(): IterableIterator<ToolDefinition> {
    return this.#tools.values();
  }
  resource(uri: string): ResourceDefinition | undefined {
    return this.#resources.get(uri);
  }
  prompt(name: string): PromptDefinition | undefined {
    return this.#prompts.get(name);
  }
  /** The first template that matches the URI, with its variables. */
  matchTemplate(
    uri: string,
  ): { def: ResourceTemplateDefinition; variables: Record<string, string> } | undefined {
    for (const def of this.#templates.values()) {
      const variables = def.template.match(uri);
      if (variables) return { def, variables };
    }
    return undefined;
  }
  /**
   * What `uri` names: a direct resource (it wins over templates, even for a caller who may not
   * see it), else the first template that matches, with its variables.
   */
  resolveResource(
    uri: string,
  ):
    | { def: ResourceDefinition; variables?: undefined }
    | { def: ResourceTemplateDefinition; variables: Record<string, string> }
    | undefined {
    const def = this.#resources.get(uri);
    return def ? { def } : this.matchTemplate(uri);
  }
  templateByName(nameOrUri: string): ResourceTemplateDefinition | undefined {
    for (const def of this.#templates.values()) {
      if (def.template.source === nameOrUri || def.spec.name === nameOrUri) return def;
    }
    return undefined;
  }

  get counts(): { tools: number; resources: number; resourceTemplates: number; prompts: number } {
    return {
      tools: this.#tools.size,
      resources: this.#resources.size,
      resourceTemplates: this.#templates.size,
      prompts: this.#prompts.size,
    };
  }

  /**
   * The tools/list entries. `model`: without the tools a view alone may call
   * (`ui.visibility: ['app']`), for clients that do not render views and would hand every
   * listed tool to the model (SEP-1865 "Visibility").
   */
  toolListing(audience: 'all' | 'model' = 'all'): readonly JsonObject[] {
    if (audience === 'model') {
      this.#modelToolListing ??= [...this.#tools.values()].filter((d) => !isAppOnly(d)).map((d) => d.listing);
      return this.#modelToolListing;
    }
    this.#toolListing ??= [...this.#tools.values()].map((d) => d.listing);
    return this.#toolListing;
  }
  resourceListing(): readonly JsonObject[] {
    this.#resourceListing ??= [...this.#resources.values()].map((d) => d.listing);
    return this.#resourceListing;
  }
  templateListing(): readonly JsonObject[] {
    this.#templateListing ??= [...this.#templates.values()].map((d) => d.listing);
    return this.#templateListing;
  }
  promptListing(): readonly JsonObject[] {
    this.#promptListing ??= [...this.#prompts.values()].map((d) => d.listing);
    return this.#promptListing;
  }

  /** The whole listing of one list method. */
  listingOf(kind: ListingKind): readonly JsonObject[] {
    if (kind === 'tools') return this.toolListing();
    if (kind === 'resources') return this.resourceListing();
    if (kind === 'resourceTemplates') return this.templateListing();
    return this.promptListing();
  }

  /** Whether any item of a list has scopes or a visibility rule (its listing then depends on the caller). */
  restricts(kind: ListingKind): boolean {
    return this.#defsOf(kind).some((d) => isRestricted(d.spec));
  }

  /** The listing of the items whose spec `keep` accepts, in registration order. */
  listingWhere(kind: ListingKind, keep: (spec: Restrictable) => boolean): JsonObject[] {
    return this.#defsOf(kind)
      .filter((d) => keep(d.spec))
      .map((d) => d.listing);
  }

  #defsOf(kind: ListingKind): readonly { spec: Restrictable; listing: JsonObject }[] {
    if (kind === 'tools') return [...this.#tools.values()];
    if (kind === 'resources') return [...this.#resources.values()];
    if (kind === 'resourceTemplates') return [...this.#templates.values()];
    return [...this.#prompts.values()];
  }
}

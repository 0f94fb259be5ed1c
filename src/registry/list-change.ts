/**
 * Who a list change concerns. With visibility by caller, a caller's listing changes only when
 * an item it could see before, or can see now, was added or removed (a replaced definition is
 * a removal and an addition); nobody else is sent `list_changed`. A change names the item
 * versions it touched, so the check costs one visibility test per touched item, never a
 * listing. What travels to the other replicas is plain data (the item's key and scopes, and
 * whether a `visible` rule decides); a replica runs such a rule from its own definition of the
 * item (every replica runs the same plugins), and tells the caller when it has none.
 */
import type { Identity } from '../base/types.ts';
import type { Definition } from './define.ts';
import type { Restrictable, Visibility } from './visibility.ts';

/** The lists a change can alter: `notifications/<kind>/list_changed`. */
export type ListKind = 'tools' | 'resources' | 'prompts';

/**
 * What a change reads of the registry (registry.ts, which announces changes through this
 * file): a definition by its key, to run its `visible` rule.
 */
export interface DefinitionLookup {
  tool(name: string): { readonly spec: Restrictable } | undefined;
  prompt(name: string): { readonly spec: Restrictable } | undefined;
  resource(uri: string): { readonly spec: Restrictable } | undefined;
  templateByName(source: string): { readonly spec: Restrictable } | undefined;
}

/** One version of one item that a change added or removed. */
export interface TouchedItem {
  readonly of: Definition['kind'];
  /** The tool or prompt name, the resource URI, or the template string. */
  readonly key: string;
  readonly scopes?: readonly string[];
  /** True when a `visible(identity)` rule decides too. */
  readonly rule?: boolean;
  /** The spec itself, where the change was made; never relayed (a rule is code). */
  readonly spec?: Restrictable;
}

export interface ListChange {
  readonly kind: ListKind;
  /** What it touched; absent when unknown (a plugin's `notifyListChanged`): everyone is told. */
  readonly items?: readonly TouchedItem[];
}

/** The touched-item record of a definition being added or removed. */
export function touchedItem(def: Definition): TouchedItem {
  const key =
    def.kind === 'tool' || def.kind === 'prompt'
      ? def.name
      : def.kind === 'resource'
        ? def.uri
        : def.template.source;
  const spec: Restrictable = def.spec;
  const item: { -readonly [K in keyof TouchedItem]: TouchedItem[K] } = { of: def.kind, key, spec };
  if (spec.scopes && spec.scopes.length > 0) item.scopes = [...spec.scopes];
  if (spec.visible !== undefined) item.rule = true;
  return item;
}

/** The items as they travel to the other replicas: without the specs. */
export function relayableItems(items: readonly TouchedItem[]): TouchedItem[] {
  return items.map(({ spec: _spec, ...rest }) => rest);
}

const KINDS = new Set<string>(['tool', 'resource', 'resource-template', 'prompt']);

/**
 * Reads the items of a relayed change; undefined (everyone is told) when they are missing or
 * malformed, as another replica's message is not trusted to be well-formed.
 */
export function readRelayedItems(value: unknown): TouchedItem[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const items: TouchedItem[] = [];
  for (const v of value as unknown[]) {
    if (typeof v !== 'object' || v === null) return undefined;
    const { of, key, scopes, rule } = v as Record<string, unknown>;
    if (typeof of !== 'string' || !KINDS.has(of) || typeof key !== 'string') return undefined;
    if (scopes !== undefined && !(Array.isArray(scopes) && scopes.every((s) => typeof s === 'string')))
      return undefined;
    items.push({
      of: of as Definition['kind'],
      key,
      ...(scopes === undefined ? {} : { scopes: scopes as string[] }),
      ...(rule === true ? { rule: true } : {}),
    });
  }
  return items;
}

function localRule(registry: DefinitionLookup, item: TouchedItem): Restrictable['visible'] {
  const def =
    item.of === 'tool'
      ? registry.tool(item.key)
      : item.of === 'prompt'
        ? registry.prompt(item.key)
        : item.of === 'resource'
          ? registry.resource(item.key)
          : registry.templateByName(item.key);
  return def?.spec.visible;
}

function couldSee(
  item: TouchedItem,
  identity: Identity,
  visible: Visibility,
  registry: DefinitionLookup,
): boolean {
  let spec = item.spec;
  if (!spec) {
    if (item.rule) {
      const rule = localRule(registry, item);
      // This replica has no rule for the item (it never had it, or removed it already).
      if (!rule) return true;
      spec = { scopes: item.scopes, visible: rule };
    } else spec = { scopes: item.scopes };
  }
  try {
    return visible(spec, identity);
  } catch {
    // A rule that throws: telling the caller once too often is harmless.
    return true;
  }
}

/**
 * Whether `change` can alter what `identity` is listed: true without an identity (auth off,
 * everything listed) or when the change does not say what it touched.
 *
 * @example
 * if (concerns(change, session.identity, visible, registry)) channel.send(listChanged);
 */
export function concerns(
  change: ListChange,
  identity: Identity | undefined,
  visible: Visibility,
  registry: DefinitionLookup,
): boolean {
  if (identity === undefined || change.items === undefined) return true;
  return change.items.some((item) => couldSee(item, identity, visible, registry));
}

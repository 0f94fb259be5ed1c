/**
 * Reads the upstream's lists (tools, prompts, resources, resource templates) one item at a
 * time. The official client checks a whole list against the protocol's schema at once, so one
 * item it cannot take (an input schema nested 800 levels overflows its validator's stack) would
 * lose every item, and with it start-up. Here each page is read as it comes, and each item is
 * judged on its own: nested deeper than MAX_ITEM_DEPTH, larger than MAX_ITEM_BYTES, or not of
 * the protocol's shape, it is left out, with the reason, and the others are served.
 */
import { type Client, specTypeSchemas } from '@modelcontextprotocol/client';

/** The deepest nesting of one listed item (its schemas included), in JSON levels. */
export const MAX_ITEM_DEPTH = 256;
/** The largest listed item, as JSON text. */
export const MAX_ITEM_BYTES = 1024 * 1024;
/** Pages read of one list: an upstream whose cursors never end must not hold start-up. */
const MAX_PAGES = 1000;

export type ListName = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';

const METHOD: Record<ListName, string> = {
  tools: 'tools/list',
  prompts: 'prompts/list',
  resources: 'resources/list',
  resourceTemplates: 'resources/templates/list',
};

const SHAPE = {
  tools: specTypeSchemas.Tool,
  prompts: specTypeSchemas.Prompt,
  resources: specTypeSchemas.Resource,
  resourceTemplates: specTypeSchemas.ResourceTemplate,
} as const;

type ItemOf = {
  tools: Awaited<ReturnType<Client['listTools']>>['tools'][number];
  prompts: Awaited<ReturnType<Client['listPrompts']>>['prompts'][number];
  resources: Awaited<ReturnType<Client['listResources']>>['resources'][number];
  resourceTemplates: Awaited<ReturnType<Client['listResourceTemplates']>>['resourceTemplates'][number];
};

/** An item left out, and why. */
export interface Refused {
  /** Its name (tools, prompts), URI or URI template, or its place in the list when it has none. */
  readonly name: string;
  readonly reason: string;
}

/** A page as it came, unchecked: the items are judged one by one below. */
const PAGE = {
  '~standard': {
    version: 1 as const,
    vendor: 'mcp-toolkit-proxy',
    validate: (value: unknown) =>
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? { value: value as Record<string, unknown> }
        : { issues: [{ message: 'a list result must be an object' }] },
  },
};

/**
 * How deeply `value` nests, counted without recursion and given up past `max` (a deeper item
 * is refused whatever its exact depth).
 */
export function depthOf(value: unknown, max: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  const stack: [object, number][] = [[value, 1]];
  let deepest = 1;
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [object, number];
    if (depth > deepest) deepest = depth;
    if (deepest > max) return deepest;
    for (const child of Object.values(current)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return deepest;
}

function nameOf(item: unknown, index: number): string {
  if (typeof item === 'object' && item !== null) {
    const o = item as Record<string, unknown>;
    for (const key of ['name', 'uri', 'uriTemplate'] as const) {
      if (typeof o[key] === 'string') return (o[key] as string).slice(0, 200);
    }
  }
  return `#${index}`;
}

/** Why one item cannot be served, or undefined when it can. */
export function itemProblem(list: ListName, item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return 'it is not an object';
  if (depthOf(item, MAX_ITEM_DEPTH) > MAX_ITEM_DEPTH) {
    return `it is nested deeper than ${MAX_ITEM_DEPTH} levels`;
  }
  const bytes = JSON.stringify(item).length;
  if (bytes > MAX_ITEM_BYTES) return `it is ${bytes} bytes of JSON, more than ${MAX_ITEM_BYTES}`;
  const checked = SHAPE[list]['~standard'].validate(item);
  if (checked.issues !== undefined) {
    const [first] = checked.issues;
    const where = first?.path?.map((p) => (typeof p === 'object' ? String(p.key) : String(p))).join('.');
    return `it is not a valid ${METHOD[list].split('/')[0]} item${where ? ` (${where})` : ''}: ${first?.message ?? 'invalid'}`;
  }
  return undefined;
}

/**
 * Reads every page of one list, keeping the items that can be served.
 *
 * @example
 * const { items, refused } = await readList(client, 'tools', { signal });
 */
export async function readList<L extends ListName>(
  client: Client,
  list: L,
  options: { signal?: AbortSignal; timeout?: number } = {},
): Promise<{ items: ItemOf[L][]; refused: Refused[] }> {
  const items: ItemOf[L][] = [];
  const refused: Refused[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = (await client.request(
      { method: METHOD[list], params: cursor !== undefined ? { cursor } : {} },
      PAGE,
      options,
    )) as Record<string, unknown>;
    const found = result[list];
    if (!Array.isArray(found)) throw new Error(`the upstream's ${METHOD[list]} result has no ${list} array`);
    for (const item of found) {
      const problem = itemProblem(list, item);
      if (problem === undefined) items.push(item as ItemOf[L]);
      else refused.push({ name: nameOf(item, items.length + refused.length), reason: problem });
    }
    const next = result.nextCursor;
    if (typeof next !== 'string' || seen.has(next)) return { items, refused };
    seen.add(next);
    cursor = next;
  }
  return { items, refused };
}

/**
 * The upstream's tools, resources, resource templates and prompts as our own definitions,
 * made with the public `define*` API: each goes through our call wrapper (auth, scopes, rate
 * limits, argument validation, deadline, spans, logs) and its handler forwards the request
 * upstream. `Mirror` keeps the registry equal to the upstream's lists: on each sync it removes
 * what went away or changed and adds what is new, so clients get `list_changed`.
 */

import type { Definition, JsonSchema, Logger, PluginApp } from '@mcp-toolkit/server';
import type { Client } from '@modelcontextprotocol/client';
import {
  type HiddenArguments,
  promptDef,
  resourceDef,
  templateDef,
  toolDef,
  type Upstreamed,
  type UpstreamTool,
} from './definitions.ts';
import { type Filter, makeFilter } from './filter.ts';
import { type Refused, readList } from './lists.ts';
import type { Parking } from './parking.ts';
import type { UpstreamPool } from './pool.ts';
import type { UpstreamSpec } from './specs.ts';
import { servedName, undeclaredHidden } from './transform.ts';
import type { ListKind } from './upstream.ts';
import type { ToolTransform } from './upstream-list.ts';

export { templateVariables } from './definitions.ts';
export type { HiddenArguments };

type Entry = { def: Definition; key: string; fingerprint: string };

/** What one sync found upstream and served. */
export interface MirrorCounts {
  upstreamTools: number;
  tools: number;
  resources: number;
  resourceTemplates: number;
  prompts: number;
}

const NONE = { items: [], refused: [] } as const;

export class Mirror {
  readonly #u: Upstreamed;
  readonly #app: PluginApp;
  readonly #logger: Logger;
  readonly #filter: Filter;
  readonly #spec: UpstreamSpec;
  readonly #hidden: HiddenArguments;
  /** What we registered, per kind, by its registry key. */
  readonly #entries = new Map<string, Map<string, Entry>>();
  /** What was left out, per kind and name, with the reason: warned about once, not on every sync. */
  readonly #refused = new Map<string, string>();
  #upstreamTools = 0;

  constructor(
    pool: UpstreamPool,
    spec: UpstreamSpec,
    app: PluginApp,
    parking: Parking,
    logger: Logger,
    hidden: HiddenArguments = new Map(),
  ) {
    const { settings } = spec;
    this.#u = { pool, settings, parking, logger, uris: spec.uris };
    this.#app = app;
    this.#logger = logger;
    this.#spec = spec;
    this.#hidden = hidden;
    this.#filter = makeFilter(settings.include, settings.exclude);
  }

  counts(): MirrorCounts {
    const n = (k: string) => this.#entries.get(k)?.size ?? 0;
    return {
      upstreamTools: this.#upstreamTools,
      tools: n('tool'),
      resources: n('resource'),
      resourceTemplates: n('resource-template'),
      prompts: n('prompt'),
    };
  }

  /** Reads every list the upstream offers and brings the registry in line. */
  async syncAll(client: Client): Promise<void> {
    await this.sync(client, 'tools');
    await this.sync(client, 'prompts');
    await this.sync(client, 'resources');
  }

  /** Re-reads one list (after `list_changed`, or a reconnection). */
  async sync(client: Client, kind: ListKind): Promise<void> {
    const caps = client.getServerCapabilities() ?? {};
    const completes = caps.completions !== undefined;
    const prefix = this.#u.settings.prefix ?? '';
    if (kind === 'tools') {
      const { items: tools, refused } = caps.tools ? await readList(client, 'tools') : NONE;
      this.#upstreamTools = tools.length + refused.length;
      this.#warnRefused('tool', refused);
      const wanted = tools.filter((t) => this.#filter.name(t.name));
      this.#checkTransforms(tools);
      this.#apply(
        'tool',
        wanted.map((t) => {
          const transform = this.#spec.tools[t.name];
          const name = servedName(prefix, t.name, transform);
          return {
            key: name,
            // A transform is part of what is served: its change (a new deploy) is a change.
            item: transform === undefined ? t : { t, transform },
            make: () => toolDef(this.#u, t, name, transform),
          };
        }),
      );
    } else if (kind === 'prompts') {
      const { items: prompts, refused } = caps.prompts ? await readList(client, 'prompts') : NONE;
      this.#warnRefused('prompt', refused);
      const wanted = prompts.filter((p) => this.#filter.name(p.name));
      this.#apply(
        'prompt',
        wanted.map((p) => ({
          key: prefix + p.name,
          item: p,
          make: () => promptDef(this.#u, p, prefix + p.name, completes),
        })),
      );
    } else {
      const resources = caps.resources ? await readList(client, 'resources') : NONE;
      const templates = caps.resources ? await readList(client, 'resourceTemplates') : NONE;
      this.#warnRefused('resource', resources.refused);
      this.#warnRefused('resource-template', templates.refused);
      this.#apply(
        'resource',
        resources.items
          .filter((r) => this.#filter.uri(r.uri))
          .map((r) => ({ key: r.uri, item: r, make: () => resourceDef(this.#u, r) })),
      );
      this.#apply(
        'resource-template',
        templates.items
          .filter((t) => this.#filter.uri(t.uriTemplate))
          .map((t) => ({ key: t.uriTemplate, item: t, make: () => templateDef(this.#u, t, completes) })),
      );
    }
  }

  /**
   * A transform naming a tool the upstream does not have (now), or hiding an argument its schema
   * does not declare, is most likely a typo: one warning each, and the rest is served.
   */
  #checkTransforms(tools: readonly UpstreamTool[]): void {
    const upstream = this.#spec.name ?? 'upstream';
    for (const [name, transform] of Object.entries(this.#spec.tools)) {
      const tool = tools.find((t) => t.name === name);
      const undeclared = tool && undeclaredHidden(tool.inputSchema as JsonSchema, transform.hide);
      const problem =
        tool === undefined
          ? `upstream ${upstream} has no tool ${name} (now): its entry in tools transforms nothing`
          : undeclared !== undefined && undeclared.length > 0
            ? `the tools transform of ${name} (upstream ${upstream}) hides ${undeclared.join(', ')}, which its input schema does not declare; sent with its fixed value anyway`
            : undefined;
      const key = `transform\u0000${name}`;
      if (problem === undefined) this.#refused.delete(key);
      else if (this.#refused.get(key) !== problem) {
        this.#refused.set(key, problem);
        this.#logger.warn({ tool: name }, problem);
      }
    }
  }

  /** One warning per item left out (again only when its reason changes). */
  #warnRefused(kind: Definition['kind'], refused: readonly Refused[]): void {
    for (const { name, reason } of refused) this.#refuse(kind, name, reason);
  }

  #refuse(kind: Definition['kind'], name: string, reason: string): void {
    const key = `${kind}\u0000${name}`;
    if (this.#refused.get(key) === reason) return;
    this.#refused.set(key, reason);
    this.#logger.warn({ [kind]: name, reason }, `upstream ${kind} ${name} not served: ${reason}`);
  }

  /** Removes what went away or changed, adds what is new or changed; leaves the rest alone. */
  #apply(kind: Definition['kind'], wanted: { key: string; item: unknown; make: () => Definition }[]): void {
    const current = this.#entries.get(kind) ?? new Map<string, Entry>();
    this.#entries.set(kind, current);
    const next = new Map(wanted.map((w) => [w.key, w]));
    for (const [key, entry] of current) {
      const w = next.get(key);
      if (w === undefined || JSON.stringify(w.item) !== entry.fingerprint) {
        this.#app.remove(kind, key);
        current.delete(key);
        if (kind === 'tool') this.#hidden.delete(key);
      }
    }
    for (const w of wanted) {
      if (current.has(w.key)) continue;
      let def: Definition;
      try {
        def = w.make();
        this.#app.add(def);
      } catch (err) {
        this.#refuse(kind, w.key, (err as Error).message);
        continue;
      }
      current.set(w.key, { def, key: w.key, fingerprint: JSON.stringify(w.item) });
      const hide = (w.item as { transform?: ToolTransform }).transform?.hide;
      if (kind === 'tool' && hide !== undefined) this.#hidden.set(w.key, Object.keys(hide));
    }
  }
}

/**
 * The upstream's tools, resources, resource templates and prompts as our own definitions,
 * made with the public `define*` API: each goes through our call wrapper (auth, scopes, rate
 * limits, argument validation, deadline, spans, logs) and its handler forwards the request
 * upstream. `Mirror` keeps the registry equal to the upstream's lists: on each sync it removes
 * what went away or changed and adds what is new, so clients get `list_changed`.
 */

import {
  type Definition,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineTool,
  type HandlerContext,
  type JsonObject,
  type JsonSchema,
  type Logger,
  type PluginApp,
} from '@mcp-toolkit/server';
import type { Client } from '@modelcontextprotocol/client';
import { forwardError } from './errors.ts';
import { type Filter, makeFilter } from './filter.ts';
import { forwardToolCall } from './forward.ts';
import { type Refused, readList } from './lists.ts';
import { ownMeta } from './meta.ts';
import type { Parking } from './parking.ts';
import type { UpstreamPool } from './pool.ts';
import type { ProxySettings } from './settings.ts';
import { metaOf, traced, type UpstreamRequest } from './trace.ts';
import type { ListKind } from './upstream.ts';

/** Our own deadline (ctx.signal) bounds a call; the client's per-request timer must not. */
const NO_CLIENT_TIMEOUT = 24 * 60 * 60 * 1000;

type Upstreamed = { pool: UpstreamPool; settings: ProxySettings; parking: Parking; logger: Logger };

/** The upstream client for one request (the shared connection, or its session's). */
async function clientFor({ pool }: Upstreamed, ctx: HandlerContext): Promise<Client> {
  return (await pool.forRequest(ctx)).client(ctx.signal);
}

/** Sends one request upstream for `ctx`, in a CLIENT span (trace.ts); a failure is rethrown as ours. */
async function send<T>(
  u: Upstreamed,
  ctx: HandlerContext,
  request: UpstreamRequest,
  call: (
    client: Client,
    t: { _meta?: Record<string, string>; headers?: Record<string, string> },
  ) => Promise<T>,
): Promise<T> {
  const client = await clientFor(u, ctx).catch(forwardError);
  return traced(request, u.settings, client, ctx.signal, (t) =>
    call(client, { ...metaOf(t), ...(t.headers !== undefined ? { headers: t.headers } : {}) }),
  ).catch(forwardError);
}
type Entry = { def: Definition; key: string; fingerprint: string };
type UpstreamTool = Awaited<ReturnType<Client['listTools']>>['tools'][number];
type UpstreamPrompt = Awaited<ReturnType<Client['listPrompts']>>['prompts'][number];
type UpstreamResource = Awaited<ReturnType<Client['listResources']>>['resources'][number];
type UpstreamTemplate = Awaited<ReturnType<Client['listResourceTemplates']>>['resourceTemplates'][number];

/** The names of an RFC 6570 template's variables (`{a}`, `{+path}`, `{?q,lang}`, `{x*}`, `{y:3}`). */
export function templateVariables(template: string): string[] {
  const names: string[] = [];
  for (const m of template.matchAll(/\{[+#./;?&]?([^}]+)\}/g)) {
    for (const part of (m[1] ?? '').split(',')) names.push(part.replace(/(\*|:\d+)$/, '').trim());
  }
  return names.filter((n) => n !== '');
}

/**
 * The client's options for one forwarded request: our signal (cancellation and our deadline
 * reach the upstream as `notifications/cancelled`), and the upstream's progress passed on to
 * ours. `flushed()` waits until the progress sent so far has gone out, so that none of it
 * arrives after the result.
 */
function callOptions(ctx: HandlerContext) {
  const sent: Promise<void>[] = [];
  const options = {
    signal: ctx.signal,
    timeout: NO_CLIENT_TIMEOUT,
    ...(ctx.meta.progressToken !== undefined
      ? {
          resetTimeoutOnProgress: true,
          onprogress: (p: { progress: number; total?: number; message?: string }) => {
            sent.push(ctx.progress(p.progress, p.total, p.message).catch(() => {}));
          },
        }
      : {}),
  };
  return { options, flushed: () => Promise.all(sent) };
}

/** Copies the optional fields an upstream item carries. */
function pick<T extends object>(item: T, keys: readonly (keyof T)[]): Partial<T> {
  const out: Partial<T> = {};
  for (const k of keys) if (item[k] !== undefined) out[k] = item[k];
  return out;
}

function toolDef({ pool, settings, parking, logger }: Upstreamed, t: UpstreamTool, name: string): Definition {
  const scopes = settings.scopes[t.name] ?? settings.scopes[name] ?? settings.scopes['*'];
  const hasOutput = t.outputSchema !== undefined;
  return defineTool(
    {
      name,
      description: t.description ?? t.title ?? `The upstream tool ${t.name}.`,
      ...(t.title !== undefined ? { title: t.title } : {}),
      input: t.inputSchema as JsonSchema,
      ...(hasOutput ? { output: t.outputSchema as JsonSchema } : {}),
      ...(t.annotations !== undefined ? { annotations: t.annotations } : {}),
      ...(t.icons !== undefined ? { icons: t.icons as JsonObject[] } : {}),
      ...(t._meta !== undefined ? { _meta: t._meta as JsonObject } : {}),
      ...(scopes !== undefined && scopes.length > 0 ? { scopes } : {}),
    },
    (args: Record<string, unknown>, ctx: HandlerContext) =>
      forwardToolCall(
        {
          upstream: (ctx) => pool.forRequest(ctx),
          name: t.name,
          inputTimeoutMs: settings.inputTimeoutMs,
          parking,
          logger,
          settings,
        },
        args,
        ctx,
      ) as never,
  );
}

function promptDef(u: Upstreamed, p: UpstreamPrompt, name: string, completes: boolean): Definition {
  return definePrompt(
    {
      name,
      description: p.description ?? p.title ?? `The upstream prompt ${p.name}.`,
      ...(p.title !== undefined ? { title: p.title } : {}),
      ...(p._meta !== undefined ? { _meta: p._meta as JsonObject } : {}),
      arguments: (p.arguments ?? []).map((a) => ({
        name: a.name,
        ...(a.description !== undefined ? { description: a.description } : {}),
        ...(a.required !== undefined ? { required: a.required } : {}),
        ...(completes
          ? {
              complete: async (value: string, { arguments: context, ctx }) => {
                const r = await send(
                  u,
                  ctx,
                  { method: 'completion/complete' },
                  (client, { headers, ...meta }) =>
                    client.complete(
                      {
                        ref: { type: 'ref/prompt', name: p.name },
                        argument: { name: a.name, value },
                        context: { arguments: { ...context } },
                        ...meta,
                      },
                      { signal: ctx.signal, headers },
                    ),
                );
                return r.completion.values;
              },
            }
          : {}),
      })),
    },
    async (args, ctx) => {
      const { options, flushed } = callOptions(ctx);
      const r = await send(u, ctx, { method: 'prompts/get', name: p.name }, (client, { headers, ...meta }) =>
        client.getPrompt({ name: p.name, arguments: { ...args }, ...meta }, { ...options, headers }),
      );
      await flushed();
      const { _meta, ...rest } = r;
      const meta = ownMeta(_meta);
      return (meta !== undefined ? { ...rest, _meta: meta } : rest) as never;
    },
  );
}

async function read(u: Upstreamed, uri: string, ctx: HandlerContext) {
  const { options, flushed } = callOptions(ctx);
  const r = await send(u, ctx, { method: 'resources/read', uri }, (client, { headers, ...meta }) =>
    client.readResource({ uri, ...meta }, { ...options, cacheMode: 'bypass', headers }),
  );
  await flushed();
  return r.contents as never;
}

function resourceDef(u: Upstreamed, r: UpstreamResource): Definition {
  return defineResource(
    {
      uri: r.uri,
      name: r.name,
      ...pick(r, ['title', 'description', 'mimeType', 'size']),
      ...(r.annotations !== undefined ? { annotations: r.annotations as JsonObject } : {}),
      ...(r._meta !== undefined ? { _meta: r._meta as JsonObject } : {}),
    },
    (uri, ctx) => read(u, uri, ctx),
  );
}

function templateDef(u: Upstreamed, t: UpstreamTemplate, completes: boolean): Definition {
  const complete = completes
    ? Object.fromEntries(
        templateVariables(t.uriTemplate).map((variable) => [
          variable,
          async (
            value: string,
            { arguments: context, ctx }: { arguments: Readonly<Record<string, string>>; ctx: HandlerContext },
          ) => {
            const r = await send(u, ctx, { method: 'completion/complete' }, (client, { headers, ...meta }) =>
              client.complete(
                {
                  ref: { type: 'ref/resource', uri: t.uriTemplate },
                  argument: { name: variable, value },
                  context: { arguments: { ...context } },
                  ...meta,
                },
                { signal: ctx.signal, headers },
              ),
            );
            return r.completion.values;
          },
        ]),
      )
    : undefined;
  return defineResourceTemplate(
    {
      uriTemplate: t.uriTemplate,
      name: t.name,
      ...pick(t, ['title', 'description', 'mimeType']),
      ...(t._meta !== undefined ? { _meta: t._meta as JsonObject } : {}),
      ...(complete !== undefined ? { complete } : {}),
    },
    (uri, _variables, ctx) => read(u, uri, ctx),
  );
}

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
  /** What we registered, per kind, by its registry key. */
  readonly #entries = new Map<string, Map<string, Entry>>();
  /** What was left out, per kind and name, with the reason: warned about once, not on every sync. */
  readonly #refused = new Map<string, string>();
  #upstreamTools = 0;

  constructor(pool: UpstreamPool, settings: ProxySettings, app: PluginApp, parking: Parking) {
    this.#u = { pool, settings, parking, logger: app.logger };
    this.#app = app;
    this.#logger = app.logger;
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
      this.#apply(
        'tool',
        wanted.map((t) => ({
          key: prefix + t.name,
          item: t,
          make: () => toolDef(this.#u, t, prefix + t.name),
        })),
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
    }
  }
}

/**
 * The upstream's tools, resources, resource templates and prompts as our own definitions,
 * made with the public `define*` API: each goes through our call wrapper (auth, scopes, rate
 * limits, argument validation, deadline, spans, logs) and its handler forwards the request
 * upstream, under the upstream's transforms and URI space (transform.ts).
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
} from '@mcp-toolkit/server';
import type { Client } from '@modelcontextprotocol/client';
import { forwardError } from './errors.ts';
import { forwardToolCall } from './forward.ts';
import { ownMeta } from './meta.ts';
import type { Parking } from './parking.ts';
import type { UpstreamPool } from './pool.ts';
import type { ProxySettings } from './settings.ts';
import { metaOf, traced, type UpstreamRequest } from './trace.ts';
import { hideArguments, type UriSpace, withHidden } from './transform.ts';
import type { ToolTransform } from './upstream-list.ts';

/** Our own deadline (ctx.signal) bounds a call; the client's per-request timer must not. */
const NO_CLIENT_TIMEOUT = 24 * 60 * 60 * 1000;

export type Upstreamed = {
  pool: UpstreamPool;
  settings: ProxySettings;
  parking: Parking;
  logger: Logger;
  uris: UriSpace;
};

/** The hidden arguments of each served tool, by its served name (all upstreams of one plugin). */
export type HiddenArguments = Map<string, readonly string[]>;

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
export type UpstreamTool = Awaited<ReturnType<Client['listTools']>>['tools'][number];
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

export function toolDef(
  { pool, settings, parking, logger }: Upstreamed,
  t: UpstreamTool,
  name: string,
  transform: ToolTransform | undefined,
): Definition {
  const scopes = settings.scopes[t.name] ?? settings.scopes[name] ?? settings.scopes['*'];
  const hasOutput = t.outputSchema !== undefined;
  const hide = transform?.hide;
  return defineTool(
    {
      name,
      description: transform?.description ?? t.description ?? t.title ?? `The upstream tool ${t.name}.`,
      ...(t.title !== undefined ? { title: t.title } : {}),
      input: hideArguments(t.inputSchema as JsonSchema, hide),
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
        // On a later 2026 round the arguments are the first round's again: checked the same.
        withHidden(name, args, hide),
        ctx,
      ) as never,
  );
}

export function promptDef(u: Upstreamed, p: UpstreamPrompt, name: string, completes: boolean): Definition {
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

async function read(u: Upstreamed, ours: string, ctx: HandlerContext) {
  const { options, flushed } = callOptions(ctx);
  const uri = u.uris.theirs(ours) ?? ours;
  const r = await send(u, ctx, { method: 'resources/read', uri }, (client, { headers, ...meta }) =>
    client.readResource({ uri, ...meta }, { ...options, cacheMode: 'bypass', headers }),
  );
  await flushed();
  // The contents name the upstream's URIs: served as ours, so that a client can read them again.
  return r.contents.map((c) => ({ ...c, uri: u.uris.ours(c.uri) })) as never;
}

export function resourceDef(u: Upstreamed, r: UpstreamResource): Definition {
  return defineResource(
    {
      uri: u.uris.ours(r.uri),
      name: r.name,
      ...pick(r, ['title', 'description', 'mimeType', 'size']),
      ...(r.annotations !== undefined ? { annotations: r.annotations as JsonObject } : {}),
      ...(r._meta !== undefined ? { _meta: r._meta as JsonObject } : {}),
    },
    (uri, ctx) => read(u, uri, ctx),
  );
}

export function templateDef(u: Upstreamed, t: UpstreamTemplate, completes: boolean): Definition {
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
      uriTemplate: u.uris.ours(t.uriTemplate),
      name: t.name,
      ...pick(t, ['title', 'description', 'mimeType']),
      ...(t._meta !== undefined ? { _meta: t._meta as JsonObject } : {}),
      ...(complete !== undefined ? { complete } : {}),
    },
    (uri, _variables, ctx) => read(u, uri, ctx),
  );
}

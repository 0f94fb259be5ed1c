/**
 * Conformance checks of what a server offers beside the protocol's core: its MCP Apps views
 * (SEP-1865: `ui://` resources of type `text/html;profile=mcp-app`, `_meta.ui` on them and
 * on the tools that link to them, the `io.modelcontextprotocol/ui` extension advertised) and,
 * for a URL target, its server card and catalogs (SEP-2127 draft). A server with none of
 * them gets no apps checks and card checks that did not run, never failures: all of it is optional.
 */

import {
  checkCatalog,
  checkServerCard,
  SERVER_CARD_MEDIA_TYPE,
  serverCardUrl,
} from '../../base/card-check.ts';
import { isObject, type JsonObject } from '../../base/jsonrpc.ts';
import { APP_MIME_TYPE, UI_EXTENSION } from '../../protocol.ts';
import { describeAnswer } from '../client/answer.ts';
import type { ProbeClient } from '../client/probe-client.ts';
import type { ConnectOptions } from '../client/targets.ts';
import type { Recorder } from './recorder.ts';

const CSP_KEYS = new Set(['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains']);
const PERMISSIONS = new Set(['camera', 'microphone', 'geolocation', 'clipboardWrite']);

/** Problems of a resource's `_meta.ui` (SEP-1865 UIResourceMeta). */
export function uiResourceMetaProblems(where: string, ui: unknown): string[] {
  if (ui === undefined) return [];
  if (!isObject(ui)) return [`${where}: _meta.ui is not an object`];
  const p: string[] = [];
  if (ui.csp !== undefined) {
    if (!isObject(ui.csp)) p.push(`${where}: _meta.ui.csp is not an object`);
    else
      for (const [key, list] of Object.entries(ui.csp)) {
        if (!CSP_KEYS.has(key)) p.push(`${where}: unknown _meta.ui.csp.${key}`);
        else if (!Array.isArray(list) || list.some((o) => typeof o !== 'string'))
          p.push(`${where}: _meta.ui.csp.${key} is not a list of origins`);
      }
  }
  if (ui.permissions !== undefined) {
    if (!isObject(ui.permissions)) p.push(`${where}: _meta.ui.permissions is not an object`);
    else
      for (const [key, value] of Object.entries(ui.permissions)) {
        if (!PERMISSIONS.has(key)) p.push(`${where}: unknown permission ${key}`);
        else if (!isObject(value)) p.push(`${where}: _meta.ui.permissions.${key} must be an object ({})`);
      }
  }
  if (ui.prefersBorder !== undefined && typeof ui.prefersBorder !== 'boolean')
    p.push(`${where}: _meta.ui.prefersBorder is not a boolean`);
  if (ui.domain !== undefined && typeof ui.domain !== 'string')
    p.push(`${where}: _meta.ui.domain is not a string`);
  return p;
}

function toolLink(tool: JsonObject): { uri?: unknown; visibility?: unknown } | undefined {
  const meta = isObject(tool._meta) ? tool._meta : undefined;
  if (!meta) return undefined;
  const ui = isObject(meta.ui) ? meta.ui : undefined;
  const legacy = meta['ui/resourceUri'];
  if (!ui && legacy === undefined) return undefined;
  return { uri: ui?.resourceUri ?? legacy, visibility: ui?.visibility };
}

/** The MCP Apps checks (any transport). */
export async function checkApps(c: ProbeClient, rec: Recorder, capabilities: JsonObject): Promise<void> {
  const tools = isObject(capabilities.tools) ? (await c.listAll('tools/list', 'tools')).items : [];
  const resources = isObject(capabilities.resources)
    ? (await c.listAll('resources/list', 'resources')).items
    : [];
  const views = resources.filter((r) => r.mimeType === APP_MIME_TYPE || String(r.uri).startsWith('ui://'));
  const linked = tools.flatMap((t) => {
    const link = toolLink(t);
    return link ? [{ name: String(t.name), ...link }] : [];
  });
  const extensions = isObject(capabilities.extensions) ? capabilities.extensions : {};
  // A server without views gets no apps checks at all (not even skipped ones): most have none.
  if (views.length === 0 && linked.length === 0 && !(UI_EXTENSION in extensions)) return;
  rec.expect(
    'apps.extension',
    isObject(extensions[UI_EXTENSION])
      ? []
      : [`views are offered but capabilities.extensions["${UI_EXTENSION}"] is missing`],
  );
  const problems: string[] = [];
  const readable = new Set<string>();
  const readView = async (uri: string, where: string): Promise<void> => {
    const answer = await c.request('resources/read', { uri });
    if (answer.kind !== 'result')
      return void problems.push(`${where}: resources/read got ${describeAnswer(answer)}`);
    const content = Array.isArray(answer.result.contents) ? answer.result.contents[0] : undefined;
    if (!isObject(content)) return void problems.push(`${where}: resources/read returned no contents`);
    if (content.mimeType !== APP_MIME_TYPE)
      problems.push(`${where}: read content has mimeType ${String(content.mimeType)}`);
    const html =
      typeof content.text === 'string' ? content.text : typeof content.blob === 'string' ? 'blob' : '';
    if (html === '') problems.push(`${where}: read content has neither text nor blob`);
    else if (html !== 'blob' && !/<html[\s>]|<!doctype html/i.test(html.slice(0, 2048)))
      problems.push(`${where}: the text is not an HTML document`);
    problems.push(
      ...uiResourceMetaProblems(`${where} (read)`, isObject(content._meta) ? content._meta.ui : undefined),
    );
    readable.add(uri);
  };
  for (const view of views) {
    const uri = String(view.uri);
    if (!uri.startsWith('ui://')) problems.push(`${uri}: a view's URI must use ui://`);
    if (view.mimeType !== APP_MIME_TYPE) problems.push(`${uri}: mimeType must be ${APP_MIME_TYPE}`);
    problems.push(...uiResourceMetaProblems(uri, isObject(view._meta) ? view._meta.ui : undefined));
    await readView(uri, uri);
  }
  rec.expect('apps.views', problems, `${views.length} view(s)`);
  const linkProblems: string[] = [];
  for (const link of linked) {
    const where = `tool ${link.name}`;
    if (typeof link.uri !== 'string' || !link.uri.startsWith('ui://')) {
      linkProblems.push(`${where}: _meta.ui.resourceUri is not a ui:// URI`);
      continue;
    }
    const v = link.visibility;
    if (
      v !== undefined &&
      !(Array.isArray(v) && v.length > 0 && v.every((x) => x === 'model' || x === 'app'))
    )
      linkProblems.push(`${where}: _meta.ui.visibility must list "model" and/or "app"`);
    if (!readable.has(link.uri)) {
      const before = problems.length;
      await readView(link.uri, `${where} → ${link.uri}`);
      linkProblems.push(...problems.splice(before));
    }
  }
  if (linked.length === 0) rec.notRun('apps.tool-links', 'no tool links to a view');
  else rec.expect('apps.tool-links', linkProblems, `${linked.length} linked tool(s)`);
}

/** What the card must agree with: serverInfo.version and the versions server/discover lists. */
export function cardFacts(c: ProbeClient): { version?: string; supportedVersions?: unknown } {
  const discovered = c.discoverResult;
  const meta = isObject(discovered?._meta) ? discovered._meta : {};
  const info = c.initializeResult?.serverInfo ?? meta['io.modelcontextprotocol/serverInfo'];
  const version = isObject(info) && typeof info.version === 'string' ? info.version : undefined;
  return {
    ...(version !== undefined ? { version } : {}),
    ...(discovered?.supportedVersions !== undefined
      ? { supportedVersions: discovered.supportedVersions }
      : {}),
  };
}

async function getJson(
  url: string,
  accept: string,
  options: ConnectOptions,
): Promise<{ status: number; type: string; body?: unknown; problem?: string }> {
  try {
    const res = await fetch(url, {
      headers: { ...options.headers, accept },
      signal: AbortSignal.timeout(options.requestTimeoutMs ?? 10_000),
      redirect: 'follow',
    });
    const type = res.headers.get('content-type') ?? '';
    const text = await res.text();
    if (res.status !== 200) return { status: res.status, type };
    try {
      return { status: 200, type, body: JSON.parse(text) };
    } catch {
      return { status: 200, type, problem: 'the body is not JSON' };
    }
  } catch (err) {
    return { status: 0, type: '', problem: (err as Error).message };
  }
}

/** A 4xx: the server offers no such document (all of it is optional), which is no failure. */
const absent = (status: number) => status >= 400 && status < 500;

/** The server card at `<endpoint>/server-card` and the catalogs at the origin (URL targets). */
export async function checkServerCardAndCatalog(
  endpoint: string,
  rec: Recorder,
  facts: { version?: string; supportedVersions?: unknown },
  options: ConnectOptions = {},
): Promise<void> {
  const cardUrl = serverCardUrl(endpoint);
  const card = await getJson(cardUrl, SERVER_CARD_MEDIA_TYPE, options);
  if (absent(card.status)) {
    rec.notRun('card', `no server card at ${cardUrl} (HTTP ${card.status})`);
  } else if (card.status !== 200 || card.problem) {
    rec.fail('card', `GET ${cardUrl}: ${card.problem ?? `HTTP ${card.status}`}`);
  } else {
    const problems = checkServerCard(card.body);
    if (!card.type.startsWith(SERVER_CARD_MEDIA_TYPE))
      problems.push(`Content-Type is ${card.type || '(none)'}`);
    const body = card.body as JsonObject;
    if (facts.version !== undefined && body.version !== facts.version)
      problems.push(`version ${String(body.version)} differs from serverInfo.version ${facts.version}`);
    const remotes = Array.isArray(body.remotes) ? (body.remotes as JsonObject[]) : [];
    const remote = remotes.find((r) => r.type === 'streamable-http');
    if (!remote) problems.push('remotes has no streamable-http endpoint');
    else if (Array.isArray(facts.supportedVersions) && Array.isArray(remote.supportedProtocolVersions)) {
      const missing = (remote.supportedProtocolVersions as unknown[]).filter(
        (v) => !(facts.supportedVersions as unknown[]).includes(v),
      );
      if (missing.length > 0)
        problems.push(`the card claims versions server/discover lacks: ${missing.join(', ')}`);
    }
    rec.expect('card', problems);
  }
  const origin = new URL(endpoint).origin;
  const catalogs = [
    ['catalog.mcp', `${origin}/.well-known/mcp/catalog.json`],
    ['catalog.ai', `${origin}/.well-known/ai-catalog.json`],
  ] as const;
  for (const [id, url] of catalogs) {
    const got = await getJson(url, 'application/json', options);
    if (absent(got.status)) rec.notRun(id, `no catalog at ${url} (HTTP ${got.status})`);
    else if (got.status !== 200 || got.problem)
      rec.fail(id, `GET ${url}: ${got.problem ?? `HTTP ${got.status}`}`);
    else rec.expect(id, checkCatalog(got.body));
  }
}

/**
 * MCP Apps (SEP-1865, extension `io.modelcontextprotocol/ui`): a view is an HTML resource
 * under `ui://` with mime type `text/html;profile=mcp-app`, which hosts render in a
 * sandboxed iframe beside the conversation. `defineApp` declares one; tools link to it with
 * `ui: { resourceUri, visibility }` on `defineTool`, which becomes `_meta.ui` on the tool
 * (tool-ui.ts, below the definitions this file builds on).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InternalCode, ToolkitError } from '../base/errors.ts';
import type { JsonObject } from '../base/jsonrpc.ts';
import { defineResource, type ResourceDefinition } from './define.ts';
import type { Registry } from './registry.ts';
import { APP_MIME_TYPE, UI_EXTENSION } from './tool-ui.ts';
import type { ResourceSpec } from './types.ts';

export { APP_MIME_TYPE, clientSupportsApps, isAppOnlySpec, UI_EXTENSION } from './tool-ui.ts';

/** Origins a view may reach; the host turns them into the iframe's Content-Security-Policy. */
export interface AppCsp {
  /** fetch/XHR/WebSocket origins (`connect-src`). */
  connectDomains?: readonly string[];
  /** Scripts, styles, images, fonts, media (`script-src`, `style-src`, `img-src`, ...). */
  resourceDomains?: readonly string[];
  /** Nested iframes (`frame-src`). */
  frameDomains?: readonly string[];
  /** Allowed `<base>` URIs (`base-uri`). */
  baseUriDomains?: readonly string[];
}

export type AppPermission = 'camera' | 'microphone' | 'geolocation' | 'clipboardWrite';

export interface AppSpec {
  /** `ui://<server>/<view>`. */
  uri: string;
  /** Display name; defaults to the URI's last segment. */
  name?: string;
  title?: string;
  description?: string;
  /** The view as one HTML document (inline every script and style; hosts load no files). */
  html?: string;
  /** Or a file holding it (a path, or a URL such as `new URL('./view.html', import.meta.url)`), read once here. */
  file?: string | URL;
  csp?: AppCsp;
  /** Browser features the view asks for; hosts may grant them (iframe `allow`). */
  permissions?: readonly AppPermission[];
  /** Whether the host should draw a border and background around the view. */
  prefersBorder?: boolean;
  /** A dedicated sandbox origin, in the host's own format (host-dependent). */
  domain?: string;
}

const PERMISSIONS = new Set<AppPermission>(['camera', 'microphone', 'geolocation', 'clipboardWrite']);
const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
/** An origin, optionally with a `*.` subdomain wildcard: `https://api.example.com`, `wss://*.example.com`. */
const ORIGIN_RE = /^(https?|wss?):\/\/(\*\.)?[A-Za-z0-9.-]+(:\d+)?$/;

function invalid(message: string): never {
  throw new ToolkitError(InternalCode.InvalidDefinition, message);
}

function uiResourceMeta(spec: AppSpec): JsonObject {
  const ui: JsonObject = {};
  if (spec.csp !== undefined) {
    const csp: JsonObject = {};
    for (const key of CSP_KEYS) {
      const list = spec.csp[key];
      if (list === undefined) continue;
      if (!Array.isArray(list) || list.some((o) => typeof o !== 'string' || !ORIGIN_RE.test(o)))
        invalid(`App ${spec.uri}: csp.${key} must list origins such as "https://api.example.com"`);
      csp[key] = [...list];
    }
    ui.csp = csp;
  }
  if (spec.permissions !== undefined) {
    const permissions: JsonObject = {};
    for (const p of spec.permissions) {
      if (!PERMISSIONS.has(p))
        invalid(`App ${spec.uri}: unknown permission "${p}" (${[...PERMISSIONS].join(', ')})`);
      permissions[p] = {};
    }
    ui.permissions = permissions;
  }
  if (spec.prefersBorder !== undefined) ui.prefersBorder = spec.prefersBorder === true;
  if (spec.domain !== undefined) ui.domain = spec.domain;
  return ui;
}

function loadHtml(spec: AppSpec): string {
  if ((spec.html === undefined) === (spec.file === undefined))
    invalid(`App ${spec.uri}: give exactly one of html and file`);
  if (spec.html !== undefined) {
    if (typeof spec.html !== 'string' || spec.html.trim() === '') invalid(`App ${spec.uri}: html is empty`);
    return spec.html;
  }
  const file = spec.file instanceof URL ? fileURLToPath(spec.file) : (spec.file as string);
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    return invalid(
      `App ${spec.uri}: cannot read ${file} (${String((err as { code?: unknown }).code ?? err)}); build the view first`,
    );
  }
}

/**
 * Declares a view. The result is a resource: add it with `app.add(...)` like any other.
 *
 * @example
 * const chart = defineApp({ uri: 'ui://sales/chart', html: '<!doctype html>...', prefersBorder: true,
 *   csp: { connectDomains: ['https://api.example.com'] } });
 * const report = defineTool({ name: 'sales_report', description: 'Sales by month',
 *   ui: { resourceUri: 'ui://sales/chart' } }, async () => ({ months: [] }));
 */
export function defineApp(spec: AppSpec): ResourceDefinition {
  if (typeof spec.uri !== 'string' || !/^ui:\/\/[^/\s]+(\/\S*)?$/.test(spec.uri))
    invalid(`App URI ${JSON.stringify(spec.uri)} must be ui://<server>/<view>`);
  const html = loadHtml(spec);
  const ui = uiResourceMeta(spec);
  const name = spec.name ?? (spec.uri.split('/').filter(Boolean).at(-1) || spec.uri);
  const resource: ResourceSpec = { uri: spec.uri, name, mimeType: APP_MIME_TYPE, _meta: { ui } };
  if (spec.title !== undefined) resource.title = spec.title;
  if (spec.description !== undefined) resource.description = spec.description;
  // Hosts read _meta.ui from the resources/read content first, the listing as fallback (SEP-1865).
  const content = { uri: spec.uri, mimeType: APP_MIME_TYPE, text: html, _meta: { ui } };
  return defineResource(resource, () => [content]);
}

/** True when a resource definition is a view. */
function isApp(def: ResourceDefinition): boolean {
  return def.listing.mimeType === APP_MIME_TYPE && def.uri.startsWith('ui://');
}

/**
 * Every tool's `ui.resourceUri` must name a registered view: checked once the plugins have
 * registered, so a typo fails at start-up rather than in a host.
 */
export function checkAppLinks(registry: Registry): void {
  for (const listing of registry.toolListing()) {
    const tool = registry.tool(String(listing.name));
    const uri = tool?.spec.ui?.resourceUri;
    if (uri === undefined) continue;
    const view = registry.resource(uri);
    if (!view || !isApp(view))
      invalid(`Tool "${listing.name}" links to ${uri}, which no plugin registered with defineApp`);
  }
}

/** The `capabilities.extensions` entry to advertise, when the registry holds a view. */
export function appsExtension(registry: Registry): JsonObject | undefined {
  for (const listing of registry.resourceListing()) {
    const def = registry.resource(String(listing.uri));
    if (def && isApp(def)) return { [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } };
  }
  return undefined;
}

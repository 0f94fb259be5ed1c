/**
 * The landing page a person sees when they open the server's URL in a browser: what the
 * server is, where and how to connect, and (where the auth mode allows) what it offers.
 * Plain server-rendered HTML with no external assets. Every value from settings, plugins or
 * the request is escaped; the one inline style and the one inline script are allowed by
 * their SHA-256 hashes in a strict Content-Security-Policy, so nothing injected could run.
 */
import { createHash } from 'node:crypto';
import { serverCardUrl } from '../base/card-check.ts';
import type { JsonObject } from '../base/jsonrpc.ts';
import { connectSnippets } from './connect-snippets.ts';
import type { ServerDescription } from './server-description.ts';

/** `&`, `<`, `>`, `"` and `'` as entities: safe in text and in quoted attributes. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1b1b1f; --muted: #5b5b66; --bg: #fff; --panel: #f4f4f6; --line: #dcdce2; --accent: #2456c9; }
@media (prefers-color-scheme: dark) { :root { --fg: #ececf1; --muted: #a4a4b0; --bg: #131316; --panel: #1d1d22; --line: #33333b; --accent: #8fb0ff; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 52rem; margin: 0 auto; padding: 1.25rem 1rem 3rem; }
h1 { font-size: 1.6rem; margin: .2rem 0; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; margin: 2rem 0 .6rem; border-bottom: 1px solid var(--line); padding-bottom: .3rem; }
h3 { font-size: 1rem; margin: 1rem 0 .3rem; }
p, li { overflow-wrap: anywhere; }
.muted { color: var(--muted); }
.badge { display: inline-block; font-size: .8rem; padding: .05rem .5rem; border: 1px solid var(--line); border-radius: 1rem; margin-right: .3rem; }
code, pre { font: .9rem/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
code { background: var(--panel); padding: .05rem .3rem; border-radius: .25rem; overflow-wrap: anywhere; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: .4rem; padding: .7rem; overflow-x: auto; margin: .3rem 0 0; }
pre code { background: none; padding: 0; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; margin: 0; }
dt { font-weight: 600; } dd { margin: 0; overflow-wrap: anywhere; }
@media (max-width: 32rem) { dl { grid-template-columns: 1fr; } dd { margin-bottom: .5rem; } }
ul.items { list-style: none; padding: 0; margin: 0; }
ul.items > li { border: 1px solid var(--line); border-radius: .4rem; padding: .6rem .8rem; margin: .5rem 0; }
.instructions { white-space: pre-wrap; background: var(--panel); border-radius: .4rem; padding: .7rem; }
.snippet { margin: 1rem 0; }
.snippet header { display: flex; justify-content: space-between; align-items: baseline; gap: .5rem; flex-wrap: wrap; }
button.copy { font: inherit; font-size: .8rem; color: var(--accent); background: none; border: 1px solid var(--line); border-radius: .3rem; padding: .1rem .6rem; cursor: pointer; }
a { color: var(--accent); }
`;

// Copy buttons, added by script so the page stays complete without it.
const SCRIPT = `
for (const pre of document.querySelectorAll('pre[data-copy]')) {
  const button = document.createElement('button');
  button.className = 'copy';
  button.type = 'button';
  button.textContent = 'Copy';
  button.addEventListener('click', async () => {
    try { await navigator.clipboard.writeText(pre.textContent); button.textContent = 'Copied'; }
    catch { button.textContent = 'Select and copy'; }
  });
  pre.parentElement.querySelector('header').append(button);
}
`;

const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** The page's Content-Security-Policy: nothing but its own inline style and script, no framing. */
export const LANDING_PAGE_CSP = [
  "default-src 'none'",
  `style-src ${hash(STYLE)}`,
  `script-src ${hash(SCRIPT)}`,
  "img-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const AUTH_TEXT: Record<ServerDescription['auth']['mode'], string> = {
  none: 'None: anyone who can reach this URL can use the server.',
  api_key: 'API key: send it as Authorization: Bearer <key> (or X-API-Key). Ask the operator for one.',
  oauth: 'OAuth 2.1: clients sign in with the authorisation server below and send a bearer token.',
};

function annotationBadges(tool: JsonObject): string {
  const a = (tool.annotations ?? {}) as Record<string, unknown>;
  const badges: string[] = [];
  if (a.readOnlyHint === true) badges.push('read-only');
  if (a.destructiveHint === true && a.readOnlyHint !== true) badges.push('destructive');
  if (a.idempotentHint === true) badges.push('idempotent');
  if (a.openWorldHint === true) badges.push('open world');
  const ui = ((tool._meta ?? {}) as { ui?: { resourceUri?: unknown } }).ui;
  if (typeof ui?.resourceUri === 'string') badges.push(`view: ${ui.resourceUri}`);
  return badges.map((b) => `<span class="badge">${escapeHtml(b)}</span>`).join('');
}

function itemList(items: readonly JsonObject[], key: 'name' | 'uri' | 'uriTemplate', badges = false): string {
  if (items.length === 0) return '<p class="muted">None.</p>';
  const li = items.map((item) => {
    const title =
      typeof item.title === 'string' && item.title !== item[key]
        ? ` <span class="muted">${escapeHtml(item.title)}</span>`
        : '';
    const name = key === 'name' ? '' : `<div class="muted">${escapeHtml(item.name)}</div>`;
    const desc = typeof item.description === 'string' ? `<div>${escapeHtml(item.description)}</div>` : '';
    const extra = badges ? `<div>${annotationBadges(item)}</div>` : '';
    return `<li><code>${escapeHtml(item[key])}</code>${title}${name}${desc}${extra}</li>`;
  });
  return `<ul class="items">${li.join('')}</ul>`;
}

function authSection(d: ServerDescription): string {
  const rows = [`<dt>Mode</dt><dd>${escapeHtml(AUTH_TEXT[d.auth.mode])}</dd>`];
  if (d.auth.issuer)
    rows.push(`<dt>Authorisation server</dt><dd><code>${escapeHtml(d.auth.issuer)}</code></dd>`);
  if (d.auth.resourceMetadata)
    rows.push(`<dt>Resource metadata</dt><dd><code>${escapeHtml(d.auth.resourceMetadata)}</code></dd>`);
  return `<dl>${rows.join('')}</dl>`;
}

function offers(d: ServerDescription): string {
  if (!d.listed) {
    return `<h2>Tools, resources and prompts</h2><p class="muted">This server requires authentication; connect to see what it offers. (Its operator can publish the list with <code>MCP_PUBLIC_CARD=true</code>.)</p>`;
  }
  const instructions = d.instructions
    ? `<h2>Instructions</h2><div class="instructions">${escapeHtml(d.instructions)}</div>`
    : '';
  const templates = d.resourceTemplates ?? [];
  return `${instructions}
<h2>Tools (${(d.tools ?? []).length})</h2>${itemList(d.tools ?? [], 'name', true)}
<h2>Resources (${(d.resources ?? []).length + templates.length})</h2>${itemList(d.resources ?? [], 'uri')}${templates.length > 0 ? itemList(templates, 'uriTemplate') : ''}
<h2>Prompts (${(d.prompts ?? []).length})</h2>${itemList(d.prompts ?? [], 'name')}`;
}

/**
 * Renders the page.
 *
 * @example
 * reply.header('content-security-policy', LANDING_PAGE_CSP).type('text/html').send(renderLandingPage(d));
 */
export function renderLandingPage(d: ServerDescription): string {
  const title = d.title ?? d.name;
  const snippets = connectSnippets(d)
    .map(
      (s) =>
        `<section class="snippet" id="${escapeHtml(s.id)}"><header><h3>${escapeHtml(s.client)}</h3><span class="muted">${escapeHtml(s.where)}</span></header><pre data-copy><code>${escapeHtml(s.code)}</code></pre></section>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · MCP server</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<p class="muted">Model Context Protocol server</p>
<h1>${escapeHtml(title)}</h1>
<p><span class="badge">version ${escapeHtml(d.version)}</span><span class="badge">streamable HTTP</span></p>
<p>${escapeHtml(d.description)}</p>
<h2>Endpoint</h2>
<dl>
<dt>URL</dt><dd><code id="endpoint">${escapeHtml(d.endpoint)}</code></dd>
<dt>Protocol versions</dt><dd>${d.supportedVersions.map((v) => `<code>${escapeHtml(v)}</code>`).join(' ')}</dd>
<dt>Server card</dt><dd><a href="${escapeHtml(serverCardUrl(d.endpoint))}">${escapeHtml(serverCardUrl(d.endpoint))}</a></dd>
</dl>
<h2>Authentication</h2>
${authSection(d)}
${offers(d)}
<h2>Connect</h2>
<p class="muted">Replace placeholders in angle brackets with your own values.</p>
${snippets}
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

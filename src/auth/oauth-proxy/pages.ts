/**
 * The pages a person sees at our authorisation server: the consent page that names the MCP
 * client before anything is sent upstream, the error page (oidc-provider's `renderError` and
 * our own refusals) and the sign-out pages. Plain HTML with every value escaped, no script, no
 * outside resource; served with a CSP that forbids framing (clickjacking a consent button is
 * the attack a consent page exists to stop).
 */

/** Escapes text for HTML element content and quoted attribute values. */
export function html(value: unknown): string {
  return String(value ?? '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** Headers of every page: no framing, no scripts, nothing cached. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
main{max-width:34rem;margin:3rem auto;background:#fff;border-radius:10px;padding:2rem 2.25rem;box-shadow:0 1px 4px rgba(0,0,0,.12)}
h1{font-size:1.35rem;margin:0 0 1rem}dl{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1rem;margin:1rem 0}
dt{color:#5b6475}dd{margin:0;word-break:break-all}code{background:#eef0f4;padding:.05rem .3rem;border-radius:4px}
.warn{background:#fff4e0;border-left:4px solid #d98a00;padding:.5rem .75rem;margin:1rem 0}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}button{font:inherit;padding:.55rem 1.2rem;border-radius:6px;border:1px solid #aab;cursor:pointer;background:#fff}
button.primary{background:#1f5eff;border-color:#1f5eff;color:#fff}`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${html(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

export interface ConsentPageInput {
  /** The server's name (MCP_SERVER_NAME). */
  serverName: string;
  clientId: string;
  clientName: string | undefined;
  clientUri: string | undefined;
  logoUri: string | undefined;
  /** Where the code will go. */
  redirectUri: string;
  /** The scopes the client asks for. */
  scopes: readonly string[];
  /** Where the user signs in next. */
  upstreamHost: string;
  /** True for a client identified by a metadata document (its id is a URL it controls). */
  cimd: boolean;
  /** The form's target and its CSRF token. */
  action: string;
  csrf: string;
}

function hostOf(url: string | undefined): string | undefined {
  return url !== undefined && URL.canParse(url) ? new URL(url).host : undefined;
}

/** The consent page: who is asking, where the code goes, what for; approve or deny. */
export function consentPage(input: ConsentPageInput): string {
  const name = input.clientName ?? hostOf(input.clientId) ?? input.clientId;
  const redirectHost = hostOf(input.redirectUri) ?? input.redirectUri;
  const clientHost = hostOf(input.clientUri);
  const rows = [
    ['Application', `<strong>${html(name)}</strong>`],
    ['Client ID', `<code>${html(input.clientId)}</code>`],
    ...(input.clientUri ? [['Website', html(input.clientUri)]] : []),
    ...(input.logoUri ? [['Logo from', html(hostOf(input.logoUri) ?? input.logoUri)]] : []),
    ['Sends you back to', `<strong>${html(redirectHost)}</strong>`],
    [
      'Access',
      input.scopes.length > 0 ? input.scopes.map((s) => `<code>${html(s)}</code>`).join(' ') : 'basic access',
    ],
  ];
  const warnings: string[] = [];
  if (!input.cimd) {
    warnings.push('This application registered itself: nothing vouches for its name.');
  }
  if (clientHost !== undefined && redirectHost !== clientHost && hostOf(input.redirectUri) !== undefined) {
    warnings.push(
      `Its website (${html(clientHost)}) and where it sends you back (${html(redirectHost)}) differ.`,
    );
  }
  return page(
    `Allow ${name}?`,
    `<h1>${html(name)} wants to use ${html(input.serverName)} as you</h1>
<p>Only continue if you started this from ${html(name)}. Next you sign in at <strong>${html(input.upstreamHost)}</strong>.</p>
<dl>${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>
${warnings.map((w) => `<p class="warn">${w}</p>`).join('')}
<form method="post" action="${html(input.action)}">
<input type="hidden" name="csrf" value="${html(input.csrf)}">
<div class="actions"><button class="primary" type="submit" name="decision" value="approve">Allow and sign in</button>
<button type="submit" name="decision" value="deny">Deny</button></div>
</form>`,
  );
}

/** An error a person sees: the RFC 6749 code and what to do. */
export function errorPage(error: string, description: string | undefined): string {
  return page(
    'Sign-in failed',
    `<h1>Sign-in failed</h1><dl><dt>error</dt><dd><code id="error">${html(error)}</code></dd>${
      description ? `<dt>what happened</dt><dd id="error_description">${html(description)}</dd>` : ''
    }</dl><p>Start again from your application.</p>`,
  );
}

/** oidc-provider's sign-out question (`logoutSource`): its own form, our page. */
export function logoutPage(form: string, host: string): string {
  return page(
    'Sign out?',
    `<h1>Sign out of ${html(host)}?</h1>${form}<div class="actions"><button class="primary" type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button><button type="submit" form="op.logoutForm">Stay signed in</button></div>`,
  );
}

/** After sign-out (`postLogoutSuccessSource`). */
export function signedOutPage(): string {
  return page('Signed out', '<h1>Signed out</h1><p>You can close this window.</p>');
}

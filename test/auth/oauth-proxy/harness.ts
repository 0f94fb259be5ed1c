/**
 * The oauth-proxy tests' setting: a real upstream identity provider (test/helpers/upstream-idp.ts,
 * OpenID Connect or GitHub-shaped), an https host for Client ID Metadata Documents
 * (test/helpers/cimd-host.ts), and our server in front of them over HTTP on a free loopback
 * port (the public API's `createServer`), with the upstream-api fixture plugin. And the client's
 * side of the code flow: PKCE, the authorization URL, the token request.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type Logger, pino } from 'pino';
import type { PluginRef } from '../../../src/assembly/serve.ts';
import { createServer, type RunningServer } from '../../../src/index.ts';
import { freePort } from '../../e2e/batteries/helpers.ts';
import { upstreamApiPlugin } from '../../fixtures/upstream-api-plugin.ts';
import { type CimdHost, startCimdHost } from '../../helpers/cimd-host.ts';
import { startUpstreamIdp, type UpstreamAccount, type UpstreamIdp } from '../../helpers/upstream-idp.ts';

export const ACCOUNTS: readonly UpstreamAccount[] = [
  { id: '1001', login: 'ada', groups: ['admins', 'staff'] },
  { id: '1002', login: 'bob', groups: ['staff'] },
];

/**
 * Everyone gets api:read; admins get api:admin too: by the `groups` claim of the OpenID Connect
 * provider, by the `login` of the GitHub-shaped one (whose user endpoint has no groups).
 */
export const SCOPE_MAP = JSON.stringify({
  '*': ['api:read'],
  'groups=admins': ['api:admin'],
  'login=ada': ['api:admin'],
});

export interface ProxySetup {
  readonly base: string;
  readonly mcpUrl: string;
  readonly idp: UpstreamIdp;
  readonly cimd: CimdHost;
  readonly running: RunningServer;
  close(): Promise<void>;
}

export interface ProxySetupOptions {
  shape?: 'oidc' | 'github';
  /** The plugins beside the upstream-api fixture. */
  plugins?: readonly PluginRef[];
  /** More settings; a function gets the provider first (a setting that names its URL). */
  env?: Record<string, string> | ((idp: UpstreamIdp) => Promise<Record<string, string>>);
  /** Reuse an upstream and CIMD host (several servers in front of one provider). */
  idp?: UpstreamIdp;
  cimd?: CimdHost;
  port?: number;
  upstreamTokenTtlSec?: number;
  /** The server's logger (default: silent); a test that asserts on log lines passes its own. */
  logger?: Logger;
}

/** The settings of our server in front of `idp`, at `base`. */
export function proxyEnv(
  base: string,
  idp: UpstreamIdp,
  extra: Record<string, string> = {},
): Record<string, string> {
  const port = new URL(base).port;
  return {
    MCP_HTTP_HOST: '127.0.0.1',
    MCP_HTTP_PORT: port,
    MCP_PUBLIC_URL: base,
    MCP_AUTH: 'oauth-proxy',
    MCP_OAUTH_CIMD_ALLOW_PRIVATE: 'true',
    MCP_OAUTH_SCOPE_MAP: SCOPE_MAP,
    MCP_UPSTREAM_API_URL: idp.apiUrl,
    MCP_LOG_LEVEL: 'silent',
    ...idp.settings,
    ...extra,
  };
}

/**
 * @example
 * const setup = await startProxy({ shape: 'github' });
 * after(() => setup.close());
 */
export async function startProxy(options: ProxySetupOptions = {}): Promise<ProxySetup> {
  const port = options.port ?? (await freePort());
  const base = `http://127.0.0.1:${port}`;
  const idp =
    options.idp ??
    (await startUpstreamIdp({
      shape: options.shape ?? 'oidc',
      redirectUri: `${base}/oauth/callback`,
      accounts: ACCOUNTS,
      ...(options.upstreamTokenTtlSec ? { accessTokenTtlSec: options.upstreamTokenTtlSec } : {}),
    }));
  const cimd = options.cimd ?? (await startCimdHost());
  const running = await createServer({
    plugins: [upstreamApiPlugin, ...(options.plugins ?? [])],
    settings: proxyEnv(base, idp, typeof options.env === 'function' ? await options.env(idp) : options.env),
    transport: 'http',
    logger: options.logger ?? pino({ level: 'silent' }),
  });
  return {
    base,
    mcpUrl: `${base}/mcp`,
    idp,
    cimd,
    running,
    async close() {
      await running.close();
      if (options.idp === undefined) await idp.close();
      if (options.cimd === undefined) await cimd.close();
    },
  };
}

/** A client's PKCE pair (RFC 7636, S256). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface AuthorizeParams {
  clientId: string;
  redirectUri: string;
  challenge?: string;
  scope?: string;
  resource?: string;
  state?: string;
  extra?: Record<string, string>;
}

/** The URL a client sends the user to. */
export function authorizeUrl(base: string, p: AuthorizeParams): string {
  const url = new URL('/oauth/authorize', base);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', p.clientId);
  url.searchParams.set('redirect_uri', p.redirectUri);
  if (p.challenge !== undefined) {
    url.searchParams.set('code_challenge', p.challenge);
    url.searchParams.set('code_challenge_method', 'S256');
  }
  if (p.scope !== undefined) url.searchParams.set('scope', p.scope);
  url.searchParams.set('resource', p.resource ?? `${base}/mcp`);
  url.searchParams.set('state', p.state ?? 'client-state');
  for (const [k, v] of Object.entries(p.extra ?? {})) url.searchParams.set(k, v);
  return url.href;
}

/** A form POST to the token endpoint; answers the status and the JSON body. */
export async function tokenRequest(
  base: string,
  params: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(params),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A JSON GET (metadata documents, JWKS). */
export async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { headers: { accept: 'application/json' } });
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** The error code and description our error page shows (pages.ts), HTML entities decoded. */
export function pageError(html: string): { error?: string; error_description?: string } {
  const decode = (s: string | undefined) =>
    s
      ?.replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
      .replaceAll('&quot;', '"')
      .replaceAll('&#39;', "'")
      .replaceAll('&amp;', '&');
  return {
    error: decode(/<code id="error">([^<]*)<\/code>/.exec(html)?.[1]),
    error_description: decode(/<dd id="error_description">([^<]*)<\/dd>/.exec(html)?.[1]),
  };
}

/**
 * The first hop of /authorize without following it: status, Location, and the error (from the
 * JSON body, or from our error page: the authorization endpoint answers a person, in HTML).
 */
export async function authorizeHop(
  url: string,
): Promise<{ status: number; location: string | null; body: Record<string, unknown> }> {
  const res = await fetch(url, { redirect: 'manual', headers: { accept: 'application/json' } });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
  } catch {
    body = { ...pageError(text), html: text };
  }
  return { status: res.status, location: res.headers.get('location'), body };
}

/** A browser without a screen: cookies per origin, redirects followed by hand, forms posted. */
export class ScriptedBrowser {
  readonly #jar = new Map<string, Map<string, string>>();

  /** One request, cookies sent and kept; redirects are not followed. */
  async request(
    url: string,
    init: { method?: string; form?: Record<string, string> } = {},
  ): Promise<{
    status: number;
    location: string | undefined;
    body: string;
  }> {
    const target = new URL(url);
    const cookies = this.#jar.get(target.origin) ?? new Map<string, string>();
    this.#jar.set(target.origin, cookies);
    const headers: Record<string, string> = { accept: 'text/html' };
    if (cookies.size > 0) headers.cookie = [...cookies].map(([n, v]) => `${n}=${v}`).join('; ');
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(target, {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      headers,
      redirect: 'manual',
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /max-age=0/i.test(line)) cookies.delete(name);
      else cookies.set(name, value);
    }
    const location = res.headers.get('location');
    return {
      status: res.status,
      location: location === null ? undefined : new URL(location, target).href,
      body: await res.text(),
    };
  }

  /** Follows redirects from `url` until a page answers or a URL matches `stop`. */
  async follow(
    url: string,
    stop: (url: string) => boolean = () => false,
  ): Promise<{ url: string; status: number; body: string }> {
    let current = url;
    for (let step = 0; step < 20; step++) {
      if (stop(current)) return { url: current, status: 0, body: '' };
      const res = await this.request(current);
      if (res.location === undefined) return { url: current, status: res.status, body: res.body };
      current = res.location;
    }
    throw new Error(`more than 20 redirects from ${url}`);
  }

  /** A cookie's value for an origin (tests that steal or drop one). */
  cookie(origin: string, name: string): string | undefined {
    return this.#jar.get(origin)?.get(name);
  }

  forget(origin: string, name: string): void {
    this.#jar.get(origin)?.delete(name);
  }
}

/** The consent page's form: its action and CSRF token. */
export function consentForm(html: string, pageUrl: string): { action: string; csrf: string } {
  const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1];
  const csrf = /<input type="hidden" name="csrf" value="([^"]+)">/.exec(html)?.[1];
  if (action === undefined || csrf === undefined)
    throw new Error(`no consent form on ${pageUrl}:\n${html.slice(0, 500)}`);
  return { action: new URL(action.replaceAll('&amp;', '&'), pageUrl).href, csrf };
}

export interface SignInResult {
  /** Where the user ended up: the client's redirect URI with `code` or `error`. */
  readonly redirect: URL;
  readonly browser: ScriptedBrowser;
}

/**
 * A user going through the whole authorization as a script: our consent page (approve or
 * deny), the upstream sign-in form (as `login`), back to the client's redirect URI.
 */
export async function scriptedSignIn(
  authorize: string,
  options: { login: string; decision?: 'approve' | 'deny'; redirectUri: string; browser?: ScriptedBrowser },
): Promise<SignInResult> {
  const browser = options.browser ?? new ScriptedBrowser();
  const atClient = (u: string) => u.startsWith(options.redirectUri);
  const consent = await browser.follow(authorize, atClient);
  if (atClient(consent.url)) return { redirect: new URL(consent.url), browser };
  if (consent.status !== 200) {
    const { error, error_description } = pageError(consent.body);
    throw new Error(
      `the authorization request ended at ${consent.url} with ${consent.status}: ${error} ${error_description}`,
    );
  }
  const form = consentForm(consent.body, consent.url);
  const confirmed = await browser.request(form.action, {
    form: { csrf: form.csrf, decision: options.decision ?? 'approve' },
  });
  if (confirmed.location === undefined)
    throw new Error(`the consent form answered ${confirmed.status}: ${confirmed.body.slice(0, 300)}`);
  if (atClient(confirmed.location)) return { redirect: new URL(confirmed.location), browser };
  const back = await browser.follow(confirmed.location, atClient);
  if (atClient(back.url)) return { redirect: new URL(back.url), browser };
  // The upstream sign-in page: one form with a username.
  const upstreamAction = /<form method="post" action="([^"]+)">/.exec(back.body)?.[1];
  if (upstreamAction === undefined)
    throw new Error(`expected the upstream sign-in form at ${back.url}:\n${back.body.slice(0, 500)}`);
  const signedIn = await browser.request(new URL(upstreamAction, back.url).href, {
    form: { login: options.login },
  });
  const done = await browser.follow(signedIn.location ?? back.url, atClient);
  if (!atClient(done.url))
    throw new Error(`the sign-in ended at ${done.url} (${done.status}): ${done.body.slice(0, 500)}`);
  return { redirect: new URL(done.url), browser };
}

const INFO = { name: 'oauth-proxy-test', version: '1.0.0' };

/** Signs `login` in through `setup` as a CIMD client; resolves the token response. */
export async function signInAs(
  setup: ProxySetup,
  login: string,
  scope = 'api:read api:admin offline_access',
) {
  const redirectUri = 'http://127.0.0.1:1/callback';
  const clientId = setup.cimd.document(`/client-${login}.json`, {
    client_name: 'Flow Test Client',
    client_uri: 'https://client.example.com',
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_method: 'none',
  });
  const { verifier, challenge } = pkce();
  const { redirect } = await scriptedSignIn(
    authorizeUrl(setup.base, { clientId, redirectUri, challenge, scope, state: 's1' }),
    {
      login,
      redirectUri,
    },
  );
  assert.equal(redirect.searchParams.get('state'), 's1');
  assert.equal(redirect.searchParams.get('iss'), setup.base, 'RFC 9207: the response names its issuer');
  const code = redirect.searchParams.get('code');
  assert.ok(code, `no code: ${redirect.href}`);
  const tokens = await tokenRequest(setup.base, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    client_id: clientId,
    redirect_uri: redirectUri,
    resource: setup.mcpUrl,
  });
  assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
  return {
    clientId,
    redirectUri,
    tokens: tokens.body as { access_token: string; refresh_token: string; scope: string },
  };
}

/** Calls `tool` with the token on one wire (SDK v2 client: 2025 handshake, or pinned 2026). */
export async function callTool(mcpUrl: string, token: string, wire: '2025' | '2026', tool: string) {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client(
    INFO,
    wire === '2026' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(transport);
  try {
    const tools = await client.listTools();
    const result = await client.callTool({ name: tool, arguments: {} });
    return { names: tools.tools.map((t) => t.name), result, version: client.getNegotiatedProtocolVersion() };
  } finally {
    await client.close();
  }
}

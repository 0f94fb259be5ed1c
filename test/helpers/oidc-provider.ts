/**
 * A real OAuth 2.1 / OpenID Connect authorisation server for tests: the `oidc-provider`
 * package on 127.0.0.1 and a free port, configured as an MCP deployment would be:
 * - a static public client (native, loopback redirect on any port) and open dynamic
 *   registration (RFC 7591);
 * - PKCE required; `resourceIndicators` (RFC 8707) on, so access tokens for the MCP resource
 *   are JWTs (RFC 9068) with `aud` = the resource and a `scope` claim;
 * - no dev interactions: a tiny interaction handler serves one form per prompt, and
 *   `browse()` (an HTTP client with a cookie jar) plays the user who submits it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';

export interface TestAuthServerOptions {
  /** The MCP resource tokens are for (RFC 8707 resource indicator; becomes `aud`). */
  resource: string;
  /** Scopes of that resource the user consents to. */
  scopes: readonly string[];
  /** Lifetime of access tokens, seconds. Default 300. */
  accessTokenTtlSec?: number;
  /** The account the "user" signs in as. Default `user-1`. */
  accountId?: string;
  /**
   * Accept Client ID Metadata Documents (oidc-provider's CIMD feature; it advertises
   * `client_id_metadata_document_supported`). The documents are fetched with the process's
   * fetch (so a loopback https host trusted by this process works). Default false.
   */
  cimd?: boolean;
  /** Dynamic client registration (RFC 7591). Default true. */
  registration?: boolean;
}

export interface TestAuthServer {
  issuer: string;
  /** A pre-registered public client (`application_type: native`, redirect `http://127.0.0.1/callback`). */
  staticClientId: string;
  /** Method and path of every request the server received. */
  requests: string[];
  close(): Promise<void>;
}

/** The parts of oidc-provider's API these tests use (the package ships no types). */
interface Interaction {
  uid: string;
  prompt: { name: string; details: Record<string, unknown> };
  params: Record<string, unknown>;
  session?: { accountId: string };
  grantId?: string;
}
interface Grant {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  addResourceScope(resource: string, scope: string): void;
  save(): Promise<string>;
}
interface Provider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  Grant: {
    new (props: { accountId: string; clientId: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  };
  on(event: string, listener: (...args: unknown[]) => void): void;
}
interface OidcProviderModule {
  default: new (issuer: string, configuration: Record<string, unknown>) => Provider;
  errors: { InvalidTarget: new (description?: string) => Error };
}

/** oidc-provider's storage interface, in memory (its own default prints a warning on every start); the upstream IdP of test/helpers/upstream-idp.ts uses it too. */
export function memoryAdapter() {
  const store = new Map<string, Record<string, unknown>>();
  return class MemoryAdapter {
    readonly name: string;
    constructor(name: string) {
      this.name = name;
    }
    key(id: string): string {
      return `${this.name}:${id}`;
    }
    async upsert(id: string, payload: Record<string, unknown>): Promise<void> {
      store.set(this.key(id), payload);
    }
    async find(id: string): Promise<Record<string, unknown> | undefined> {
      return store.get(this.key(id));
    }
    async findByUid(uid: string): Promise<Record<string, unknown> | undefined> {
      return [...store.entries()].find(([k, v]) => k.startsWith(`${this.name}:`) && v.uid === uid)?.[1];
    }
    async findByUserCode(code: string): Promise<Record<string, unknown> | undefined> {
      return [...store.entries()].find(([k, v]) => k.startsWith(`${this.name}:`) && v.userCode === code)?.[1];
    }
    async consume(id: string): Promise<void> {
      const payload = store.get(this.key(id));
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string): Promise<void> {
      store.delete(this.key(id));
    }
    async revokeByGrantId(grantId: string): Promise<void> {
      for (const [k, v] of store) if (v.grantId === grantId) store.delete(k);
    }
  };
}

async function signingKey(alg: 'RS256' | 'ES256'): Promise<JWK> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  return { ...(await exportJWK(privateKey)), alg, use: 'sig', kid: `test-${alg.toLowerCase()}` };
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * Starts the authorisation server. Call `close()` in `after`.
 *
 * @example
 * const as = await startOidcProvider({ resource: 'http://127.0.0.1:1234/mcp', scopes: ['mcp:read'] });
 */
export async function startOidcProvider(options: TestAuthServerOptions): Promise<TestAuthServer> {
  // A variable specifier: oidc-provider has no type declarations, so type it locally.
  const specifier = 'oidc-provider';
  const { default: OidcProvider, errors } = (await import(specifier)) as OidcProviderModule;
  const requests: string[] = [];
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.statusCode = 503;
    res.end();
  };
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`);
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accountId = options.accountId ?? 'user-1';
  const staticClientId = 'static-client';

  const provider = new OidcProvider(issuer, {
    adapter: memoryAdapter(),
    clients: [
      {
        client_id: staticClientId,
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        redirect_uris: ['http://127.0.0.1/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [await signingKey('RS256'), await signingKey('ES256')] },
    cookies: { keys: ['test-cookie-signing-key'] },
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    interactions: { url: (_ctx: unknown, interaction: Interaction) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    // Issue refresh tokens to every client allowed the grant (not only with offline_access).
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
      client.grantTypeAllowed('refresh_token'),
    ttl: {
      AccessToken: options.accessTokenTtlSec ?? 300,
      Grant: 3600,
      Interaction: 600,
      RefreshToken: 86_400,
      Session: 3600,
    },
    // oidc-provider refuses to fetch from special-use addresses (its SSRF guard, a dispatcher
    // it passes in); the test's CIMD host is on loopback, so fetch without that dispatcher.
    fetch: (url: URL | string, init: RequestInit & { dispatcher?: unknown }) => {
      const { dispatcher: _ssrfGuard, ...rest } = init;
      return fetch(url, rest);
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: options.registration ?? true },
      clientIdMetadataDocument: { enabled: options.cimd === true, ack: 'draft-02' },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => options.resource,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, resourceIndicator: string) => {
          if (resourceIndicator !== options.resource) throw new errors.InvalidTarget();
          return {
            scope: options.scopes.join(' '),
            audience: options.resource,
            accessTokenTTL: options.accessTokenTtlSec ?? 300,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
  });
  // Quiet: oidc-provider reports handled protocol errors as events; tests assert on responses.
  provider.on('server_error', (_ctx, err) => console.error('oidc-provider server_error', err));
  const providerCallback = provider.callback();

  handle = (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    const match = /^\/interaction\/([^/]+)(\/submit)?$/.exec(url.pathname);
    if (match === null) {
      providerCallback(req, res);
      return;
    }
    const uid = match[1] ?? '';
    if (req.method === 'GET' && match[2] === undefined) {
      // The "page" the user sees: one form, which browse() submits.
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><form method="post" action="/interaction/${uid}/submit"><input type="hidden" name="approve" value="yes"><button>Continue</button></form>`,
      );
      return;
    }
    if (req.method === 'POST' && match[2] !== undefined) {
      void finishInteraction(req, res).catch((err: unknown) => {
        res.statusCode = 500;
        res.end(String(err));
      });
      return;
    }
    res.statusCode = 405;
    res.end();
  };

  async function finishInteraction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await readForm(req);
    const interaction = await provider.interactionDetails(req, res);
    if (form.get('approve') !== 'yes') {
      await provider.interactionFinished(
        req,
        res,
        { error: 'access_denied' },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    if (interaction.prompt.name === 'login') {
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId } },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    // Consent: grant exactly what the prompt says is missing.
    const details = interaction.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    const grant =
      (interaction.grantId !== undefined ? await provider.Grant.find(interaction.grantId) : undefined) ??
      new provider.Grant({
        accountId: interaction.session?.accountId ?? accountId,
        clientId: String(interaction.params.client_id),
      });
    if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
    if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(details.missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  return {
    issuer,
    staticClientId,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface BrowseResult {
  status: number;
  url: string;
  body: string;
}

/**
 * The test's "browser": follows redirects by hand, keeps cookies per origin, and submits the
 * first POST form of any page it lands on (the user clicking Continue). Bounded to 20 steps.
 */
export async function browse(start: string): Promise<BrowseResult> {
  const jar = new Map<string, Map<string, string>>();
  let url = new URL(start);
  let method = 'GET';
  let body: string | undefined;
  for (let step = 0; step < 20; step++) {
    const cookies = jar.get(url.origin) ?? new Map<string, string>();
    jar.set(url.origin, cookies);
    const headers: Record<string, string> = {};
    if (cookies.size > 0) headers.cookie = [...cookies].map(([n, v]) => `${n}=${v}`).join('; ');
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(url, {
      method,
      headers,
      redirect: 'manual',
      ...(body !== undefined ? { body } : {}),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (expired) cookies.delete(name);
      else cookies.set(name, value);
    }
    const text = await res.text();
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location !== null) {
      url = new URL(location, url);
      method = 'GET';
      body = undefined;
      continue;
    }
    const form = /<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/i.exec(text);
    if (res.status === 200 && form !== null) {
      const fields = new URLSearchParams();
      for (const input of (form[2] ?? '').matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
        fields.set(input[1] ?? '', input[2] ?? '');
      }
      url = new URL(form[1] ?? '', url);
      method = 'POST';
      body = fields.toString();
      continue;
    }
    return { status: res.status, url: url.href, body: text };
  }
  throw new Error(`browse: more than 20 steps from ${start}`);
}

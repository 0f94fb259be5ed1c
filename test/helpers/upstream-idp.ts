/**
 * The identity provider a team already has, for the oauth-proxy tests: `oidc-provider` on
 * 127.0.0.1 and a free port, with registration disabled and one static confidential client
 * (our proxy), in one of two shapes:
 * - `oidc`: an OpenID Connect provider (discovery, ID tokens with a `groups` claim, userinfo);
 * - `github`: a plain OAuth 2.0 provider as GitHub is one: no discovery is used, opaque access
 *   tokens, and a `/user` endpoint answering `{ id, login, name }` for the token's user.
 * Both serve `/api/whoami`, the loopback API a tool calls with the user's upstream token: it
 * answers the token's user, or 401. The sign-in page is one form (a username and a button), for
 * Chromium to fill; consent for our first-party client is given with the sign-in.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import { memoryAdapter } from './oidc-provider.ts';

export interface UpstreamAccount {
  /** The subject (`sub`; GitHub's numeric `id`). */
  id: string;
  login: string;
  groups: readonly string[];
}

export interface UpstreamIdpOptions {
  shape: 'oidc' | 'github';
  /** Our callback (MCP_PUBLIC_URL + /oauth/callback). */
  redirectUri: string;
  /** The accounts that can sign in, by login. */
  accounts: readonly UpstreamAccount[];
  /** Lifetime of upstream access tokens, seconds. Default 300. */
  accessTokenTtlSec?: number;
}

export interface UpstreamIdp {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The MCP_OAUTH_UPSTREAM_* settings of our proxy for this provider. */
  readonly settings: Record<string, string>;
  /** The loopback API a tool calls as the user. */
  readonly apiUrl: string;
  /** Method and path of every request the provider received (never a token). */
  readonly requests: string[];
  /** Grant types of every token request, in order. */
  readonly tokenGrants: string[];
  /** Every token response it gave (our proxy's upstream tokens), in order. */
  readonly issued: { access_token?: string; id_token?: string; refresh_token?: string }[];
  /** Ends every upstream session: all refresh and access tokens are destroyed (an expired session). */
  endSessions(): Promise<void>;
  /** Revokes every access token, keeping the refresh tokens (the API answers 401 until a refresh). */
  revokeAccessTokens(): Promise<void>;
  close(): Promise<void>;
}

interface Interaction {
  uid: string;
  params: Record<string, unknown>;
}
interface Grant {
  addOIDCScope(scope: string): void;
  save(): Promise<string>;
}
interface AccessTokenRecord {
  accountId: string;
  isExpired: boolean;
}
interface Provider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
  ): Promise<void>;
  Grant: new (props: { accountId: string; clientId: string }) => Grant;
  AccessToken: { find(token: string): Promise<AccessTokenRecord | undefined> };
  on(event: string, listener: (...args: unknown[]) => void): void;
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * @example
 * const idp = await startUpstreamIdp({ shape: 'github', redirectUri: `${publicUrl}/oauth/callback`, accounts });
 */
export async function startUpstreamIdp(options: UpstreamIdpOptions): Promise<UpstreamIdp> {
  const specifier = 'oidc-provider';
  const { default: OidcProvider } = (await import(specifier)) as {
    default: new (issuer: string, configuration: Record<string, unknown>) => Provider;
  };
  const requests: string[] = [];
  const tokenGrants: string[] = [];
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`);
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'mcp-proxy';
  const clientSecret = 'upstream-client-secret-for-tests';
  const byLogin = new Map(options.accounts.map((a) => [a.login, a]));
  const byId = new Map(options.accounts.map((a) => [a.id, a]));
  const Adapter = memoryAdapter();
  const grants: string[] = [];
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });

  const provider = new OidcProvider(issuer, {
    adapter: Adapter,
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        token_endpoint_auth_method: 'client_secret_post',
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'upstream' }] },
    cookies: { keys: ['upstream-cookie-key'] },
    scopes: ['openid', 'offline_access', 'profile', 'read:user', 'api'],
    claims: { openid: ['sub'], profile: ['name', 'preferred_username', 'groups'] },
    findAccount: async (_ctx: unknown, sub: string) => {
      const account = byId.get(sub);
      if (account === undefined) return undefined;
      return {
        accountId: sub,
        claims: async () => ({
          sub,
          name: account.login,
          preferred_username: account.login,
          groups: [...account.groups],
        }),
      };
    },
    interactions: { url: (_ctx: unknown, interaction: Interaction) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    issueRefreshToken: async () => true,
    ttl: {
      AccessToken: options.accessTokenTtlSec ?? 300,
      Grant: 3600,
      Interaction: 600,
      RefreshToken: 3600,
      Session: 3600,
      IdToken: 300,
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: false },
      userinfo: { enabled: options.shape === 'oidc' },
      revocation: { enabled: true },
    },
  });
  provider.on('server_error', (_ctx, err) => console.error('upstream idp server_error', err));
  const issued: UpstreamIdp['issued'] = [];
  provider.on('grant.success', (ctx) => {
    const c = ctx as { oidc: { params: { grant_type?: string } }; body: UpstreamIdp['issued'][number] };
    tokenGrants.push(String(c.oidc.params.grant_type));
    issued.push({ ...c.body });
  });
  const callback = provider.callback();

  async function signIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await readForm(req);
    const interaction = await provider.interactionDetails(req, res);
    const account = byLogin.get(form.get('login') ?? '');
    if (account === undefined) {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><p id="error">Unknown user</p>');
      return;
    }
    // Our proxy is the provider's own client: consent comes with the sign-in.
    const grant = new provider.Grant({ accountId: account.id, clientId });
    grant.addOIDCScope(String(interaction.params.scope ?? ''));
    const grantId = await grant.save();
    grants.push(grantId);
    await provider.interactionFinished(req, res, { login: { accountId: account.id }, consent: { grantId } });
  }

  async function userOf(req: IncomingMessage): Promise<UpstreamAccount | undefined> {
    const token = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined) return undefined;
    const record = await provider.AccessToken.find(token);
    if (record === undefined || record.isExpired) return undefined;
    return byId.get(record.accountId);
  }

  handle = (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    const interaction = /^\/interaction\/([^/]+)$/.exec(url.pathname);
    if (interaction !== null && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><title>Upstream sign-in</title><form method="post" action="/interaction/${interaction[1]}"><label>Username <input name="login" id="login"></label><button id="sign-in">Sign in</button></form>`,
      );
      return;
    }
    if (interaction !== null && req.method === 'POST') {
      void signIn(req, res).catch((err: unknown) => json(res, 500, { error: String(err) }));
      return;
    }
    if (url.pathname === '/user' || url.pathname === '/api/whoami') {
      void userOf(req).then((account) => {
        if (account === undefined) return json(res, 401, { message: 'Bad credentials' });
        if (url.pathname === '/user')
          return json(res, 200, { id: Number(account.id), login: account.login, name: account.login });
        return json(res, 200, { login: account.login, via: 'upstream token' });
      });
      return;
    }
    callback(req, res);
  };

  const settings: Record<string, string> =
    options.shape === 'oidc'
      ? {
          MCP_OAUTH_UPSTREAM_ISSUER: issuer,
          MCP_OAUTH_UPSTREAM_CLIENT_ID: clientId,
          MCP_OAUTH_UPSTREAM_CLIENT_SECRET: clientSecret,
          MCP_OAUTH_UPSTREAM_SCOPES: 'openid profile offline_access api',
        }
      : {
          MCP_OAUTH_UPSTREAM_AUTHORIZATION_URL: `${issuer}/auth`,
          MCP_OAUTH_UPSTREAM_TOKEN_URL: `${issuer}/token`,
          MCP_OAUTH_UPSTREAM_USERINFO_URL: `${issuer}/user`,
          MCP_OAUTH_UPSTREAM_CLIENT_ID: clientId,
          MCP_OAUTH_UPSTREAM_CLIENT_SECRET: clientSecret,
          MCP_OAUTH_UPSTREAM_SCOPES: 'read:user api',
        };

  return {
    issuer,
    clientId,
    clientSecret,
    settings,
    apiUrl: `${issuer}/api/whoami`,
    requests,
    tokenGrants,
    issued,
    async endSessions() {
      for (const grantId of grants) {
        for (const model of ['RefreshToken', 'AccessToken', 'Grant']) {
          const adapter = new Adapter(model);
          if (model === 'Grant') await adapter.destroy(grantId);
          else await adapter.revokeByGrantId(grantId);
        }
      }
    },
    async revokeAccessTokens() {
      // Opaque access tokens are stored under their own value; revokeByGrantId would take the
      // grant and its refresh tokens too.
      const adapter = new Adapter('AccessToken');
      for (const { access_token } of issued) if (access_token) await adapter.destroy(access_token);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

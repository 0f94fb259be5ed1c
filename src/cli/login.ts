/**
 * `mcp-toolkit login`: the OAuth 2.1 authorisation-code flow with PKCE, as the MCP
 * authorization spec asks of clients, built on oauth4webapi:
 * 1. find the authorisation server from the MCP server's protected resource metadata
 *    (RFC 9728) or take the issuer given; read its metadata (RFC 8414, then OpenID Discovery);
 * 2. choose the client (login-client.ts): a given client id, else a Client ID Metadata
 *    Document where the server supports them, else dynamic registration (RFC 7591);
 * 3. send the user's browser to the authorisation endpoint (PKCE S256, state, and the
 *    RFC 8707 `resource`), receive the redirect on a loopback port (RFC 8252 §7.3);
 * 4. exchange the code and store the tokens in a file only the user can read.
 * `getStoredToken` returns a valid access token later, refreshing it when expired.
 */
import { spawn } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';
import * as oauth from 'oauth4webapi';
import { isSecureUrl } from '../auth/discovery.ts';
import { loadToken, type StoredToken, saveToken } from '../auth/token-store.ts';
import {
  checkClientMetadataUrl,
  chooseRegistration,
  DEFAULT_REDIRECT,
  type Registration,
  readClientMetadata,
} from './login-client.ts';
import { startReceiver } from './login-receiver.ts';

export interface LoginOptions {
  /** The MCP server (its endpoint URL): the resource the token is for. */
  serverUrl?: string;
  /** The authorisation server, when the MCP server does not publish resource metadata. */
  issuer?: string;
  /** A pre-registered public client, used as is; otherwise CIMD or dynamic registration. */
  clientId?: string;
  /**
   * The https URL where the CLI's Client ID Metadata Document is hosted (`cliClientMetadata`):
   * the client id where the authorisation server supports CIMD.
   */
  clientMetadataUrl?: string;
  /** Receives what the user should know (a fallback taken); default prints it to stderr. */
  onNotice?: (text: string) => void;
  /** Scopes to ask for. Default: the server's `scopes_supported`. */
  scopes?: readonly string[];
  /** Print the URL instead of opening a browser. */
  noBrowser?: boolean;
  /** Default: `defaultTokenFile()`. */
  tokenFile?: string;
  fetch?: typeof fetch;
  /** Opens the authorisation URL; default `xdg-open`/`open`/`start`. */
  openBrowser?: (url: string) => void | Promise<void>;
  /** Receives the authorisation URL (always called); default prints it to stderr. */
  onUrl?: (url: string) => void | Promise<void>;
  /** How long to wait for the browser to come back. Default 5 minutes. */
  timeoutMs?: number;
}

export interface LoginResult {
  /** The key the token is stored under (the MCP server URL, else the issuer). */
  serverUrl: string;
  issuer: string;
  clientId: string;
  /** How the client id was obtained: given, a Client ID Metadata Document, or registered. */
  registration: Registration;
  tokenFile: string;
  scope?: string;
  expiresAt?: number;
}

/** `$XDG_CONFIG_HOME/mcp-toolkit/tokens.json`, else `~/.config/mcp-toolkit/tokens.json`. */
export function defaultTokenFile(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const base =
    env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== ''
      ? env.XDG_CONFIG_HOME
      : join(homedir(), '.config');
  return join(base, 'mcp-toolkit', 'tokens.json');
}

/** oauth4webapi refuses plain http; allow it for loopback hosts only (tests, local servers). */
function requestOptions(url: string, doFetch: typeof fetch | undefined) {
  return {
    ...(doFetch ? { [oauth.customFetch]: doFetch } : {}),
    ...(url.startsWith('http:') && isSecureUrl(url) ? { [oauth.allowInsecureRequests]: true } : {}),
  };
}

/** RFC 8414 first, then OpenID Discovery (MCP authorization, "Authorization Server Metadata Discovery"). */
async function discover(
  issuer: string,
  doFetch: typeof fetch | undefined,
): Promise<oauth.AuthorizationServer> {
  const url = new URL(issuer);
  let firstError: unknown;
  for (const algorithm of ['oauth2', 'oidc'] as const) {
    try {
      const response = await oauth.discoveryRequest(url, { algorithm, ...requestOptions(issuer, doFetch) });
      return await oauth.processDiscoveryResponse(url, response);
    } catch (err) {
      firstError ??= err;
    }
  }
  throw new Error(`Could not read the metadata of the authorisation server ${issuer}`, { cause: firstError });
}

/** The issuer and advertised scopes from the MCP server's RFC 9728 document. */
async function discoverFromResource(serverUrl: string, doFetch: typeof fetch | undefined) {
  const resource = new URL(serverUrl);
  let metadata: oauth.ResourceServer;
  try {
    const response = await oauth.resourceDiscoveryRequest(resource, requestOptions(serverUrl, doFetch));
    metadata = await oauth.processResourceDiscoveryResponse(resource, response);
  } catch (err) {
    throw new Error(
      `${serverUrl} publishes no OAuth protected resource metadata; pass the authorisation server with --issuer`,
      { cause: err },
    );
  }
  const issuer = metadata.authorization_servers?.[0];
  if (issuer === undefined)
    throw new Error(`The resource metadata of ${serverUrl} names no authorisation server`);
  return { issuer, scopes: metadata.scopes_supported };
}

function defaultOpenBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['rundll32', ['url.dll,FileProtocolHandler', url]]
        : ['xdg-open', [url]];
  const child = spawn(command, args, { stdio: 'ignore', detached: true });
  // No browser is not fatal: the URL has been printed.
  child.on('error', () => {});
  child.unref();
}

function toStored(
  base: Omit<StoredToken, 'accessToken' | 'tokenType'>,
  response: oauth.TokenEndpointResponse,
  previous?: StoredToken,
): StoredToken {
  const stored: StoredToken = { ...base, accessToken: response.access_token, tokenType: response.token_type };
  const refreshToken = response.refresh_token ?? previous?.refreshToken;
  if (refreshToken !== undefined) stored.refreshToken = refreshToken;
  const scope = response.scope ?? previous?.scope;
  if (scope !== undefined) stored.scope = scope;
  if (typeof response.expires_in === 'number') stored.expiresAt = Date.now() + response.expires_in * 1000;
  return stored;
}

/**
 * Runs the browser sign-in and stores the tokens.
 *
 * @example
 * await login({ serverUrl: 'https://mcp.example.com/mcp' });
 * const token = await getStoredToken('https://mcp.example.com/mcp');
 */
export async function login(options: LoginOptions): Promise<LoginResult> {
  const { serverUrl, fetch: doFetch } = options;
  if (serverUrl === undefined && options.issuer === undefined) {
    throw new Error('login needs the MCP server URL or an authorisation server (--issuer)');
  }
  let issuer = options.issuer;
  let scopes = options.scopes;
  if (issuer === undefined && serverUrl !== undefined) {
    const found = await discoverFromResource(serverUrl, doFetch);
    issuer = found.issuer;
    scopes ??= found.scopes;
  }
  if (issuer === undefined) throw new Error('No authorisation server found');
  const as = await discover(issuer, doFetch);
  const asOptions = requestOptions(issuer, doFetch);
  // MCP authorization ("Authorization Code Protection"): refuse a server that does not advertise S256 PKCE.
  if (!as.code_challenge_methods_supported?.includes('S256')) {
    throw new Error(`${issuer} does not advertise PKCE with S256; refusing to sign in without it`);
  }
  if (as.authorization_endpoint === undefined) throw new Error(`${issuer} has no authorization_endpoint`);

  if (options.clientMetadataUrl !== undefined) checkClientMetadataUrl(options.clientMetadataUrl);
  const { registration, notice } = chooseRegistration(as, options);
  if (notice !== undefined) (options.onNotice ?? ((text) => console.error(text)))(notice);
  // The document decides where the browser comes back; read it as the server will, before the browser opens.
  const plan =
    registration === 'cimd' && options.clientMetadataUrl !== undefined
      ? await readClientMetadata(options.clientMetadataUrl, doFetch)
      : DEFAULT_REDIRECT;
  const receiver = await startReceiver(plan);
  try {
    let client: oauth.Client;
    if (registration === 'client-id' && options.clientId !== undefined) {
      client = { client_id: options.clientId, token_endpoint_auth_method: 'none' };
    } else if (registration === 'cimd' && options.clientMetadataUrl !== undefined) {
      client = { client_id: options.clientMetadataUrl, token_endpoint_auth_method: 'none' };
    } else {
      const response = await oauth.dynamicClientRegistrationRequest(
        as,
        {
          client_name: 'mcp-toolkit',
          redirect_uris: [receiver.redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
          application_type: 'native',
        },
        asOptions,
      );
      client = await oauth.processDynamicClientRegistrationResponse(response);
    }

    // Ask for a refresh token where the server wants offline_access for it (OpenID Core §11).
    const requested = [...(scopes ?? [])];
    if (as.scopes_supported?.includes('offline_access') && !requested.includes('offline_access')) {
      requested.push('offline_access');
    }
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authUrl = new URL(as.authorization_endpoint);
    authUrl.searchParams.set('response_type', 'code');
    authUrl.searchParams.set('client_id', client.client_id);
    authUrl.searchParams.set('redirect_uri', receiver.redirectUri);
    authUrl.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    authUrl.searchParams.set('code_challenge_method', 'S256');
    authUrl.searchParams.set('state', state);
    if (requested.length > 0) authUrl.searchParams.set('scope', requested.join(' '));
    if (serverUrl !== undefined) authUrl.searchParams.set('resource', serverUrl);
    if (requested.includes('offline_access')) authUrl.searchParams.set('prompt', 'consent');

    const timeoutMs = options.timeoutMs ?? 300_000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('Timed out waiting for the browser sign-in')), timeoutMs);
    });
    const callback = Promise.race([receiver.received, timedOut]);
    callback.catch(() => {});
    try {
      const onUrl = options.onUrl ?? ((url: string) => console.error(`Open this URL to sign in:\n${url}`));
      const shown = Promise.resolve(onUrl(authUrl.href));
      shown.catch(() => {});
      if (!options.noBrowser) await (options.openBrowser ?? defaultOpenBrowser)(authUrl.href);
      // A failing onUrl ends the wait at once instead of at the timeout.
      const callbackUrl = await Promise.race([callback, shown.then(() => callback)]);

      const params = oauth.validateAuthResponse(as, client, callbackUrl, state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.None(),
        params,
        receiver.redirectUri,
        verifier,
        {
          ...asOptions,
          ...(serverUrl !== undefined ? { additionalParameters: { resource: serverUrl } } : {}),
        },
      );
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
      const key = serverUrl ?? issuer;
      const stored = toStored(
        {
          serverUrl: key,
          issuer: as.issuer,
          clientId: client.client_id,
          ...(serverUrl !== undefined ? { resource: serverUrl } : {}),
        },
        tokens,
      );
      const tokenFile = options.tokenFile ?? defaultTokenFile();
      await saveToken(tokenFile, stored);
      return {
        serverUrl: key,
        issuer: as.issuer,
        clientId: client.client_id,
        registration,
        tokenFile,
        ...(stored.scope !== undefined ? { scope: stored.scope } : {}),
        ...(stored.expiresAt !== undefined ? { expiresAt: stored.expiresAt } : {}),
      };
    } finally {
      clearTimeout(timer);
    }
  } finally {
    receiver.close();
  }
}

export interface GetStoredTokenOptions {
  tokenFile?: string;
  fetch?: typeof fetch;
  /** Clock, epoch milliseconds (tests). */
  now?: () => number;
  /** Refresh this long before expiry. Default 30 s. */
  skewMs?: number;
}

/**
 * A valid access token for `serverUrl` from the token file, refreshed (and saved) when it
 * has expired; undefined when there is none or it expired without a refresh token (run
 * `login`). Throws when the refresh is refused.
 */
export async function getStoredToken(
  serverUrl: string,
  options: GetStoredTokenOptions = {},
): Promise<string | undefined> {
  const tokenFile = options.tokenFile ?? defaultTokenFile();
  const stored = await loadToken(tokenFile, serverUrl);
  if (stored === undefined) return undefined;
  const now = options.now?.() ?? Date.now();
  if (stored.expiresAt === undefined || stored.expiresAt - (options.skewMs ?? 30_000) > now)
    return stored.accessToken;
  if (stored.refreshToken === undefined) return undefined;

  const as = await discover(stored.issuer, options.fetch);
  const client: oauth.Client = { client_id: stored.clientId, token_endpoint_auth_method: 'none' };
  let tokens: oauth.TokenEndpointResponse;
  try {
    const response = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), stored.refreshToken, {
      ...requestOptions(stored.issuer, options.fetch),
      ...(stored.resource !== undefined ? { additionalParameters: { resource: stored.resource } } : {}),
    });
    tokens = await oauth.processRefreshTokenResponse(as, client, response);
  } catch (err) {
    throw new Error(
      `The stored token for ${serverUrl} could not be refreshed; run \`mcp-toolkit login\` again`,
      {
        cause: err,
      },
    );
  }
  const base = {
    serverUrl: stored.serverUrl,
    issuer: stored.issuer,
    clientId: stored.clientId,
    ...(stored.resource !== undefined ? { resource: stored.resource } : {}),
  };
  const next = toStored(base, tokens, stored);
  // toStored stamps expiry with the real clock; keep the caller's clock when it is faked.
  if (typeof tokens.expires_in === 'number') next.expiresAt = now + tokens.expires_in * 1000;
  await saveToken(tokenFile, next);
  return next.accessToken;
}

/**
 * The user's steps of an authorisation, on oidc-provider's interactions API: our consent page
 * naming the MCP client comes first, before anything is sent upstream (MCP security best
 * practices, "Confused Deputy Problem": a proxy with one static upstream client id must obtain
 * consent per client before forwarding), then the sign-in at the upstream provider with PKCE,
 * then the grant. Each step checks what ties it to the one before:
 * - the consent page and its form need oidc-provider's interaction cookie (SameSite=Lax, so a
 *   cross-site POST has none) and carry a one-time CSRF token kept in the store;
 * - the upstream callback needs the `state` we sent (single use, ten minutes) and a cookie set
 *   in the browser that approved, so a callback replayed from another browser finishes nothing
 *   (RFC 9700 §4.7: the response is bound to the user agent that started the request).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { OidcInteraction, OidcProvider } from './oidc-types.ts';
import { consentPage, errorPage, PAGE_HEADERS } from './pages.ts';
import { grantableScopes } from './scope-map.ts';
import type { ScopeRule } from './settings.ts';
import type { OAuthStore } from './store.ts';
import { type Upstream, UpstreamError } from './upstream.ts';
import type { UpstreamTokens } from './upstream-tokens.ts';

export const CALLBACK_PATH = '/oauth/callback';
const STATE_COOKIE = 'mcp_oauth_binding';
const STEP_TTL_SEC = 600;
const MAX_FORM_BYTES = 8192;
const OIDC_SCOPES = new Set(['openid', 'offline_access']);

export interface InteractionsOptions {
  /** The provider in use now (a new key ring builds a new one). */
  provider(): Promise<OidcProvider>;
  store: OAuthStore;
  upstream: Upstream;
  upstreamTokens: UpstreamTokens;
  resource: string;
  scopeRules: readonly ScopeRule[] | undefined;
  knownScopes(): readonly string[];
  serverName: string;
  /** Cookies get `Secure` (the public URL is https). */
  secure: boolean;
  /** The public base URL (our callback is here plus CALLBACK_PATH). */
  baseUrl: string;
  logger: Logger;
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, PAGE_HEADERS);
  res.end(body);
}

function refuse(res: ServerResponse, status: number, error: string, description: string): void {
  send(res, status, errorPage(error, description));
}

function redirect(res: ServerResponse, location: string, cookie?: string): void {
  res.statusCode = 303;
  res.setHeader('location', location);
  res.setHeader('cache-control', 'no-store');
  if (cookie !== undefined) res.setHeader('set-cookie', cookie);
  res.end();
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function cookieValue(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The interaction of this browser (oidc-provider's cookie), or undefined after a refusal page. */
async function interactionOf(
  provider: OidcProvider,
  req: IncomingMessage,
  res: ServerResponse,
  uid: string,
): Promise<OidcInteraction | undefined> {
  try {
    const interaction = await provider.interactionDetails(req, res);
    if (interaction.uid === uid) return interaction;
  } catch {
    // SessionNotFound: no cookie, another browser's, or expired.
  }
  refuse(
    res,
    400,
    'invalid_request',
    'This sign-in page does not belong to this browser, or it has expired (10 minutes): start again from your application.',
  );
  return undefined;
}

/**
 * @example
 * const interactions = createInteractions({ provider, store, upstream, ... });
 * if (await interactions.handle(req, res, url)) return;
 */
export function createInteractions(options: InteractionsOptions) {
  const { store, upstream } = options;
  const cookieAttributes = `Path=${new URL(CALLBACK_PATH, options.baseUrl).pathname}; HttpOnly; SameSite=Lax${options.secure ? '; Secure' : ''}`;

  async function showConsent(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    const provider = await options.provider();
    const interaction = await interactionOf(provider, req, res, uid);
    if (interaction === undefined) return;
    const clientId = String(interaction.params.client_id ?? '');
    const client = await provider.Client.find(clientId);
    if (client === undefined) {
      refuse(
        res,
        400,
        'invalid_client',
        `The application ${clientId} is no longer known here: start again from it.`,
      );
      return;
    }
    const csrf = randomBytes(24).toString('base64url');
    await store.upsert('Consent', uid, { csrf }, STEP_TTL_SEC);
    send(
      res,
      200,
      consentPage({
        serverName: options.serverName,
        clientId,
        clientName: client.clientName,
        clientUri: client.clientUri,
        logoUri: client.logoUri,
        redirectUri: String(interaction.params.redirect_uri ?? ''),
        scopes: String(interaction.params.scope ?? '')
          .split(' ')
          .filter((s) => s !== ''),
        upstreamHost: upstream.host,
        cimd: client.clientIdMetadataDocument === true,
        action: `${req.url?.split('?')[0] ?? ''}/confirm`,
        csrf,
      }),
    );
  }

  async function confirm(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    const form = await readForm(req);
    if (form === undefined) {
      refuse(res, 413, 'invalid_request', 'The consent form is too large.');
      return;
    }
    const provider = await options.provider();
    const interaction = await interactionOf(provider, req, res, uid);
    if (interaction === undefined) return;
    const expected = await store.find('Consent', uid);
    const sent = form.get('csrf') ?? '';
    if (typeof expected?.csrf !== 'string' || !sameText(expected.csrf, sent)) {
      refuse(
        res,
        403,
        'invalid_request',
        'The consent was not given on this page (its form token is missing or wrong): start again from your application.',
      );
      return;
    }
    // One answer per page.
    await store.destroy('Consent', uid);
    if (form.get('decision') !== 'approve') {
      await provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'the user denied the request' },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const { url, pending } = await upstream.start();
    const binding = randomBytes(24).toString('base64url');
    await store.upsert(
      'UpstreamSignIn',
      pending.state,
      { uid, binding, verifier: pending.verifier, nonce: pending.nonce ?? null },
      STEP_TTL_SEC,
    );
    redirect(res, url, `${STATE_COOKIE}=${binding}; ${cookieAttributes}; Max-Age=${STEP_TTL_SEC}`);
  }

  async function callback(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const state = url.searchParams.get('state') ?? '';
    const record = state === '' ? undefined : await store.find('UpstreamSignIn', state);
    // Single use: a second callback with the same state (a replay) finds nothing.
    if (
      record === undefined ||
      !(await store.consume('UpstreamSignIn', state, Math.floor(Date.now() / 1000)))
    ) {
      refuse(
        res,
        400,
        'invalid_request',
        `This sign-in at ${upstream.host} is unknown here, was used already, or took longer than 10 minutes: start again from your application.`,
      );
      return;
    }
    const clear = `${STATE_COOKIE}=; ${cookieAttributes}; Max-Age=0`;
    const binding = cookieValue(req, STATE_COOKIE);
    if (binding === undefined || typeof record.binding !== 'string' || !sameText(binding, record.binding)) {
      refuse(
        res,
        400,
        'invalid_request',
        `This sign-in came back from ${upstream.host} to a browser that did not start it: start again from your application.`,
      );
      return;
    }
    const provider = await options.provider();
    const interaction = await provider.Interaction.find(String(record.uid));
    if (interaction === undefined) {
      refuse(
        res,
        400,
        'invalid_request',
        'This authorization request has expired (10 minutes): start again from your application.',
      );
      return;
    }
    let result: Record<string, unknown>;
    try {
      const signIn = await upstream.finish(url, {
        state,
        verifier: String(record.verifier),
        nonce: typeof record.nonce === 'string' ? record.nonce : undefined,
      });
      const grantId = await grantFor(provider, interaction, signIn.subject, signIn.claims);
      await options.upstreamTokens.save(grantId, signIn.tokens);
      options.logger.info(
        { client: interaction.params.client_id, subject: signIn.subject },
        'oauth-proxy: signed in upstream',
      );
      result = { login: { accountId: signIn.subject, remember: false }, consent: { grantId } };
    } catch (err) {
      if (!(err instanceof UpstreamError)) throw err;
      options.logger.warn(
        { client: interaction.params.client_id, error: err.error, err: err.message },
        'oauth-proxy: upstream sign-in failed',
      );
      // Handed to the MCP client on its redirect URI (RFC 6749 §4.1.2.1).
      result = { error: err.error, error_description: err.message };
    }
    interaction.result = result;
    await interaction.persist();
    redirect(res, interaction.returnTo, clear);
  }

  /** The grant: what the client asked for, limited to what the user may have (MCP_OAUTH_SCOPE_MAP). */
  async function grantFor(
    provider: OidcProvider,
    interaction: OidcInteraction,
    accountId: string,
    claims: Record<string, unknown>,
  ): Promise<string> {
    const requested = String(interaction.params.scope ?? '')
      .split(' ')
      .filter((s) => s !== '');
    const allowed = new Set(grantableScopes(options.scopeRules, claims, options.knownScopes()));
    const grant = new provider.Grant({ accountId, clientId: String(interaction.params.client_id) });
    const oidcScopes = requested.filter((s) => OIDC_SCOPES.has(s));
    if (oidcScopes.length > 0) grant.addOIDCScope(oidcScopes.join(' '));
    const mine = requested.filter((s) => !OIDC_SCOPES.has(s));
    const granted = mine.filter((s) => allowed.has(s));
    const denied = mine.filter((s) => !allowed.has(s));
    grant.addResourceScope(options.resource, granted.join(' '));
    // Refused scopes are recorded as such, so oidc-provider issues the rest instead of asking again.
    if (denied.length > 0) grant.rejectResourceScope(options.resource, denied.join(' '));
    return grant.save();
  }

  return {
    /** Serves our pages; false when the path is not one of them. */
    async handle(
      req: IncomingMessage,
      res: ServerResponse,
      url: URL,
      interactionPath: string,
    ): Promise<boolean> {
      try {
        if (
          url.pathname === new URL(CALLBACK_PATH, options.baseUrl).pathname ||
          url.pathname === CALLBACK_PATH
        ) {
          if (req.method !== 'GET') return false;
          await callback(req, res, url);
          return true;
        }
        const match = new RegExp(`^${interactionPath}/([A-Za-z0-9_-]{1,64})(/confirm)?$`).exec(url.pathname);
        if (match === null) return false;
        const uid = match[1] ?? '';
        if (match[2] === undefined && req.method === 'GET') await showConsent(req, res, uid);
        else if (match[2] !== undefined && req.method === 'POST') await confirm(req, res, uid);
        else refuse(res, 405, 'invalid_request', 'This page takes GET, its form POST.');
        return true;
      } catch (err) {
        options.logger.error({ err }, 'oauth-proxy: sign-in step failed');
        if (!res.headersSent)
          refuse(
            res,
            500,
            'server_error',
            'The server could not complete this step; try again from your application.',
          );
        else res.end();
        return true;
      }
    },
  };
}

/**
 * The consent probe of `mcp-toolkit check --auth`: one authorisation request, with the client
 * the readiness check registered and no user, to see what the authorisation server does before
 * anyone signs in. A code issued at once is a finding (any web page could get codes for that
 * client: the confused deputy of MCP's Security Best Practices). A server that sends the user on
 * to another identity provider stands in front of it, and such a proxy MUST show its own consent
 * page naming each client before it issues a code; that page comes after the upstream sign-in,
 * so the probe reports the requirement rather than judging it.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Recorder } from './recorder.ts';

const MAX_HOPS = 5;

export interface ConsentProbe {
  authorizationEndpoint: string;
  clientId: string;
  redirectUri: string;
  /** The resource (RFC 8707) the request is for: the MCP URL. */
  resource: string;
  timeoutMs: number;
}

/**
 * Starts the authorisation request and follows the server's own redirects (never the user's
 * browser): a page on the server's origin, a redirect elsewhere, or a redirect back.
 */
export async function checkConsent(rec: Recorder, probe: ConsentProbe): Promise<void> {
  const verifier = randomBytes(32).toString('base64url');
  const start = new URL(probe.authorizationEndpoint);
  start.searchParams.set('response_type', 'code');
  start.searchParams.set('client_id', probe.clientId);
  start.searchParams.set('redirect_uri', probe.redirectUri);
  start.searchParams.set('code_challenge', createHash('sha256').update(verifier).digest('base64url'));
  start.searchParams.set('code_challenge_method', 'S256');
  start.searchParams.set('state', randomBytes(16).toString('base64url'));
  start.searchParams.set('resource', probe.resource);
  const origin = start.origin;
  // The server's own cookies, as a browser keeps them (an interaction is tied to its cookie).
  const cookies = new Map<string, string>();
  let url = start;
  for (let hop = 0; hop <= MAX_HOPS; hop++) {
    let res: Response;
    try {
      const headers: Record<string, string> = { accept: 'text/html' };
      if (cookies.size > 0) headers.cookie = [...cookies].map(([n, v]) => `${n}=${v}`).join('; ');
      res = await fetch(url, { redirect: 'manual', headers, signal: AbortSignal.timeout(probe.timeoutMs) });
      await res.body?.cancel();
      for (const line of res.headers.getSetCookie()) {
        const pair = line.split(';', 1)[0] ?? '';
        const eq = pair.indexOf('=');
        if (eq > 0) cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
      }
    } catch (err) {
      rec.notRun(
        'auth.consent',
        `GET ${url.origin}${url.pathname} got no answer (${(err as Error).message})`,
      );
      return;
    }
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location !== null && URL.canParse(location, String(url))) {
      const next = new URL(location, url);
      if (`${next.origin}${next.pathname}` === probe.redirectUri) {
        if (next.searchParams.has('code')) {
          rec.fail(
            'auth.consent',
            `${origin} issued an authorisation code to ${probe.clientId} without anyone signing in or consenting`,
          );
        } else {
          const error = next.searchParams.get('error') ?? 'no code';
          rec.notRun(
            'auth.consent',
            `the authorisation request was refused (${error}: ${next.searchParams.get('error_description') ?? ''})`,
          );
        }
        return;
      }
      if (next.origin !== origin) {
        rec.notRun(
          'auth.consent',
          `${origin} sends the user on to ${next.origin} to sign in: in front of another identity provider it MUST show its own consent page naming each client before it issues a code; that page follows the sign-in, so sign in (mcp-toolkit login) and look for it`,
        );
        return;
      }
      url = next;
      continue;
    }
    if (res.status === 200) {
      rec.pass('auth.consent', `${origin} asks the user first (a page at ${url.pathname})`);
      return;
    }
    rec.notRun('auth.consent', `GET ${url.origin}${url.pathname} answered HTTP ${res.status}`);
    return;
  }
  rec.notRun('auth.consent', `more than ${MAX_HOPS} redirects within ${origin}`);
}

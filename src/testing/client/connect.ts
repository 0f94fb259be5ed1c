/**
 * Opens a link to a target and, for the live tests, gets a session going on the chosen wire:
 * `2026` sends `server/discover`, `2025` runs the initialize handshake, `auto` tries 2026
 * first and falls back to initialize (as the official SDK v2 client's auto mode does).
 */
import { HttpLink } from './http-link.ts';
import { InProcessLink, type Link, StdioLink, StreamLink } from './link.ts';
import { type Answer, describeAnswer, ProbeClient } from './probe-client.ts';
import type { ConnectOptions, ResolvedTarget } from './targets.ts';

/** The MCP endpoint for a URL: a bare origin (`http://host:port` or `/`) means `/mcp`. */
export function endpointUrl(url: string): string {
  const u = new URL(url);
  if (u.pathname === '/' || u.pathname === '') u.pathname = '/mcp';
  return u.href;
}

export function openLink(target: ResolvedTarget, options: ConnectOptions = {}): Link {
  if (target.kind === 'url') return new HttpLink(endpointUrl(target.url), options.headers ?? {});
  if (target.kind === 'server') return new InProcessLink(target.server);
  if (target.kind === 'streams') return new StreamLink(target.toServer, target.fromServer);
  return new StdioLink(target.command, target.args, {
    ...(target.env !== undefined ? { env: target.env } : {}),
    ...(target.cwd !== undefined ? { cwd: target.cwd } : {}),
  });
}

/** Why a connection could not be made (no endpoint, handshake refused, process died). */
export class ConnectError extends Error {
  /** What to change when the generic fix does not apply (a Host or Origin refusal). */
  readonly fix: string | undefined;
  constructor(message: string, fix?: string) {
    super(message);
    this.name = 'ConnectError';
    this.fix = fix;
  }
}

function accepted2026(answer: Answer): boolean {
  if (answer.kind !== 'result') return false;
  const versions = answer.result.supportedVersions;
  return !Array.isArray(versions) || versions.some((v) => typeof v === 'string' && v >= '2026-07-28');
}

/** What a 401 or 403 refused: the credentials (or their scope), or the Host or Origin sent. */
export type RefusalKind = 'credentials' | 'scope' | 'host' | 'origin';

/**
 * Tells an auth refusal from a DNS-rebinding guard. A 401 is about credentials, and so is a 403
 * with a `WWW-Authenticate` challenge (`insufficient_scope`: the token lacks a scope). A 403
 * without one is not an auth refusal (RFC 6750 §3 has the challenge on every Bearer refusal):
 * a body that names the Origin or Host says which, else it is the Host guard the official
 * SDKs and this toolkit put on local servers.
 */
export function refusalKind(refusal: {
  status: number;
  challenge?: string | undefined;
  body?: string;
}): RefusalKind {
  if (refusal.status === 401) return 'credentials';
  if (refusal.challenge !== undefined && refusal.challenge !== '')
    return /insufficient_scope/i.test(refusal.challenge) ? 'scope' : 'credentials';
  const body = refusal.body ?? '';
  if (/origin/i.test(body)) return 'origin';
  if (/host/i.test(body)) return 'host';
  if (/token|credential|api[-_ ]?key|unauthori[sz]ed|auth/i.test(body)) return 'credentials';
  return 'host';
}

/** The Host header the kit sent: the URL's host and port. */
function hostOf(url: string | undefined): string {
  return url === undefined ? '<host>' : new URL(url).host;
}

/** Why nothing could be judged, with what to do about a refusal (401/403 and its challenge). */
export function connectionProblem(c: ProbeClient, targetUrl: string | undefined): string {
  const answer = c.lastHandshake;
  const refusal = c.link instanceof HttpLink ? c.link.refusal : undefined;
  const said = answer !== undefined ? describeAnswer(answer) : (c.link.failure ?? 'no answer');
  if (refusal === undefined) return c.link.failure ?? `the handshake got ${said}`;
  const kind = refusalKind(refusal);
  const body = refusal.body?.trim() ? `: ${bodyMessage(refusal.body)}` : '';
  const lines: string[] = [];
  if (kind === 'host') {
    lines.push(
      `HTTP 403 without a WWW-Authenticate challenge${body}: the server refused the Host header ${hostOf(targetUrl)} (DNS-rebinding protection), not the credentials`,
      `allow that host in the server's allowed-hosts setting (MCP_ALLOWED_HOSTS on mcp-toolkit servers, allowedHosts in the official SDKs' transports), or use the URL with a host name it accepts`,
    );
  } else if (kind === 'origin') {
    lines.push(
      `HTTP 403 without a WWW-Authenticate challenge${body}: the server refused the request's Origin (DNS-rebinding protection), not the credentials`,
      `allow the origin in the server's allowed-origins setting (MCP_ALLOWED_ORIGINS on mcp-toolkit servers, allowedOrigins in the official SDKs' transports)`,
    );
  } else {
    lines.push(
      refusal.status === 401
        ? `HTTP 401: the server wants credentials (${said})`
        : kind === 'scope'
          ? `HTTP 403: the token lacks a scope the server requires (${said})`
          : `HTTP 403: the credentials were refused (${said})`,
    );
    if (refusal.challenge) lines.push(`WWW-Authenticate: ${refusal.challenge}`);
    lines.push(
      kind === 'scope'
        ? `get a token with the scope the challenge names (mcp-toolkit login ${targetUrl ?? '<url>'}), and give it with --token TOKEN`
        : `give --token TOKEN (Authorization: Bearer) or --api-key KEY, or sign in first: mcp-toolkit login ${targetUrl ?? '<url>'}`,
    );
  }
  return lines.join('\n');
}

/** The fix line for a refused handshake: the server's allow-list for a Host or Origin refusal. */
export function refusalFix(c: ProbeClient): string | undefined {
  const refusal = c.link instanceof HttpLink ? c.link.refusal : undefined;
  if (refusal === undefined) return undefined;
  const kind = refusalKind(refusal);
  if (kind === 'host')
    return "add the host clients use to the server's allowed hosts (its DNS-rebinding guard)";
  if (kind === 'origin')
    return "add the client's origin to the server's allowed origins (its DNS-rebinding guard)";
  return undefined;
}

/** The error message of a JSON-RPC error body, else the body's first line. */
function bodyMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } };
    if (typeof parsed.error?.message === 'string') return JSON.stringify(parsed.error.message);
  } catch {
    // not JSON
  }
  return JSON.stringify(body.trim().split('\n')[0]?.slice(0, 200) ?? '');
}

function refused(client: ProbeClient): boolean {
  return client.link instanceof HttpLink && client.link.refusal !== undefined;
}

function urlOf(target: ResolvedTarget): string | undefined {
  return target.kind === 'url' ? endpointUrl(target.url) : undefined;
}

/** Opens the target and completes the handshake of the wire chosen; throws ConnectError. */
export async function connect(target: ResolvedTarget, options: ConnectOptions = {}): Promise<ProbeClient> {
  const client = new ProbeClient(openLink(target, options), target, options);
  try {
    const wire = options.wire ?? 'auto';
    if (wire !== '2025') {
      const found = await client.discover();
      if (accepted2026(found)) {
        client.wire = '2026';
        return client;
      }
      if (refused(client))
        throw new ConnectError(connectionProblem(client, urlOf(target)), refusalFix(client));
      // Worded as check's `connection` finding (connectionProblem), so both reports read alike.
      if (wire === '2026') throw new ConnectError(connectionProblem(client, urlOf(target)));
    }
    const init = await client.initialize();
    if (init.kind !== 'result')
      throw new ConnectError(connectionProblem(client, urlOf(target)), refusalFix(client));
    await client.notify('notifications/initialized', undefined, { wire: '2025' });
    client.wire = '2025';
    return client;
  } catch (err) {
    await client.close();
    if (err instanceof ConnectError) throw err;
    throw new ConnectError((err as Error).message);
  }
}

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
  constructor(message: string) {
    super(message);
    this.name = 'ConnectError';
  }
}

function accepted2026(answer: Answer): boolean {
  if (answer.kind !== 'result') return false;
  const versions = answer.result.supportedVersions;
  return !Array.isArray(versions) || versions.some((v) => typeof v === 'string' && v >= '2026-07-28');
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
      if (wire === '2026') throw new ConnectError(`server/discover got ${describeAnswer(found)}`);
    }
    const init = await client.initialize();
    if (init.kind !== 'result') throw new ConnectError(`initialize got ${describeAnswer(init)}`);
    await client.notify('notifications/initialized', undefined, { wire: '2025' });
    client.wire = '2025';
    return client;
  } catch (err) {
    await client.close();
    if (err instanceof ConnectError) throw err;
    throw new ConnectError((err as Error).message);
  }
}

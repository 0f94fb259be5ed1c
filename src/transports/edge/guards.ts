/**
 * DNS-rebinding protection (MCP transports spec, "Security Warning"; docs/internals/conformance-fixture.md §1):
 * the Host and Origin headers are checked against allow-lists. On by default when bound to
 * loopback, and for any bind once allowed hosts are listed.
 */
import { isLoopbackHost } from '../../base/loopback.ts';
import type { HttpOptions } from '../http/options.ts';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** `host:port` or `[v6]:port` → the host part, lower-cased. */
function hostnameOf(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.indexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

export interface HostGuard {
  readonly enabled: boolean;
  hostAllowed(host: string | undefined): boolean;
  originAllowed(origin: string | undefined): boolean;
}

/** What the Host and Origin checks allow, named for what each does (hostGuardOptions derives it from the HTTP options). */
export interface HostGuardOptions {
  /** Check the Host header at all (DNS-rebinding protection). */
  readonly checkHost: boolean;
  /** Allowed Host values: a name allows any port, `name:port` that port only; empty: the loopback names. */
  readonly allowedHosts: readonly string[];
  /** Allowed Origin values; empty: the loopback origins while the Host is checked, else any. */
  readonly allowedOrigins: readonly string[];
  /** Any Origin is allowed (CORS open to all). */
  readonly anyOrigin: boolean;
}

/**
 * The checks as the HTTP options ask: on when bound to loopback or once allowed hosts are set.
 * Origins trusted for CORS are trusted here too: a browser app listed as a CORS origin must not
 * pass the preflight and then be refused on the POST.
 */
export function hostGuardOptions(
  options: Pick<HttpOptions, 'host' | 'allowedHosts' | 'allowedOrigins' | 'corsOrigins'>,
): HostGuardOptions {
  return {
    checkHost: options.allowedHosts.length > 0 || isLoopbackHost(options.host),
    allowedHosts: options.allowedHosts,
    allowedOrigins: [...options.allowedOrigins, ...options.corsOrigins],
    anyOrigin: options.corsOrigins.includes('*'),
  };
}

export function createHostGuard(
  options: Pick<HttpOptions, 'host' | 'allowedHosts' | 'allowedOrigins' | 'corsOrigins'>,
): HostGuard {
  return hostGuard(hostGuardOptions(options));
}

/** How many allowed Host values a guard remembers. */
const MAX_SEEN_HOSTS = 64;

export function hostGuard(options: HostGuardOptions): HostGuard {
  const configured = options.allowedHosts.map((h) => h.toLowerCase());
  const enabled = options.checkHost;
  const hostnames = new Set<string>(configured.length > 0 ? [] : LOOPBACK_HOSTS);
  const exact = new Set<string>();
  for (const h of configured) {
    // An entry with a port must match exactly; without one, any port.
    if (/:\d+$/.test(h)) exact.add(h);
    else hostnames.add(h);
  }
  // Host values already allowed, as sent: most requests' check is one lookup. Bounded, so that
  // a client trying port after port cannot grow it.
  const allowedSeen = new Set<string>();
  let lastAllowed: string | undefined;
  const anyOrigin = options.anyOrigin;
  const origins = new Set(options.allowedOrigins.map((o) => o.toLowerCase().replace(/\/$/, '')));
  return {
    enabled,
    hostAllowed(host) {
      if (!enabled) return true;
      if (!host) return false;
      // The same Host as the last allowed one: compared, not hashed (each request's is a new string).
      if (host === lastAllowed) return true;
      if (allowedSeen.has(host)) {
        lastAllowed = host;
        return true;
      }
      const h = host.trim().toLowerCase();
      const allowed = exact.has(h) || hostnames.has(hostnameOf(h));
      if (allowed && allowedSeen.size < MAX_SEEN_HOSTS) allowedSeen.add(host);
      return allowed;
    },
    originAllowed(origin) {
      if (origin === undefined || anyOrigin) return true; // not a browser, or CORS open to all
      const o = origin.trim().toLowerCase();
      if (origins.has(o)) return true;
      // An explicit list is the whole truth; without one, any origin when the guard is off,
      // else the loopback origins only.
      if (origins.size > 0) return false;
      if (!enabled) return true;
      try {
        const url = new URL(o);
        return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname);
      } catch {
        return false;
      }
    },
  };
}

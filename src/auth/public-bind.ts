/**
 * Safe by default: an HTTP server without authentication listens on loopback only, unless the
 * operator says in so many words that it may serve anyone who reaches it. The MCP
 * authorization spec (2025-06-18 "Authorization", Security Considerations) and its security
 * best practices leave an unauthenticated remote server open to any caller; a container
 * bound to 0.0.0.0 with no auth is exactly that.
 */
import { InternalCode, ToolkitError } from '../base/errors.ts';
import { isLoopbackHost } from '../base/loopback.ts';

/** The settings the rule reads (a slice of the core Settings). */
export interface PublicBindSettings {
  readonly MCP_AUTH: string;
  readonly MCP_HTTP_HOST: string;
  readonly MCP_ALLOW_PUBLIC_UNAUTHENTICATED: boolean;
}

/** The refusal's text: what is wrong, the safe ways out, and the setting that allows it anyway. */
export function publicBindRefusal(host: string): string {
  return (
    `MCP_AUTH=none with MCP_HTTP_HOST=${host}: anyone who can reach this port could call every tool. ` +
    'Use MCP_AUTH=api_key with MCP_API_KEYS (e.g. `MCP_API_KEYS=me:$(openssl rand -hex 32)`), ' +
    'or MCP_AUTH=oauth with MCP_OAUTH_ISSUER, or bind loopback only (MCP_HTTP_HOST=127.0.0.1); ' +
    'to serve without authentication anyway (a local try, a network only you reach), set ' +
    'MCP_ALLOW_PUBLIC_UNAUTHENTICATED=true'
  );
}

/**
 * Throws a ToolkitError (InvalidSetting, so start-up stops with exit code 2) when a server
 * that listens for HTTP would bind beyond loopback with `MCP_AUTH=none` and
 * `MCP_ALLOW_PUBLIC_UNAUTHENTICATED` is not true.
 *
 * @example
 * requireAuthBeyondLoopback(settings); // before listening
 */
export function requireAuthBeyondLoopback(settings: PublicBindSettings): void {
  if (settings.MCP_AUTH !== 'none' || settings.MCP_ALLOW_PUBLIC_UNAUTHENTICATED) return;
  if (isLoopbackHost(settings.MCP_HTTP_HOST)) return;
  throw new ToolkitError(InternalCode.InvalidSetting, publicBindRefusal(settings.MCP_HTTP_HOST));
}

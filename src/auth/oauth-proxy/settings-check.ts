/**
 * The rules between the oauth-proxy settings that a zod shape per variable cannot state:
 * an upstream given one way or the other (an issuer, or the three URLs of a plain OAuth 2.0
 * provider), a client id, URLs that are https (http only on loopback). Checked at start-up and
 * by `doctor`, so a half-configured provider stops the server with the variable's name.
 */
import { InternalCode, ToolkitError } from '../../base/errors.ts';
import { isSecureUrl } from '../discovery.ts';
import type { OAuthProxySettings } from './settings.ts';

function invalid(message: string): ToolkitError {
  return new ToolkitError(InternalCode.InvalidSetting, message);
}

const PLAIN = [
  'MCP_OAUTH_UPSTREAM_AUTHORIZATION_URL',
  'MCP_OAUTH_UPSTREAM_TOKEN_URL',
  'MCP_OAUTH_UPSTREAM_USERINFO_URL',
] as const;

/**
 * Throws ToolkitError (InvalidSetting) naming what is missing or wrong.
 *
 * @example
 * checkOAuthProxySettings(settings, settings.MCP_PUBLIC_URL ?? 'http://127.0.0.1:8000');
 */
export function checkOAuthProxySettings(settings: OAuthProxySettings, publicUrl: string): void {
  const plain = PLAIN.filter((name) => settings[name] !== undefined);
  if (settings.MCP_OAUTH_UPSTREAM_ISSUER !== undefined && plain.length > 0) {
    throw invalid(
      `MCP_AUTH=oauth-proxy takes MCP_OAUTH_UPSTREAM_ISSUER (an OpenID Connect provider) or ${PLAIN.join(', ')} (a plain OAuth 2.0 provider), not both: ${plain.join(', ')} set beside the issuer`,
    );
  }
  if (settings.MCP_OAUTH_UPSTREAM_ISSUER === undefined && plain.length < PLAIN.length) {
    const missing = PLAIN.filter((name) => settings[name] === undefined);
    throw invalid(
      plain.length === 0
        ? 'MCP_AUTH=oauth-proxy needs the upstream identity provider: MCP_OAUTH_UPSTREAM_ISSUER (OpenID Connect, found by discovery), or MCP_OAUTH_UPSTREAM_AUTHORIZATION_URL, MCP_OAUTH_UPSTREAM_TOKEN_URL and MCP_OAUTH_UPSTREAM_USERINFO_URL (plain OAuth 2.0, e.g. GitHub)'
        : `MCP_AUTH=oauth-proxy with a plain OAuth 2.0 provider needs all three URLs: ${missing.join(', ')} missing`,
    );
  }
  if (settings.MCP_OAUTH_UPSTREAM_CLIENT_ID === undefined) {
    throw invalid(
      'MCP_AUTH=oauth-proxy needs MCP_OAUTH_UPSTREAM_CLIENT_ID: the client id this server has at the upstream provider',
    );
  }
  for (const name of ['MCP_OAUTH_UPSTREAM_ISSUER', ...PLAIN] as const) {
    const url = settings[name];
    if (url !== undefined && !isSecureUrl(url)) {
      throw invalid(`${name} must be an https URL (http only on loopback), got ${url}`);
    }
  }
  if (!isSecureUrl(publicUrl)) {
    throw invalid(
      `MCP_AUTH=oauth-proxy needs MCP_PUBLIC_URL to be https (http only on loopback): it is the issuer of our tokens and the base of the sign-in pages; got ${publicUrl}`,
    );
  }
  const base = new URL(publicUrl);
  if (base.search !== '' || base.hash !== '') {
    throw invalid(
      `MCP_PUBLIC_URL must not have a query or fragment with MCP_AUTH=oauth-proxy (it is our issuer identifier, RFC 8414 §2), got ${publicUrl}`,
    );
  }
}

/**
 * What an upstream's URL must be, for `MCP_PROXY_URL` and for a `url` entry of
 * `MCP_PROXY_UPSTREAMS` alike: an http(s) URL with its host written out and no credentials in
 * it. WHATWG parsing reads `http:///mcp` as the host "mcp", so the host is asked of the text;
 * `user:password@` would sit in every log line and settings dump that shows the URL, where
 * MCP_PROXY_BEARER_TOKEN and MCP_PROXY_API_KEY (or MCP_PROXY_UPSTREAM_SECRETS) are masked.
 */

/** Why `url` cannot name an upstream, or undefined when it can. */
export function upstreamUrlProblem(url: string): string | undefined {
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    return 'expected an http(s) URL of a streamable-HTTP MCP endpoint, e.g. https://mcp.example.com/mcp';
  }
  if (!/^https?:\/\/[^/?#\\]/i.test(url)) return 'the URL has no host: write it as https://host[:port]/path';
  const parsed = new URL(url);
  if (parsed.username !== '' || parsed.password !== '') {
    return 'the URL carries credentials (user:password@): give them in MCP_PROXY_BEARER_TOKEN or MCP_PROXY_API_KEY (MCP_PROXY_UPSTREAM_SECRETS for a listed upstream), which are never shown';
  }
  return undefined;
}

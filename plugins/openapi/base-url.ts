/**
 * Where an operation's calls go: `MCP_OPENAPI_BASE_URL` when set, else the first server of
 * the operation, its path, or the document (OpenAPI 3 §Server Object, most specific wins),
 * with server variables at their defaults. A relative server URL resolves against the
 * document's own URL; read from a file, it cannot, and start-up says to set the base URL.
 */
import { InternalCode, ToolkitError } from '../../src/index.ts';
import type { ApiDocument, Operation, ServerObject } from './document.ts';

function expand(server: ServerObject): string {
  return server.url.replace(
    /\{([^}]+)\}/g,
    (whole, name: string) => server.variables?.[name]?.default ?? whole,
  );
}

/**
 * The base URL of one operation.
 *
 * @example
 * baseUrlOf(op, api, { baseUrl: undefined, documentUrl: 'https://api.example.com/openapi.json' });
 */
export function baseUrlOf(
  op: Operation | undefined,
  api: ApiDocument,
  where: { baseUrl: string | undefined; documentUrl: string | undefined },
): string {
  if (where.baseUrl !== undefined) return where.baseUrl;
  const servers = op?.operation.servers ?? op?.pathItem.servers ?? api.servers;
  const first = servers?.[0];
  // No servers at all means a single server at "/" (OpenAPI 3 §OpenAPI Object, servers).
  const url = first === undefined ? '/' : expand(first);
  if (/^https?:\/\//i.test(url)) return url;
  if (where.documentUrl !== undefined && URL.canParse(url, where.documentUrl)) {
    return new URL(url, where.documentUrl).href;
  }
  throw new ToolkitError(
    InternalCode.InvalidSetting,
    `MCP_OPENAPI_BASE_URL is required: the document's server URL ${JSON.stringify(url)} is not an absolute http(s) URL${where.documentUrl === undefined ? ' and the document was read from a file' : ''}`,
  );
}

/** A URL fit for messages and /readyz: no user name, password or query. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    return u.href;
  } catch {
    return '(an invalid URL)';
  }
}

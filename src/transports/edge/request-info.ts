/**
 * What a handler may see of the HTTP request behind its call (`ctx.http`): the method, the
 * path and the headers, never credentials. A tool behind a trusted gateway reads the identity
 * headers the gateway injects (`X-Authenticated-User`, say) from here. Built lazily: most
 * handlers never look, and the transport creates one per request.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { HttpRequestInfo } from '../../base/types.ts';

/** Credential headers by whole name, and names that end like a secret (`X-Amz-Security-Token`). */
const SECRET_HEADER =
  /^(?:(?:proxy-)?authorization|(?:set-)?cookie|x-api-key)$|(?:^|-)(?:token|secret|password|passwd|api-?key|credentials?)$/i;

/** Headers a proxy sets: believed only behind a trusted proxy (MCP_TRUST_PROXY), as for the client address. */
const FORWARDED_HEADER = /^(?:forwarded|x-forwarded-.*|x-real-ip)$/i;

/** The header names `ctx.http` never shows. */
function hiddenHeader(name: string, trustProxy: boolean): boolean {
  return SECRET_HEADER.test(name) || (!trustProxy && FORWARDED_HEADER.test(name));
}

class RequestInfo implements HttpRequestInfo {
  // Made per request: fields `private`, not `#private` (V8 defines each `#` field through a
  // keyed store call on every construction: docs/performance.md).
  readonly method: string;
  readonly path: string;
  private readonly _raw: IncomingHttpHeaders;
  private readonly _trustProxy: boolean;
  private _headers: Readonly<Record<string, string>> | undefined;

  constructor(method: string, url: string, raw: IncomingHttpHeaders, trustProxy: boolean) {
    this.method = method;
    const q = url.indexOf('?');
    this.path = q === -1 ? url : url.slice(0, q);
    this._raw = raw;
    this._trustProxy = trustProxy;
  }

  get headers(): Readonly<Record<string, string>> {
    if (this._headers === undefined) {
      const out: Record<string, string> = {};
      for (const [name, value] of Object.entries(this._raw)) {
        if (value === undefined || hiddenHeader(name, this._trustProxy)) continue;
        out[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      this._headers = Object.freeze(out);
    }
    return this._headers;
  }

  toJSON(): HttpRequestInfo {
    return { method: this.method, path: this.path, headers: this.headers };
  }
}

/**
 * @example
 * const info = requestInfo('POST', '/mcp?x=1', req.headers, false);
 * info.headers['x-authenticated-user'];
 */
export function requestInfo(
  method: string,
  url: string,
  headers: IncomingHttpHeaders,
  trustProxy: boolean,
): HttpRequestInfo {
  return new RequestInfo(method, url, headers, trustProxy);
}

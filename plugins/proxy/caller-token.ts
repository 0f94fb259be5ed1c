/**
 * The caller's own upstream token on a per-session upstream connection
 * (`MCP_PROXY_FORWARD_UPSTREAM_TOKEN`): behind `MCP_AUTH=oauth-proxy`, each signed-in user has a
 * token at the identity provider (`ctx.upstreamToken()`), and an upstream MCP server that
 * accepts that provider's tokens can be called as that user. The token goes only on the
 * connection of the caller's own 2025-wire session (`MCP_PROXY_ISOLATION=per-session`, which
 * the settings require): a session is bound to one identity (src/protocol/session/store.ts), so its
 * connection carries one user's token, and the shared connection never carries any.
 */
import type { HandlerContext } from '@mcp-toolkit/server';
import type { FetchLike } from '@modelcontextprotocol/client';

/** Gives the token to send (refreshed first with `forceRefresh`: the upstream said 401). */
export type BearerSource = (options: { forceRefresh: boolean }) => Promise<string>;

/** No token to act as the caller with: the call is refused with this message, and nothing is sent. */
export class NoCallerToken extends Error {
  override name = 'NoCallerToken';
}

/** Why a sessionless request cannot be forwarded as its caller. */
export const SESSIONLESS =
  "This proxy calls its upstream with each caller's own upstream token (MCP_PROXY_FORWARD_UPSTREAM_TOKEN), on the upstream connection of the caller's session; this request has no session (the 2026-07-28 wire), and the shared connection never carries a caller's token. Call over the 2025-11-25 wire, with a session.";

/**
 * The token of the request's caller, or NoCallerToken saying why there is none (another auth
 * mode, a sign-in that has ended).
 */
export function callerBearer(ctx: HandlerContext): BearerSource {
  return async ({ forceRefresh }) => {
    try {
      return await ctx.upstreamToken({ forceRefresh });
    } catch (err) {
      throw new NoCallerToken(
        `This proxy calls its upstream with each caller's own upstream token (MCP_PROXY_FORWARD_UPSTREAM_TOKEN), and there is none: ${(err as Error).message}`,
        { cause: err },
      );
    }
  };
}

/**
 * A fetch for the upstream connection that sends `Authorization: Bearer <token>` from `source`
 * on every request (so a refreshed token is used as soon as there is one), and sends a request
 * answered 401 once more with a refreshed token (RFC 6750 §3.1: it was not carried out).
 *
 * @example
 * new StreamableHTTPClientTransport(url, { fetch: bearerFetch(source) });
 */
export function bearerFetch(source: () => BearerSource | undefined): FetchLike {
  return async (url, init) => {
    const send = async (forceRefresh: boolean) => {
      const bearer = source();
      if (bearer === undefined)
        throw new NoCallerToken('No caller of this session has asked for the upstream yet.');
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${await bearer({ forceRefresh })}`);
      return fetch(url, { ...init, headers });
    };
    const first = await send(false);
    if (first.status !== 401) return first;
    await first.body?.cancel().catch(() => {});
    return send(true);
  };
}

/**
 * How we fetch a Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document):
 * the client's `client_id` is an https URL we GET, so whoever starts an authorisation request
 * makes this server send a request. oidc-provider's CIMD feature does the checks of the draft
 * (https only, no fragment or credentials in the URL, the document's `client_id` equal to its
 * URL, no shared-secret authentication, redirects refused, a body size limit, caching by
 * `Cache-Control`/`Expires` within 30 s to a day) and refuses special-use addresses
 * (loopback, private, link-local, ...) when the socket connects, so a name that resolves to
 * one is caught too. Here we set the time limit and, with `MCP_OAUTH_CIMD_ALLOW_PRIVATE=true`,
 * lift the address check (tests, internal deployments).
 */

/** oidc-provider's name for the CIMD fetch in `fetchResponseBodyLimits`. */
export const CIMD_FETCH_PURPOSE = 'client_id metadata document';

export interface CimdFetchOptions {
  /** Fetch from private and loopback addresses too. */
  allowPrivate: boolean;
  /** The largest body read, in bytes (the whole document, however it is sent). */
  maxBytes: number;
  /** The whole fetch, body included. */
  timeoutMs: number;
  /** For tests; defaults to the global fetch. */
  fetch?: typeof fetch;
}

/**
 * A body that errors once more than `maxBytes` have arrived. oidc-provider counts the bytes of
 * a body without Content-Length itself, but then fails on its own stream lock rather than
 * saying the document was too large; this stream says it first.
 */
function capped(body: ReadableStream<Uint8Array>, maxBytes: number): ReadableStream<Uint8Array> {
  let received = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        received += chunk.byteLength;
        if (received > maxBytes) controller.error(new Error('response too large'));
        else controller.enqueue(chunk);
      },
    }),
  );
}

/**
 * The `fetch` oidc-provider calls for every outgoing request (CIMD documents, a client's
 * `jwks_uri`): its options carry the address-checking dispatcher, which stays unless private
 * addresses are allowed. Every body is capped at `maxBytes`.
 *
 * @example
 * new Provider(issuer, { fetch: cimdFetch({ allowPrivate: false, timeoutMs: 2500 }) });
 */
export function cimdFetch(
  options: CimdFetchOptions,
): (url: URL | string, init: RequestInit & { dispatcher?: unknown }) => Promise<Response> {
  const doFetch = options.fetch ?? globalThis.fetch;
  return async (url, init) => {
    const request: RequestInit & { dispatcher?: unknown } = {
      ...init,
      signal: AbortSignal.timeout(options.timeoutMs),
    };
    if (options.allowPrivate) delete request.dispatcher;
    const response = await doFetch(url, request);
    if (response.body === null) return response;
    return new Response(capped(response.body, options.maxBytes), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/**
 * oidc-provider's refusals say what failed ("client_id metadata document fetch failed") and
 * keep why to itself. For the refusals a client developer can fix, the description is made to
 * say why and what to do: a Client ID Metadata Document that could not be fetched (private
 * address, redirect, size, time, status), a client id that is not a document URL at all, or
 * a PKCE verifier that is missing or wrong.
 * Nothing else of the cause is shown (no stack, no address that was reached).
 */
import type { KoaContext } from './oidc-types.ts';

export interface ErrorDetailOptions {
  maxBytes: number;
  timeoutMs: number;
}

/** The innermost cause's message (fetch wraps the socket's reason). */
function rootCause(err: unknown): { message: string; name: string } {
  let current: unknown = err;
  for (let depth = 0; depth < 5; depth++) {
    const next = (current as { cause?: unknown } | undefined)?.cause;
    if (!(next instanceof Error)) break;
    current = next;
  }
  const e = current as { message?: unknown; name?: unknown };
  return { message: String(e?.message ?? ''), name: String(e?.name ?? '') };
}

/** Why a CIMD fetch failed, in words a client developer can act on. */
export function cimdFailure(err: unknown, options: ErrorDetailOptions): string {
  const detail = String((err as { error_detail?: unknown }).error_detail ?? '');
  const status = /unexpected response status (\d+)/.exec(detail)?.[1];
  if (status !== undefined) {
    return Number(status) >= 300 && Number(status) < 400
      ? `its URL answered with a redirect (HTTP ${status}); serve the document at the client_id URL itself (redirects are refused)`
      : `its URL answered HTTP ${status} instead of 200 with the document`;
  }
  const { message, name } = rootCause(err);
  if (/special-use IP/i.test(message)) {
    return 'its host is a private, loopback or other special-use address; documents are fetched from public addresses only (MCP_OAUTH_CIMD_ALLOW_PRIVATE=true allows others)';
  }
  if (/too large/i.test(message)) return `the document is larger than ${options.maxBytes} bytes`;
  if (name === 'TimeoutError' || /timeout|aborted/i.test(message)) {
    return `the document did not arrive within ${options.timeoutMs} ms`;
  }
  if (err instanceof Error && /JSON/i.test(message)) return 'the document is not JSON';
  return message !== '' ? message : 'the document could not be fetched';
}

interface ProviderError {
  error?: string;
  error_description?: string;
}

/**
 * Koa middleware (first in oidc-provider's stack): after a refusal, a better
 * `error_description` where there is one to give. oidc-provider reports the error object
 * through its events; `remember` stores it on the context for this.
 *
 * @example
 * provider.on('authorization.error', remember); provider.use(describeErrors(options));
 */
export function describeErrors(options: ErrorDetailOptions) {
  return async (
    ctx: KoaContext & { state: Record<string, unknown> },
    next: () => Promise<void>,
  ): Promise<void> => {
    await next();
    const err = ctx.state.oauthError as (Error & ProviderError) | undefined;
    const body = ctx.body as ProviderError | undefined;
    if (err === undefined || typeof body !== 'object' || body === null || typeof body.error !== 'string')
      return;
    const better = betterDescription(err, ctx, options);
    if (better !== undefined) ctx.body = { ...body, error_description: better };
  };
}

/** The description to show instead of oidc-provider's, or undefined to keep its own. */
export function betterDescription(
  err: Error & ProviderError,
  ctx: Pick<KoaContext, 'oidc'>,
  options: ErrorDetailOptions,
): string | undefined {
  const description = err.error_description ?? '';
  if (description.startsWith('client_id metadata document fetch failed')) {
    return `the Client ID Metadata Document could not be used: ${cimdFailure(err, options)}`;
  }
  if (description.startsWith('client_id metadata document')) {
    return `the Client ID Metadata Document was refused: ${description.slice('client_id metadata document '.length)}`;
  }
  // PKCE (RFC 7636 §4.6): which half is wrong is the client's to know.
  const detail = String((err as { error_detail?: unknown }).error_detail ?? '');
  if (err.error === 'invalid_grant' && /^code_verifier /.test(detail)) {
    return `PKCE failed: ${detail} (send the code_verifier whose S256 hash was the code_challenge)`;
  }
  const clientId = ctx.oidc?.params?.client_id;
  if (err.error === 'invalid_client' && typeof clientId === 'string' && /^http/i.test(clientId)) {
    return `client_id ${clientId} is not a Client ID Metadata Document URL this server fetches: it must be an https URL with a path and no fragment, user or password`;
  }
  return undefined;
}

/** The event listener that hands the error object to `describeErrors`. */
export function remember(ctx: unknown, err: unknown): void {
  const state = (ctx as { state?: Record<string, unknown> }).state;
  if (state !== undefined) state.oauthError = err;
}

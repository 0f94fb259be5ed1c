/**
 * The one error the auth layer throws for a refused caller. It is a ProtocolError, so the
 * dispatcher and every transport already know how to send it (a JSON-RPC error with
 * `Unauthorized`/`Forbidden` and the HTTP status as data); the HTTP edge additionally copies
 * `challenge` into the `WWW-Authenticate` header (RFC 6750 §3, RFC 9728 §5.1).
 */
import { ErrorCode, ProtocolError } from '../base/errors.ts';

/** RFC 6750 §3.1 error codes used in challenges. */
export type BearerErrorCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

export type AuthStatus = 401 | 403;

/**
 * A refusal: 401 (no or bad credentials) or 403 (valid credentials, missing scope).
 *
 * @example
 * catch (err) {
 *   if (err instanceof AuthError) reply.code(err.status).header('WWW-Authenticate', err.challenge);
 * }
 */
export class AuthError extends ProtocolError {
  readonly status: AuthStatus;
  /** The full `WWW-Authenticate` header value. */
  readonly challenge: string;

  constructor(status: AuthStatus, message: string, challenge: string, options: { data?: unknown } = {}) {
    super(status === 401 ? ErrorCode.Unauthorized : ErrorCode.Forbidden, message, {
      httpStatus: status,
      httpHeaders: { 'www-authenticate': challenge },
      data: options.data,
    });
    this.name = 'AuthError';
    this.status = status;
    this.challenge = challenge;
  }
}

/**
 * Builds a `Bearer` challenge from auth-params, skipping undefined ones. Values are quoted
 * strings; RFC 6750 §3 forbids `"` and `\` inside them, so those are replaced rather than escaped.
 *
 * @example
 * bearerChallenge({ realm: 'mcp', error: 'invalid_token' }) // 'Bearer realm="mcp", error="invalid_token"'
 */
export function bearerChallenge(params: Readonly<Record<string, string | undefined>>): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    parts.push(`${name}="${value.replace(/["\\]/g, "'")}"`);
  }
  return parts.length === 0 ? 'Bearer' : `Bearer ${parts.join(', ')}`;
}

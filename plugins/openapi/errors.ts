/**
 * The failures every openapi tool declares (the toolkit's declared tool errors): each call
 * that fails throws one of these codes, so the model reads whether retrying can help and what
 * to do instead, and a program reads `structuredContent.error.code` on tools with an output
 * schema. The codes follow the HTTP status classes of RFC 9110 §15.
 */
import type { DeclaredToolError } from '../../src/index.ts';

export const OPENAPI_ERRORS = {
  bad_request: { hint: 'Check the arguments against the input schema and call again with corrected values.' },
  unauthorized: {
    hint: "The API did not accept this server's credentials (or got none); other arguments will not fix that.",
  },
  forbidden: { hint: "This server's credentials do not allow this operation." },
  not_found: { hint: 'Check the identifiers in the arguments.' },
  conflict: {
    hint: "The request conflicts with the resource's current state: read it again before changing it.",
  },
  rate_limited: {
    retryable: true,
    hint: 'The API limits how often it may be called: wait before calling again.',
  },
  refused: { hint: 'The API refused the request as it was made.' },
  upstream_error: { retryable: true, hint: 'The API failed on its side.' },
  unreachable: { retryable: true, hint: 'The API could not be reached.' },
  timeout: { retryable: true, hint: 'The API did not answer in time.' },
  unexpected_response: {
    hint: 'The API answered differently from what its document promises; the operator should know.',
  },
  response_too_large: { hint: 'Ask for less: a filter, a field selection or a smaller page.' },
} as const satisfies Record<string, DeclaredToolError>;

export type OpenapiErrorCode = keyof typeof OPENAPI_ERRORS;

/** The code of a refusal (3xx left unfollowed, 4xx). */
export function refusalCode(status: number): OpenapiErrorCode {
  if (status === 400 || status === 422) return 'bad_request';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404 || status === 410) return 'not_found';
  if (status === 409 || status === 412) return 'conflict';
  if (status === 429) return 'rate_limited';
  return 'refused';
}

/** Reading credentials out of Node's header map (names lower-cased, repeats as arrays). */

/** The header's value, or undefined when absent or repeated (a repeated credential is ambiguous). */
export function singleHeader(value: string | readonly string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value.trim();
  return value.length === 1 && value[0] !== undefined ? value[0].trim() : undefined;
}

/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1; the scheme name is
 * case-insensitive per RFC 9110 §11.1), or undefined for any other scheme or none.
 */
export function readBearerToken(value: string | readonly string[] | undefined): string | undefined {
  const header = singleHeader(value);
  if (header === undefined) return undefined;
  const match = /^Bearer +([^\s]+)$/i.exec(header);
  return match?.[1];
}

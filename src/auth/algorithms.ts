/**
 * The JWS algorithms an access token may be signed with. Asymmetric only: a resource server
 * holds public keys, so accepting `none` or an HMAC algorithm would let anyone who has the
 * public key (everyone) mint tokens (the RFC 8725 §2.1 / §3.1 algorithm-confusion attacks).
 */

/** Every asymmetric JWS algorithm jose verifies (RFC 7518 §3, RFC 8037, RFC 9864). */
export const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

export type AsymmetricAlgorithm = (typeof ASYMMETRIC_ALGORITHMS)[number];

/** The default allow-list: all of them (the issuer's JWKS decides which keys exist). */
export const DEFAULT_ALGORITHMS: readonly AsymmetricAlgorithm[] = ASYMMETRIC_ALGORITHMS;

export function isAsymmetricAlgorithm(alg: string): alg is AsymmetricAlgorithm {
  return (ASYMMETRIC_ALGORITHMS as readonly string[]).includes(alg);
}

/**
 * A minimal issuer for the negative cases a real authorisation server will not produce:
 * its metadata (RFC 8414 or OpenID, switchable), a JWKS whose keys the test adds and removes
 * (rotation), a count of JWKS requests (cooldown), and tokens minted with jose using keys
 * the test controls (expired, wrong audience, unknown kid, ...). Loopback only.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

export interface IssuedKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

export interface TokenIssuer {
  issuer: string;
  jwksUrl: string;
  /** Which metadata document is served: RFC 8414, OpenID, or none (discovery fails). */
  metadata: 'oauth' | 'oidc' | 'none';
  /** Requests per path, e.g. `counts.get('/jwks')`. */
  counts: Map<string, number>;
  /** Creates a key; `publish` (default true) puts it in the JWKS. */
  addKey(alg?: 'RS256' | 'ES256' | 'PS256' | 'EdDSA', options?: { publish?: boolean }): Promise<IssuedKey>;
  /** Signs claims with `key`; `iss` defaults to this issuer, `exp` to +5 min, `iat` to now. */
  sign(key: IssuedKey, claims: JWTPayload, header?: { kid?: string | null; typ?: string }): Promise<string>;
  close(): Promise<void>;
}

let kidCounter = 0;

export async function startTokenIssuer(): Promise<TokenIssuer> {
  const published: JWK[] = [];
  const counts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const metadata = { issuer: self.issuer, jwks_uri: self.jwksUrl };
    if (path === '/.well-known/oauth-authorization-server' && self.metadata === 'oauth')
      return json(200, metadata);
    if (path === '/.well-known/openid-configuration' && self.metadata === 'oidc') return json(200, metadata);
    if (path === '/jwks') return json(200, { keys: published });
    return json(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const self: TokenIssuer = {
    issuer: origin,
    jwksUrl: `${origin}/jwks`,
    metadata: 'oauth',
    counts,
    async addKey(alg = 'ES256', options = {}) {
      const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
      const kid = `k${++kidCounter}`;
      const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
      if (options.publish ?? true) published.push(publicJwk);
      return { kid, alg, privateKey, publicKey, publicJwk };
    },
    async sign(key, claims, header = {}) {
      const protectedHeader: { alg: string; kid?: string; typ?: string } = { alg: key.alg };
      if (header.kid !== null) protectedHeader.kid = header.kid ?? key.kid;
      if (header.typ !== undefined) protectedHeader.typ = header.typ;
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: self.issuer, iat: now, exp: now + 300, ...claims })
        .setProtectedHeader(protectedHeader)
        .sign(key.privateKey);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return self;
}

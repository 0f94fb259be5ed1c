import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { exportSPKI, SignJWT } from 'jose';
import { createOAuthAuthenticator, type OAuthAuthenticatorOptions } from '../../src/auth/oauth.ts';
import { ErrorCode, InternalCode, ProtocolError, ToolkitError } from '../../src/base/errors.ts';
import { authenticatorContract, refusal } from './contract.ts';
import { type IssuedKey, startTokenIssuer, type TokenIssuer } from './token-issuer.ts';

const RESOURCE = 'https://mcp.example.com/mcp';
const METADATA_URL = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';

let issuer: TokenIssuer;
let rsa: IssuedKey;
let ec: IssuedKey;

before(async () => {
  issuer = await startTokenIssuer();
  rsa = await issuer.addKey('RS256');
  ec = await issuer.addKey('ES256');
});
after(() => issuer.close());

function makeAuth(extra: Partial<OAuthAuthenticatorOptions> = {}) {
  return createOAuthAuthenticator({
    issuer: issuer.issuer,
    audience: RESOURCE,
    resourceMetadataUrl: METADATA_URL,
    requiredScopes: ['mcp:read'],
    ...extra,
  });
}

const good = { sub: 'user-1', client_id: 'client-1', aud: RESOURCE, scope: 'mcp:read mcp:write' };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwksFetches = () => issuer.counts.get('/jwks') ?? 0;

authenticatorContract('oauth', async () => {
  const valid = await issuer.sign(ec, good);
  const invalid = await issuer.sign(ec, { ...good, aud: 'https://elsewhere.example.com/mcp' });
  return {
    authenticator: makeAuth(),
    valid: bearer(valid),
    invalid: bearer(invalid),
    secrets: [valid, invalid],
    scoped: { headers: bearer(valid), scopes: ['mcp:read', 'mcp:write'] },
  };
});

describe('createOAuthAuthenticator: tokens', () => {
  it('accepts a valid token and builds the identity from its claims', async () => {
    const identity = await makeAuth().authenticate({ headers: bearer(await issuer.sign(rsa, good)) });
    assert.equal(identity.clientId, 'client-1');
    assert.equal(identity.subject, 'user-1');
    assert.deepEqual(identity.scopes, ['mcp:read', 'mcp:write']);
    assert.equal(identity.claims?.iss, issuer.issuer);
  });

  it('reads scopes from an `scp` array, and accepts one of several audiences', async () => {
    const { scope: _scope, ...rest } = good;
    const token = await issuer.sign(ec, { ...rest, aud: ['other', RESOURCE], scp: ['mcp:read'] });
    const identity = await makeAuth({ audience: [RESOURCE, 'https://alias.example.com/mcp'] }).authenticate({
      headers: bearer(token),
    });
    assert.deepEqual(identity.scopes, ['mcp:read']);
  });

  it('challenges a request without a token with resource_metadata and the required scope', async () => {
    const err = await refusal(() => makeAuth().authenticate({ headers: {} }));
    assert.equal(err.challenge, `Bearer resource_metadata="${METADATA_URL}", scope="mcp:read"`);
  });

  const now = () => Math.floor(Date.now() / 1000);
  const rejected: [string, RegExp, () => Promise<string>][] = [
    [
      'a wrong audience',
      /audience/,
      () => issuer.sign(ec, { ...good, aud: 'https://mcp.example.com/other' }),
    ],
    ['no audience', /audience/, () => issuer.sign(ec, { ...good, aud: undefined })],
    [
      'an expired token (beyond the tolerance)',
      /expired/,
      () => issuer.sign(ec, { ...good, iat: now() - 600, exp: now() - 60 }),
    ],
    ['a token not valid yet', /not valid yet/, () => issuer.sign(ec, { ...good, nbf: now() + 120 })],
    ['a token without exp', /no expiry/, () => issuer.sign(ec, { ...good, exp: undefined })],
    [
      'another issuer in iss',
      /another issuer/,
      () => issuer.sign(ec, { ...good, iss: 'https://evil.example.com' }),
    ],
    [
      'a key that is not in the JWKS (unknown kid)',
      /unknown key/,
      async () => issuer.sign(await issuer.addKey('ES256', { publish: false }), good),
    ],
    [
      'a known kid with a foreign key (bad signature)',
      /signature/,
      async () => issuer.sign(await issuer.addKey('ES256', { publish: false }), good, { kid: ec.kid }),
    ],
    [
      'alg none',
      /algorithm/,
      async () =>
        `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...good, iss: issuer.issuer, exp: now() + 60 })}.`,
    ],
    [
      'alg none with a known kid',
      /algorithm/,
      async () =>
        `${b64({ alg: 'none', kid: rsa.kid })}.${b64({ ...good, iss: issuer.issuer, exp: now() + 60 })}.`,
    ],
    [
      'HS256 keyed with the public key (PEM)',
      /algorithm/,
      async () =>
        new SignJWT({ ...good, iss: issuer.issuer, exp: now() + 60 })
          .setProtectedHeader({ alg: 'HS256', kid: rsa.kid })
          .sign(new TextEncoder().encode(await exportSPKI(rsa.publicKey))),
    ],
    [
      'HS256 keyed with the public key (JWK JSON)',
      /algorithm/,
      async () =>
        new SignJWT({ ...good, iss: issuer.issuer, exp: now() + 60 })
          .setProtectedHeader({ alg: 'HS256', kid: rsa.kid })
          .sign(new TextEncoder().encode(JSON.stringify(rsa.publicJwk))),
    ],
    ['garbage', /malformed/, async () => 'not.a.jwt'],
  ];
  for (const [name, reason, mint] of rejected) {
    it(`refuses ${name}: 401 invalid_token with resource_metadata`, async () => {
      const token = await mint();
      const err = await refusal(() => makeAuth().authenticate({ headers: bearer(token) }));
      assert.equal(err.status, 401);
      assert.equal(err.code, ErrorCode.Unauthorized);
      assert.match(
        err.challenge,
        /^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="/,
      );
      assert.ok(err.challenge.endsWith(`resource_metadata="${METADATA_URL}"`));
      assert.match(/error_description="([^"]+)"/.exec(err.challenge)?.[1] ?? '', reason);
      assert.ok(!err.message.includes(token) && !err.challenge.includes(token));
    });
  }

  it('tolerates a little clock skew (expired 10 s ago, tolerance 30 s)', async () => {
    const token = await issuer.sign(ec, { ...good, exp: now() - 10 });
    assert.equal((await makeAuth().authenticate({ headers: bearer(token) })).subject, 'user-1');
    await refusal(() => makeAuth({ clockToleranceSec: 0 }).authenticate({ headers: bearer(token) }));
  });

  it('answers a token without a required scope with 403 insufficient_scope', async () => {
    const token = await issuer.sign(ec, { ...good, scope: 'mcp:write' });
    const err = await refusal(() => makeAuth().authenticate({ headers: bearer(token) }));
    assert.equal(err.status, 403);
    assert.equal(err.code, ErrorCode.Forbidden);
    assert.equal(
      err.challenge,
      `Bearer error="insufficient_scope", scope="mcp:read", resource_metadata="${METADATA_URL}"`,
    );
  });

  it('checks per-tool scopes: 403 naming every needed scope', async () => {
    const auth = makeAuth();
    const identity = await auth.authenticate({ headers: bearer(await issuer.sign(ec, good)) });
    assert.doesNotThrow(() => auth.checkScopes(identity, ['mcp:write']));
    const err = await refusal(async () => auth.checkScopes(identity, ['mcp:write', 'files:delete']));
    assert.equal(err.status, 403);
    assert.equal(
      err.challenge,
      `Bearer error="insufficient_scope", scope="mcp:write files:delete", resource_metadata="${METADATA_URL}"`,
    );
    assert.deepEqual(err.data, { requiredScopes: ['mcp:write', 'files:delete'] });
  });
});

describe('createOAuthAuthenticator: JWKS cache', () => {
  it('accepts a rotated-in key after the cooldown, and refetches at most once per cooldown', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const auth = makeAuth({ jwksCooldownMs: 30_000 });
    const start = jwksFetches();
    await auth.authenticate({ headers: bearer(await issuer.sign(ec, good)) });
    assert.equal(jwksFetches() - start, 1);

    // Rotation: the issuer publishes a new key. Within the cooldown the JWKS is not refetched.
    const rotated = await issuer.addKey('RS256');
    const rotatedToken = await issuer.sign(rotated, good);
    await refusal(() => auth.authenticate({ headers: bearer(rotatedToken) }));
    // A flood of tokens with made-up kids: no refetch at all within the cooldown.
    const stranger = await issuer.addKey('ES256', { publish: false });
    const flood = await Promise.all(
      Array.from({ length: 50 }, () => issuer.sign(stranger, good, { kid: randomUUID() })),
    );
    for (const token of flood) await refusal(() => auth.authenticate({ headers: bearer(token) }));
    assert.equal(jwksFetches() - start, 1);

    t.mock.timers.tick(31_000);
    const identity = await auth.authenticate({ headers: bearer(await issuer.sign(rotated, good)) });
    assert.equal(identity.subject, 'user-1');
    assert.equal(jwksFetches() - start, 2);
    // The next flood after the refetch is again held back by the cooldown.
    await Promise.all(
      flood.slice(0, 10).map((token) => refusal(() => auth.authenticate({ headers: bearer(token) }))),
    );
    assert.equal(jwksFetches() - start, 2);
  });

  it('ready() fetches the JWKS once; later probes use the cache', async () => {
    const auth = makeAuth();
    const start = jwksFetches();
    await auth.ready();
    await auth.ready();
    assert.equal(jwksFetches() - start, 1);
    await auth.authenticate({ headers: bearer(await issuer.sign(ec, good)) });
    assert.equal(jwksFetches() - start, 1);
  });
});

describe('createOAuthAuthenticator: discovery', () => {
  it('finds the JWKS through RFC 8414 metadata, else OpenID discovery', async () => {
    const other = await startTokenIssuer();
    try {
      const key = await other.addKey('EdDSA');
      for (const metadata of ['oauth', 'oidc'] as const) {
        other.metadata = metadata;
        const auth = makeAuth({ issuer: other.issuer });
        const identity = await auth.authenticate({ headers: bearer(await other.sign(key, good)) });
        assert.equal(identity.subject, 'user-1');
      }
      assert.equal(other.counts.get('/.well-known/oauth-authorization-server'), 2);
      assert.equal(other.counts.get('/.well-known/openid-configuration'), 1);
    } finally {
      await other.close();
    }
  });

  it('uses MCP_OAUTH_JWKS_URL without discovery', async () => {
    const other = await startTokenIssuer();
    try {
      other.metadata = 'none';
      const key = await other.addKey('PS256');
      const auth = makeAuth({ issuer: other.issuer, jwksUrl: other.jwksUrl });
      assert.equal(
        (await auth.authenticate({ headers: bearer(await other.sign(key, good)) })).clientId,
        'client-1',
      );
      assert.equal(other.counts.get('/.well-known/oauth-authorization-server'), undefined);
    } finally {
      await other.close();
    }
  });

  it('answers 503 (not 401) while the issuer cannot be discovered, and retries on the next request', async () => {
    const other = await startTokenIssuer();
    try {
      other.metadata = 'none';
      const key = await other.addKey('ES256');
      const auth = makeAuth({ issuer: other.issuer });
      const token = await other.sign(key, good);
      await assert.rejects(
        auth.authenticate({ headers: bearer(token) }),
        (err: unknown) =>
          err instanceof ProtocolError &&
          err.code === ErrorCode.ServiceUnavailable &&
          err.httpStatus === 503 &&
          !err.message.includes(token),
      );
      await assert.rejects(auth.ready());
      other.metadata = 'oauth';
      assert.equal((await auth.authenticate({ headers: bearer(token) })).subject, 'user-1');
    } finally {
      await other.close();
    }
  });

  it('refuses the token of a different issuer, signed with that issuer’s own keys', async () => {
    const other = await startTokenIssuer();
    try {
      const key = await other.addKey('ES256');
      const foreign = await other.sign(key, good);
      const refused = await refusal(() => makeAuth().authenticate({ headers: bearer(foreign) }));
      assert.match(refused.challenge, /error="invalid_token"/);
    } finally {
      await other.close();
    }
  });
});

describe('createOAuthAuthenticator: options', () => {
  const base = { issuer: 'https://as.example.com', audience: RESOURCE, resourceMetadataUrl: METADATA_URL };
  const invalid = (err: unknown) => err instanceof ToolkitError && err.code === InternalCode.InvalidSetting;

  it('refuses symmetric and unsigned algorithms at start-up', () => {
    for (const alg of ['HS256', 'none', 'HS512', 'RS1']) {
      assert.throws(() => createOAuthAuthenticator({ ...base, algorithms: ['RS256', alg] }), invalid);
    }
    assert.throws(() => createOAuthAuthenticator({ ...base, algorithms: [] }), invalid);
  });

  it('refuses a plain-http issuer or JWKS URL except on loopback', () => {
    assert.throws(() => createOAuthAuthenticator({ ...base, issuer: 'http://as.example.com' }), invalid);
    assert.throws(
      () => createOAuthAuthenticator({ ...base, jwksUrl: 'http://as.example.com/jwks' }),
      invalid,
    );
    assert.doesNotThrow(() => createOAuthAuthenticator({ ...base, issuer: 'http://127.0.0.1:9' }));
  });

  it('refuses an empty audience', () => {
    assert.throws(() => createOAuthAuthenticator({ ...base, audience: '' }), invalid);
    assert.throws(() => createOAuthAuthenticator({ ...base, audience: [] }), invalid);
  });
});

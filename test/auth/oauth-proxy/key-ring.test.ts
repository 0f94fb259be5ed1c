/**
 * The signing key ring under a fake clock: a new ring signs at once; the next key is published
 * a lead time before it signs; the previous key stays published until the tokens it signed have
 * expired, then goes; tokens signed by any published key verify, others do not; two replicas
 * rotating at once agree on one ring (compare-and-set); a replica with another secret cannot
 * read the keys and says which setting to fix.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { importJWK, jwtVerify, SignJWT } from 'jose';
import { createKeyRing, leadTime, SIGNING_ALG } from '../../../src/auth/oauth-proxy/key-ring.ts';
import { createSecrets } from '../../../src/auth/oauth-proxy/secrets.ts';
import { createMemoryOAuthStore } from '../../../src/auth/oauth-proxy/store.ts';

const DAY = 86_400_000;
const ROTATION = 30 * DAY;
const TOKEN_TTL = 600_000;

function clock(start = Date.UTC(2026, 0, 1)) {
  let t = start;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

async function signWith(ring: ReturnType<typeof createKeyRing>, kid?: string): Promise<string> {
  const view = await ring.current();
  const key = view.keys.find((k) => k.kid === (kid ?? view.signingKid));
  assert.ok(key);
  return new SignJWT({ sub: 'u' })
    .setProtectedHeader({ alg: SIGNING_ALG, kid: key.kid })
    .setExpirationTime('1h')
    .sign(await importJWK(key.jwk, SIGNING_ALG));
}

describe('signing key ring', () => {
  it('rotates on schedule: publish ahead, sign, keep until its tokens expire', async () => {
    const c = clock();
    const store = createMemoryOAuthStore({ now: c.now });
    const ring = createKeyRing({
      store,
      secrets: createSecrets('s'),
      rotationMs: ROTATION,
      tokenTtlMs: TOKEN_TTL,
      refreshMs: 0,
      now: c.now,
    });
    const first = await ring.current();
    assert.equal(first.keys.length, 1);
    const k1 = first.signingKid;
    assert.equal(first.keys[0]?.kid, k1, 'a new ring signs with its only key at once');

    // A lead time before the period ends, the next key is published but does not sign yet.
    c.advance(ROTATION - leadTime(ROTATION));
    const published = await ring.current();
    assert.equal(published.keys.length, 2);
    assert.equal(published.signingKid, k1);
    const k2 = published.keys[0]?.kid;
    assert.ok(k2 && k2 !== k1);

    // After the lead time it signs; the old key stays published for the tokens it signed.
    c.advance(leadTime(ROTATION));
    const rotated = await ring.current();
    assert.equal(rotated.signingKid, k2);
    assert.deepEqual(
      rotated.keys.map((k) => k.kid),
      [k2, k1],
    );
    const oldToken = await signWith(ring, k1);
    await jwtVerify(oldToken, ring.verificationKey, { currentDate: new Date(c.now()) });

    // Once those tokens have expired, the old key is gone and its tokens no longer verify.
    c.advance(TOKEN_TTL + 1);
    const pruned = await ring.current();
    assert.deepEqual(
      pruned.keys.map((k) => k.kid),
      [k2],
    );
    await assert.rejects(jwtVerify(oldToken, ring.verificationKey, { currentDate: new Date(c.now()) }), {
      code: 'ERR_JWKS_NO_MATCHING_KEY',
    });
    await jwtVerify(await signWith(ring), ring.verificationKey, { currentDate: new Date(c.now()) });
  });

  it('two replicas rotating at once agree on one ring; another secret cannot read it', async () => {
    const c = clock();
    const store = createMemoryOAuthStore({ now: c.now });
    const options = {
      store,
      secrets: createSecrets('shared'),
      rotationMs: ROTATION,
      tokenTtlMs: TOKEN_TTL,
      refreshMs: 0,
      now: c.now,
    };
    const [a, b] = await Promise.all([createKeyRing(options).current(), createKeyRing(options).current()]);
    assert.equal(a.version, b.version);
    assert.deepEqual(
      a.keys.map((k) => k.kid),
      b.keys.map((k) => k.kid),
    );
    c.advance(ROTATION);
    const [a2, b2] = await Promise.all([createKeyRing(options).current(), createKeyRing(options).current()]);
    assert.deepEqual(
      a2.keys.map((k) => k.kid),
      b2.keys.map((k) => k.kid),
    );
    assert.equal(a2.keys.length, 2, 'one new key, not one per replica');

    const stranger = createKeyRing({ ...options, secrets: createSecrets('other') });
    await assert.rejects(
      stranger.current(),
      /sealed with another secret: give every replica the same MCP_STATE_SECRET/,
    );
  });

  it('refuses a token signed by a key it never published', async () => {
    const store = createMemoryOAuthStore();
    const ring = createKeyRing({
      store,
      secrets: createSecrets('s'),
      rotationMs: ROTATION,
      tokenTtlMs: TOKEN_TTL,
    });
    const other = createKeyRing({
      store: createMemoryOAuthStore(),
      secrets: createSecrets('s'),
      rotationMs: ROTATION,
      tokenTtlMs: TOKEN_TTL,
    });
    await assert.rejects(jwtVerify(await signWith(other), ring.verificationKey), {
      code: 'ERR_JWKS_NO_MATCHING_KEY',
    });
  });
});

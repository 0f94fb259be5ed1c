import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createApiKeyAuthenticator } from '../../src/auth/api-key.ts';
import { AuthError } from '../../src/auth/errors.ts';
import { InternalCode, ToolkitError } from '../../src/base/errors.ts';
import { authenticatorContract, refusal } from './contract.ts';

const KEYS = [
  { id: 'ci', key: 'ci-0123456789abcdef' },
  { id: 'alice', key: 'alice:with-colon-0123456789' },
];
/** A key as MCP_API_KEYS_FILE gives it: with scopes and a name. */
const SCOPED = {
  id: 'reader',
  key: 'reader-0123456789abcdef',
  scopes: ['notes:read', 'mcp:read'],
  name: 'Reader',
};

authenticatorContract('api_key', async () => ({
  authenticator: createApiKeyAuthenticator([...KEYS, SCOPED]),
  valid: { authorization: `Bearer ${KEYS[0]!.key}` },
  invalid: { 'x-api-key': 'ci-0123456789abcdeX' },
  secrets: [...KEYS.map((k) => k.key), SCOPED.key, 'ci-0123456789abcdeX'],
  scoped: { headers: { 'x-api-key': SCOPED.key }, scopes: SCOPED.scopes },
}));

describe('createApiKeyAuthenticator', () => {
  const auth = createApiKeyAuthenticator(KEYS);

  it('accepts the key in X-API-Key', async () => {
    assert.deepEqual(await auth.authenticate({ headers: { 'x-api-key': KEYS[0]!.key } }), {
      clientId: 'ci',
      scopes: [],
    });
  });

  it('accepts a key again and again, and still refuses near misses of an accepted key', async () => {
    const fresh = createApiKeyAuthenticator(KEYS);
    const first = await fresh.authenticate({ headers: { 'x-api-key': KEYS[0]!.key } });
    for (let i = 0; i < 3; i++) {
      const again = await fresh.authenticate({ headers: { authorization: `Bearer ${KEYS[0]!.key}` } });
      assert.equal(again, first, 'the remembered identity');
    }
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.scopes), 'a shared identity cannot be changed');
    for (const near of [
      `${KEYS[0]!.key}x`,
      KEYS[0]!.key.slice(0, -1),
      KEYS[0]!.key.toUpperCase(),
      `x${KEYS[0]!.key}`,
    ]) {
      const err = await refusal(() => fresh.authenticate({ headers: { 'x-api-key': near } }));
      assert.equal(err.httpStatus, 401);
    }
    // Wrong keys leave nothing behind: the right ones keep working after many of them.
    for (let i = 0; i < 2000; i++) {
      await refusal(() => fresh.authenticate({ headers: { 'x-api-key': `guess-${i}` } }));
    }
    assert.equal((await fresh.authenticate({ headers: { 'x-api-key': KEYS[1]!.key } })).clientId, 'alice');
  });

  it('knows a key at once only once authenticate accepted it, and never a wrong one', async () => {
    const fresh = createApiKeyAuthenticator(KEYS);
    const headers = { 'x-api-key': KEYS[1]!.key };
    assert.equal(fresh.known?.({ headers }), undefined, 'not yet accepted');
    const identity = await fresh.authenticate({ headers });
    assert.equal(fresh.known?.({ headers }), identity);
    assert.equal(fresh.known?.({ headers: { authorization: `Bearer ${KEYS[1]!.key}` } }), identity);
    assert.equal(fresh.known?.({ headers: { 'x-api-key': `${KEYS[1]!.key}X` } }), undefined);
    assert.equal(fresh.known?.({ headers: {} }), undefined);
  });

  it('accepts the key as Authorization: Bearer (scheme case-insensitive), for every configured id', async () => {
    const identity = await auth.authenticate({ headers: { authorization: `bearer ${KEYS[1]!.key}` } });
    assert.equal(identity.clientId, 'alice');
  });

  it('refuses a missing key with a challenge naming the realm and no error code (RFC 6750 §3.1)', async () => {
    const err = await refusal(() => auth.authenticate({ headers: {} }));
    assert.equal(err.challenge, 'Bearer realm="mcp"');
    assert.match(err.message, /X-API-Key/);
  });

  it('refuses a wrong key with invalid_token and never echoes it', async () => {
    for (const wrong of ['nope', `${KEYS[0]!.key}x`, KEYS[0]!.key.slice(0, -1), '']) {
      const err = await refusal(() =>
        auth.authenticate({ headers: { authorization: `Bearer ${wrong}`, 'x-api-key': wrong } }),
      );
      assert.equal(err.status, 401);
      if (wrong !== '') {
        assert.equal(err.challenge, 'Bearer realm="mcp", error="invalid_token"');
        assert.ok(!err.message.includes(wrong));
      }
      for (const { key } of KEYS) assert.ok(!err.message.includes(key));
    }
  });

  it('treats another Authorization scheme as no key', async () => {
    const err = await refusal(() =>
      auth.authenticate({ headers: { authorization: `Basic ${KEYS[0]!.key}` } }),
    );
    assert.equal(err.challenge, 'Bearer realm="mcp"');
  });

  it('refuses a repeated X-API-Key header', async () => {
    const err = await refusal(() =>
      auth.authenticate({ headers: { 'x-api-key': [KEYS[0]!.key, KEYS[1]!.key] } }),
    );
    assert.equal(err.status, 401);
  });

  it('lets a key of MCP_API_KEYS (no scopes) through to every item', async () => {
    const identity = await auth.authenticate({ headers: { 'x-api-key': KEYS[0]!.key } });
    assert.doesNotThrow(() => auth.checkScopes(identity, ['files:write']));
    assert.equal(auth.hasScopes(identity, ['files:write', 'admin']), true);
    // Only the authenticator's own identity is unscoped: one built elsewhere is held to its list.
    assert.equal(auth.hasScopes({ clientId: 'ci', scopes: [] }, ['files:write']), false);
  });

  it('holds a scoped key to its scopes, names the client, and refuses the rest with 403', async () => {
    const scopedAuth = createApiKeyAuthenticator([...KEYS, SCOPED]);
    const identity = await scopedAuth.authenticate({ headers: { authorization: `Bearer ${SCOPED.key}` } });
    assert.deepEqual(identity, {
      clientId: 'reader',
      clientName: 'Reader',
      scopes: ['notes:read', 'mcp:read'],
    });
    assert.ok(Object.isFrozen(identity) && Object.isFrozen(identity.scopes));
    assert.equal(scopedAuth.hasScopes(identity, []), true);
    assert.equal(scopedAuth.hasScopes(identity, ['notes:read']), true);
    assert.equal(scopedAuth.hasScopes(identity, ['notes:write']), false);
    assert.throws(
      () => scopedAuth.checkScopes(identity, ['notes:write']),
      (err: unknown) =>
        err instanceof AuthError &&
        err.status === 403 &&
        err.challenge === 'Bearer error="insufficient_scope", scope="notes:write"' &&
        !err.message.includes(SCOPED.key),
    );
    // The remembered identity (second request) is the same scoped one.
    const again = await scopedAuth.authenticate({ headers: { 'x-api-key': SCOPED.key } });
    assert.equal(again, identity);
    assert.equal(scopedAuth.hasScopes(again, ['notes:write']), false);
  });

  it('a scoped key with no scopes opens only what needs none', async () => {
    const none = createApiKeyAuthenticator([{ id: 'bare', key: 'bare-0123456789abcdef', scopes: [] }]);
    const identity = await none.authenticate({ headers: { 'x-api-key': 'bare-0123456789abcdef' } });
    assert.equal(none.hasScopes(identity, []), true);
    assert.equal(none.hasScopes(identity, ['x']), false);
  });

  it('checks its keys at once, naming ids but never keys', () => {
    const cases = [
      [],
      [{ id: 'a', key: '' }],
      [{ id: '', key: 'secret-value-1234567' }],
      [
        { id: 'a', key: 'secret-value-1234567' },
        { id: 'a', key: 'other-value-12345678' },
      ],
      [
        { id: 'a', key: 'secret-value-1234567' },
        { id: 'b', key: 'secret-value-1234567' },
      ],
    ];
    for (const keys of cases) {
      assert.throws(
        () => createApiKeyAuthenticator(keys),
        (err: unknown) =>
          err instanceof ToolkitError &&
          err.code === InternalCode.InvalidSetting &&
          !err.message.includes('secret-value') &&
          !err.message.includes('other-value'),
      );
    }
  });
});

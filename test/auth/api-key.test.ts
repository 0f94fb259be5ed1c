import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createApiKeyAuthenticator } from '../../src/auth/api-key.ts';
import { InternalCode, ToolkitError } from '../../src/base/errors.ts';
import { authenticatorContract, refusal } from './contract.ts';

const KEYS = [
  { id: 'ci', key: 'ci-0123456789abcdef' },
  { id: 'alice', key: 'alice:with-colon-0123456789' },
];

authenticatorContract('api_key', async () => ({
  authenticator: createApiKeyAuthenticator(KEYS),
  valid: { authorization: `Bearer ${KEYS[0]!.key}` },
  invalid: { 'x-api-key': 'ci-0123456789abcdeX' },
  secrets: [...KEYS.map((k) => k.key), 'ci-0123456789abcdeX'],
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

  it('lets every tool through: API keys are unscoped', () => {
    assert.doesNotThrow(() => auth.checkScopes({ clientId: 'ci', scopes: [] }, ['files:write']));
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

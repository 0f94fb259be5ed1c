/**
 * The contract every Authenticator honours (STYLE #7: swappable parts share one suite).
 * Each implementation's test file calls `authenticatorContract` with a way to build one and
 * the credentials that should and should not pass.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuthError } from '../../src/auth/errors.ts';
import type { Authenticator, AuthRequest } from '../../src/auth/types.ts';
import { ErrorCode } from '../../src/base/errors.ts';

export interface ContractSetup {
  authenticator: Authenticator;
  /** Headers that authenticate. */
  valid: AuthRequest['headers'];
  /** Headers with a credential that must be refused. */
  invalid: AuthRequest['headers'];
  /** Strings that must never appear in an error (keys, tokens). */
  secrets: string[];
  /** Headers whose credential grants exactly `scopes` (at least one), and nothing more. */
  scoped: { headers: AuthRequest['headers']; scopes: readonly string[] };
}

/** Runs `fn` and returns the AuthError it throws (fails when it throws anything else or nothing). */
export async function refusal(fn: () => Promise<unknown>): Promise<AuthError> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof AuthError, `expected an AuthError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the request to be refused');
}

export function authenticatorContract(name: string, setup: () => Promise<ContractSetup>): void {
  describe(`Authenticator contract: ${name}`, () => {
    it('refuses a request without credentials: 401, a Bearer challenge without error code', async () => {
      const { authenticator } = await setup();
      const err = await refusal(() => authenticator.authenticate({ headers: {} }));
      assert.equal(err.status, 401);
      assert.equal(err.httpStatus, 401);
      assert.equal(err.code, ErrorCode.Unauthorized);
      assert.match(err.challenge, /^Bearer\b/);
      assert.doesNotMatch(err.challenge, /error=/);
      assert.deepEqual(Object.keys(err.toJSON()).sort(), ['code', 'message']);
    });

    it('refuses a bad credential: 401 invalid_token, and no secret in the error', async () => {
      const { authenticator, invalid, secrets } = await setup();
      const err = await refusal(() => authenticator.authenticate({ headers: invalid }));
      assert.equal(err.status, 401);
      assert.equal(err.code, ErrorCode.Unauthorized);
      assert.match(err.challenge, /error="invalid_token"/);
      const visible = `${err.message} ${err.challenge} ${JSON.stringify(err.toJSON())}`;
      for (const secret of secrets) assert.ok(!visible.includes(secret), 'a secret leaked into the error');
    });

    it('refuses a repeated Authorization header (ambiguous credentials)', async () => {
      const { authenticator, valid } = await setup();
      const authorization = valid.authorization;
      if (typeof authorization !== 'string') return;
      const err = await refusal(() =>
        authenticator.authenticate({ headers: { authorization: [authorization, authorization] } }),
      );
      assert.equal(err.status, 401);
    });

    it('accepts a good credential and names the client', async () => {
      const { authenticator, valid } = await setup();
      const identity = await authenticator.authenticate({ headers: valid });
      assert.equal(typeof identity.clientId, 'string');
      assert.notEqual(identity.clientId, '');
      assert.ok(Array.isArray(identity.scopes));
    });

    it('hasScopes answers as checkScopes decides, without throwing', async () => {
      const { authenticator, valid } = await setup();
      const identity = await authenticator.authenticate({ headers: valid });
      const asks = [
        [],
        identity.scopes.slice(0, 1),
        [...identity.scopes],
        ['no-such-scope-granted'],
        [...identity.scopes, 'no-such-scope-granted'],
      ];
      for (const needed of asks) {
        let allowed = true;
        try {
          authenticator.checkScopes(identity, needed);
        } catch (err) {
          assert.ok(err instanceof AuthError);
          allowed = false;
        }
        assert.equal(authenticator.hasScopes(identity, needed), allowed, `needed: ${needed.join(' ')}`);
      }
    });

    it('a scoped credential passes for its scopes and gets 403 insufficient_scope naming the others', async () => {
      const { authenticator, scoped } = await setup();
      assert.ok(scoped.scopes.length > 0);
      const identity = await authenticator.authenticate({ headers: scoped.headers });
      assert.deepEqual([...identity.scopes].sort(), [...scoped.scopes].sort());
      for (const granted of [scoped.scopes, scoped.scopes.slice(0, 1)]) {
        assert.doesNotThrow(() => authenticator.checkScopes(identity, granted));
        assert.equal(authenticator.hasScopes(identity, granted), true);
      }
      const needed = [scoped.scopes[0] ?? '', 'contract:other'];
      assert.equal(authenticator.hasScopes(identity, needed), false);
      let err: unknown;
      try {
        authenticator.checkScopes(identity, needed);
      } catch (caught) {
        err = caught;
      }
      assert.ok(err instanceof AuthError, 'a missing scope is refused');
      assert.equal(err.status, 403);
      assert.equal(err.httpStatus, 403);
      assert.equal(err.code, ErrorCode.Forbidden);
      assert.match(err.challenge, /^Bearer\b.*error="insufficient_scope"/);
      // RFC 6750 §3.1: the challenge names the scopes the item needs, so a client can step up.
      assert.match(err.challenge, new RegExp(`scope="${needed.join(' ')}"`));
      // A copy of the identity is not the credential: it gets only what it lists.
      const copy = { ...identity, scopes: [...identity.scopes] };
      assert.equal(authenticator.hasScopes(copy, needed), false);
    });

    it('is ready', async () => {
      const { authenticator } = await setup();
      await authenticator.ready();
    });
  });
}

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { authWarnings, createAuthenticator } from '../../src/auth/create.ts';
import { type AuthSettings, authSettingsShape } from '../../src/auth/settings.ts';
import { InternalCode, ToolkitError } from '../../src/base/errors.ts';

const schema = z.object(authSettingsShape);

function parse(env: Record<string, string>): AuthSettings {
  return schema.parse(env);
}

function issues(env: Record<string, string>): { path: string; message: string }[] {
  const result = schema.safeParse(env);
  assert.equal(result.success, false);
  return (result.error?.issues ?? []).map((i) => ({ path: String(i.path[0]), message: i.message }));
}

describe('auth settings', () => {
  it('defaults to no auth and every asymmetric algorithm', () => {
    const settings = parse({});
    assert.equal(settings.MCP_AUTH, 'none');
    assert.deepEqual(settings.MCP_API_KEYS, []);
    assert.deepEqual(settings.MCP_OAUTH_SCOPES, []);
    assert.equal(settings.MCP_OAUTH_ISSUER, undefined);
    assert.equal(settings.MCP_OAUTH_CLOCK_TOLERANCE_SEC, 30);
    assert.ok(
      settings.MCP_OAUTH_ALGORITHMS.includes('RS256') && settings.MCP_OAUTH_ALGORITHMS.includes('EdDSA'),
    );
    assert.ok(!settings.MCP_OAUTH_ALGORITHMS.some((alg) => alg.startsWith('HS') || alg === 'none'));
  });

  it('parses MCP_API_KEYS as id:key pairs (a key may contain ":")', () => {
    const settings = parse({ MCP_AUTH: 'api_key', MCP_API_KEYS: ' ci:abc:def , alice:0123456789abcdef ,' });
    assert.deepEqual(settings.MCP_API_KEYS, [
      { id: 'ci', key: 'abc:def' },
      { id: 'alice', key: '0123456789abcdef' },
    ]);
  });

  it('refuses malformed, duplicate and shared keys without printing a key', () => {
    for (const value of [
      'nokey',
      'a:',
      ':secret-AAAA',
      'a:secret-AAAA,a:secret-BBBB',
      'a:secret-AAAA,b:secret-AAAA',
    ]) {
      const found = issues({ MCP_API_KEYS: value });
      assert.ok(found.length > 0);
      for (const { path, message } of found) {
        assert.equal(path, 'MCP_API_KEYS');
        assert.doesNotMatch(message, /secret-/);
      }
    }
  });

  it('refuses HMAC and "none" in MCP_OAUTH_ALGORITHMS', () => {
    for (const value of ['HS256', 'RS256,none', 'ES256,HS512', 'RS1']) {
      assert.equal(issues({ MCP_OAUTH_ALGORITHMS: value })[0]?.path, 'MCP_OAUTH_ALGORITHMS');
    }
    assert.deepEqual(parse({ MCP_OAUTH_ALGORITHMS: 'ES256, EdDSA' }).MCP_OAUTH_ALGORITHMS, [
      'ES256',
      'EdDSA',
    ]);
  });

  it('refuses an issuer or JWKS URL that is not an http(s) URL', () => {
    assert.equal(issues({ MCP_OAUTH_ISSUER: 'as.example.com' })[0]?.path, 'MCP_OAUTH_ISSUER');
    assert.equal(issues({ MCP_OAUTH_JWKS_URL: 'ftp://x/jwks' })[0]?.path, 'MCP_OAUTH_JWKS_URL');
    assert.equal(
      parse({ MCP_OAUTH_ISSUER: 'https://as.example.com' }).MCP_OAUTH_ISSUER,
      'https://as.example.com',
    );
  });

  it('parses the scope list and the audience', () => {
    const settings = parse({ MCP_OAUTH_SCOPES: 'mcp:read, mcp:write', MCP_OAUTH_AUDIENCE: 'api://mcp' });
    assert.deepEqual(settings.MCP_OAUTH_SCOPES, ['mcp:read', 'mcp:write']);
    assert.equal(settings.MCP_OAUTH_AUDIENCE, 'api://mcp');
  });

  it('describes every setting (the configuration docs are generated from the descriptions)', () => {
    for (const [name, field] of Object.entries(authSettingsShape)) {
      assert.ok(name.startsWith('MCP_'));
      assert.ok((field.description ?? '').length > 10, `${name} has no description`);
    }
  });
});

describe('createAuthenticator', () => {
  const urls = {
    audience: 'https://mcp.example.com/mcp',
    resourceMetadataUrl: 'https://mcp.example.com/.well-known/x',
  };
  const invalidSetting = (name: string) => (err: unknown) =>
    err instanceof ToolkitError && err.code === InternalCode.InvalidSetting && err.message.includes(name);

  it('returns no authenticator for MCP_AUTH=none', () => {
    assert.equal(createAuthenticator(parse({}), urls), undefined);
  });

  it('builds the api_key authenticator, and names MCP_API_KEYS when it is missing', async () => {
    const auth = createAuthenticator(
      parse({ MCP_AUTH: 'api_key', MCP_API_KEYS: 'ci:0123456789abcdef' }),
      urls,
    );
    assert.equal(auth?.kind, 'api_key');
    assert.equal(
      (await auth?.authenticate({ headers: { 'x-api-key': '0123456789abcdef' } }))?.clientId,
      'ci',
    );
    assert.throws(
      () => createAuthenticator(parse({ MCP_AUTH: 'api_key' }), urls),
      invalidSetting('MCP_API_KEYS'),
    );
  });

  it('builds the oauth authenticator, and names MCP_OAUTH_ISSUER when it is missing', () => {
    const auth = createAuthenticator(
      parse({ MCP_AUTH: 'oauth', MCP_OAUTH_ISSUER: 'https://as.example.com' }),
      urls,
    );
    assert.equal(auth?.kind, 'oauth');
    assert.throws(
      () => createAuthenticator(parse({ MCP_AUTH: 'oauth' }), urls),
      invalidSetting('MCP_OAUTH_ISSUER'),
    );
  });

  it('warns about short keys and ignored settings, never printing a key', () => {
    const warnings = authWarnings(
      parse({ MCP_AUTH: 'api_key', MCP_API_KEYS: 'ci:short-key,ok:0123456789abcdef' }),
    );
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /"ci"/);
    assert.doesNotMatch(warnings.join('\n'), /short-key|0123456789abcdef/);
    assert.equal(authWarnings(parse({ MCP_OAUTH_ISSUER: 'https://as.example.com' })).length, 1);
    assert.deepEqual(authWarnings(parse({})), []);
  });
});

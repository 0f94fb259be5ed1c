/**
 * The oauth-proxy settings: the scope map's syntax, the rules between the upstream settings
 * (checked at start-up, with the variable's name), and the scope map's matching of claims.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { grantableScopes } from '../../../src/auth/oauth-proxy/scope-map.ts';
import { checkOAuthProxySettings } from '../../../src/auth/oauth-proxy/settings-check.ts';
import { InternalCode } from '../../../src/base/errors.ts';
import { parseSettings } from '../../../src/config/settings.ts';
import { createServer } from '../../../src/index.ts';

const PUBLIC = 'https://mcp.example.com';
const oidc = {
  MCP_AUTH: 'oauth-proxy',
  MCP_OAUTH_UPSTREAM_ISSUER: 'https://login.example.com',
  MCP_OAUTH_UPSTREAM_CLIENT_ID: 'c',
};

function check(env: Record<string, string>, publicUrl = PUBLIC): void {
  checkOAuthProxySettings(parseSettings(env), publicUrl);
}

const invalid = (pattern: RegExp) => (err: Error & { code?: string }) =>
  err.code === InternalCode.InvalidSetting && pattern.test(err.message);

describe('oauth-proxy settings', () => {
  it('parses the scope map and refuses a malformed one, naming the variable', () => {
    const parsed = parseSettings({ MCP_OAUTH_SCOPE_MAP: '{"*":["a"],"groups=admins":["b","c"]}' });
    assert.deepEqual(parsed.MCP_OAUTH_SCOPE_MAP, [
      { claim: undefined, value: undefined, scopes: ['a'] },
      { claim: 'groups', value: 'admins', scopes: ['b', 'c'] },
    ]);
    for (const bad of ['not json', '[]', '{"admins":["b"]}', '{"*":"a"}', '{"*":["has space"]}']) {
      assert.throws(() => parseSettings({ MCP_OAUTH_SCOPE_MAP: bad }), invalid(/^MCP_OAUTH_SCOPE_MAP=/), bad);
    }
    assert.deepEqual(
      parseSettings({ MCP_OAUTH_UPSTREAM_SCOPES: 'openid, email profile' }).MCP_OAUTH_UPSTREAM_SCOPES,
      ['openid', 'email', 'profile'],
    );
  });

  it('needs one upstream, given one way, with a client id and https URLs', () => {
    check(oidc);
    check({
      MCP_AUTH: 'oauth-proxy',
      MCP_OAUTH_UPSTREAM_AUTHORIZATION_URL: 'https://github.com/login/oauth/authorize',
      MCP_OAUTH_UPSTREAM_TOKEN_URL: 'https://github.com/login/oauth/access_token',
      MCP_OAUTH_UPSTREAM_USERINFO_URL: 'https://api.github.com/user',
      MCP_OAUTH_UPSTREAM_CLIENT_ID: 'c',
    });
    assert.throws(
      () => check({ MCP_AUTH: 'oauth-proxy', MCP_OAUTH_UPSTREAM_CLIENT_ID: 'c' }),
      invalid(/needs the upstream identity provider: MCP_OAUTH_UPSTREAM_ISSUER/),
    );
    assert.throws(
      () => check({ ...oidc, MCP_OAUTH_UPSTREAM_TOKEN_URL: 'https://x.example.com/token' }),
      invalid(/not both: MCP_OAUTH_UPSTREAM_TOKEN_URL set beside the issuer/),
    );
    assert.throws(
      () =>
        check({
          MCP_AUTH: 'oauth-proxy',
          MCP_OAUTH_UPSTREAM_AUTHORIZATION_URL: 'https://x.example.com/a',
          MCP_OAUTH_UPSTREAM_CLIENT_ID: 'c',
        }),
      invalid(/needs all three URLs: MCP_OAUTH_UPSTREAM_TOKEN_URL, MCP_OAUTH_UPSTREAM_USERINFO_URL missing/),
    );
    assert.throws(
      () => check({ ...oidc, MCP_OAUTH_UPSTREAM_CLIENT_ID: '' }),
      invalid(/needs MCP_OAUTH_UPSTREAM_CLIENT_ID/),
    );
    assert.throws(
      () => check({ ...oidc, MCP_OAUTH_UPSTREAM_ISSUER: 'http://login.example.com' }),
      invalid(/MCP_OAUTH_UPSTREAM_ISSUER must be an https URL/),
    );
    assert.throws(() => check(oidc, 'http://mcp.example.com'), invalid(/MCP_PUBLIC_URL to be https/));
    check(oidc, 'http://127.0.0.1:8000');
  });

  it('stops start-up with the message (exit code 2 from the CLI)', async () => {
    await assert.rejects(
      createServer({
        settings: { MCP_AUTH: 'oauth-proxy', MCP_PUBLIC_URL: PUBLIC, MCP_LOG_LEVEL: 'silent' },
        plugins: [],
        transport: 'none',
      }),
      invalid(/needs the upstream identity provider/),
    );
    await assert.rejects(
      createServer({
        settings: { ...oidc, MCP_HTTP_PORT: 0, MCP_LOG_LEVEL: 'silent' },
        plugins: [],
        transport: 'http',
      }),
      invalid(/MCP_AUTH=oauth-proxy with MCP_HTTP_PORT=0 needs MCP_PUBLIC_URL/),
    );
  });

  it('maps claims to scopes: everyone, a value, an array holding it, a dotted path', () => {
    const rules = parseSettings({
      MCP_OAUTH_SCOPE_MAP: JSON.stringify({
        '*': ['read'],
        'groups=admins': ['admin'],
        'realm_access.roles=writer': ['write'],
      }),
    }).MCP_OAUTH_SCOPE_MAP;
    assert.deepEqual(grantableScopes(rules, { groups: ['staff'] }, []), ['read']);
    assert.deepEqual(grantableScopes(rules, { groups: ['staff', 'admins'] }, []).sort(), ['admin', 'read']);
    assert.deepEqual(grantableScopes(rules, { groups: 'admins' }, []).sort(), ['admin', 'read']);
    assert.deepEqual(grantableScopes(rules, { realm_access: { roles: ['writer'] } }, []).sort(), [
      'read',
      'write',
    ]);
    assert.deepEqual(
      grantableScopes(undefined, {}, ['a', 'b', 'a']),
      ['a', 'b'],
      'no map: every scope the server knows',
    );
    assert.deepEqual(
      grantableScopes([{ claim: 'id', value: '42', scopes: ['x'] }], { id: 42 }, []),
      ['x'],
      'numbers compare as text',
    );
  });
});

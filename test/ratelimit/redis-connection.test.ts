/**
 * What MCP_REDIS_PASSWORD and MCP_REDIS_TLS_CA become (ioredis options), the rules between
 * them and MCP_REDIS_URL, and how a connection error is said: a refused password or
 * certificate names the setting to fix; anything else is passed on as it came. The same
 * against a real TLS redis-server with a password: test/scale/redis-tls.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { InternalCode, ToolkitError } from '../../src/base/errors.ts';
import { parseSettings, requireReplicaSettings } from '../../src/config/settings.ts';
import { explainRedisError, redisConnectionOptions } from '../../src/redis/connection.ts';
import { makeTestCertificates } from '../helpers/redis-server.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'redis-connection-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const refused = (pattern: RegExp) => (err: unknown) =>
  err instanceof ToolkitError && err.code === InternalCode.InvalidSetting && pattern.test(err.message);

const SECRET = { MCP_STATE_SECRET: 's3cret' };

describe('requireReplicaSettings: the Redis companions', () => {
  test('they need MCP_REDIS_URL', () => {
    for (const name of ['MCP_REDIS_PASSWORD', 'MCP_REDIS_TLS_CA']) {
      assert.throws(
        () => requireReplicaSettings(parseSettings({ ...SECRET, [name]: 'x' })),
        refused(new RegExp(`^${name} is set but MCP_REDIS_URL is not`)),
      );
    }
  });

  test('MCP_REDIS_TLS_CA needs a rediss:// URL', () => {
    assert.throws(
      () =>
        requireReplicaSettings(
          parseSettings({ ...SECRET, MCP_REDIS_URL: 'redis://r:6379', MCP_REDIS_TLS_CA: '/ca.pem' }),
        ),
      refused(/MCP_REDIS_TLS_CA is set but MCP_REDIS_URL is redis:\/\/, which does not use TLS/),
    );
    requireReplicaSettings(
      parseSettings({ ...SECRET, MCP_REDIS_URL: 'rediss://r:6380', MCP_REDIS_TLS_CA: '/ca.pem' }),
    );
  });

  test('a password is given once: in the URL or in MCP_REDIS_PASSWORD', () => {
    assert.throws(
      () =>
        requireReplicaSettings(
          parseSettings({ ...SECRET, MCP_REDIS_URL: 'rediss://:a@r:6380', MCP_REDIS_PASSWORD: 'b' }),
        ),
      refused(/MCP_REDIS_PASSWORD is set and MCP_REDIS_URL carries a password too/),
    );
    // An ACL user in the URL with the password apart is fine.
    requireReplicaSettings(
      parseSettings({ ...SECRET, MCP_REDIS_URL: 'rediss://mcp@r:6380', MCP_REDIS_PASSWORD: 'b' }),
    );
  });
});

describe('requireReplicaSettings: the companions with a Sentinel set or a Cluster', () => {
  test('MCP_REDIS_TLS_CA needs rediss+; a password is given once', () => {
    for (const url of ['redis+sentinel://s1:26379,s2:26379/m', 'redis+cluster://n1:7000,n2:7001']) {
      assert.throws(
        () =>
          requireReplicaSettings(
            parseSettings({ ...SECRET, MCP_REDIS_URL: url, MCP_REDIS_TLS_CA: '/ca.pem' }),
          ),
        refused(
          /MCP_REDIS_TLS_CA is set but MCP_REDIS_URL is redis\+(sentinel|cluster):\/\/, which does not use TLS/,
        ),
        url,
      );
      const tls = url.replace('redis+', 'rediss+');
      requireReplicaSettings(parseSettings({ ...SECRET, MCP_REDIS_URL: tls, MCP_REDIS_TLS_CA: '/ca.pem' }));
      requireReplicaSettings(parseSettings({ ...SECRET, MCP_REDIS_URL: tls, MCP_REDIS_PASSWORD: 'b' }));
      assert.throws(
        () =>
          requireReplicaSettings(
            parseSettings({
              ...SECRET,
              MCP_REDIS_URL: tls.replace('://', '://:a@'),
              MCP_REDIS_PASSWORD: 'b',
            }),
          ),
        refused(/MCP_REDIS_PASSWORD is set and MCP_REDIS_URL carries a password too/),
        url,
      );
    }
  });
});

describe('redisConnectionOptions', () => {
  test('nothing set: no options (the URL says everything)', () => {
    assert.deepEqual(redisConnectionOptions({}), {});
  });

  test('the password, and the CA file read once as PEM text', () => {
    const { caFile } = makeTestCertificates();
    const options = redisConnectionOptions({ MCP_REDIS_PASSWORD: 'pw', MCP_REDIS_TLS_CA: caFile });
    assert.deepEqual(options, { password: 'pw', tls: { ca: readFileSync(caFile, 'utf8') } });
  });

  test('a missing file, a file without a certificate, a certificate that does not parse: refused, named', () => {
    assert.throws(
      () => redisConnectionOptions({ MCP_REDIS_TLS_CA: path.join(dir, 'absent.pem') }),
      refused(/^MCP_REDIS_TLS_CA=".*absent\.pem" cannot be read \(ENOENT\)/),
    );
    const key = makeTestCertificates().keyFile;
    assert.throws(
      () => redisConnectionOptions({ MCP_REDIS_TLS_CA: key }),
      refused(/^MCP_REDIS_TLS_CA=".*" holds no PEM certificate/),
    );
    const broken = path.join(dir, 'broken.pem');
    const { caFile } = makeTestCertificates();
    writeFileSync(
      broken,
      `${readFileSync(caFile, 'utf8')}\n-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n`,
    );
    assert.throws(
      () => redisConnectionOptions({ MCP_REDIS_TLS_CA: broken }),
      refused(/^MCP_REDIS_TLS_CA=".*broken\.pem": certificate 2 of 2 does not parse/),
    );
  });
});

describe('explainRedisError', () => {
  const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

  test('WRONGPASS and NOAUTH are the password settings', () => {
    const wrong = explainRedisError(
      new Error('WRONGPASS invalid username-password pair or user is disabled.'),
    );
    assert.equal(wrong.kind, 'password');
    assert.match(
      wrong.message,
      /^Redis refused the password \(WRONGPASS .*\): check MCP_REDIS_PASSWORD, or the password in MCP_REDIS_URL/,
    );
    const none = explainRedisError(new Error('NOAUTH Authentication required.'));
    assert.equal(none.kind, 'password');
    assert.match(none.message, /set MCP_REDIS_PASSWORD, or put it in MCP_REDIS_URL/);
  });

  test('a certificate Node cannot verify is MCP_REDIS_TLS_CA; a wrong host name and an expired certificate are said as such', () => {
    for (const code of [
      'SELF_SIGNED_CERT_IN_CHAIN',
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'DEPTH_ZERO_SELF_SIGNED_CERT',
    ]) {
      const failure = explainRedisError(withCode('certificate trouble', code));
      assert.equal(failure.kind, 'tls');
      assert.match(failure.message, new RegExp(`\\(${code}: certificate trouble\\): set MCP_REDIS_TLS_CA`));
    }
    const host = explainRedisError(
      withCode("Hostname/IP does not match certificate's altnames", 'ERR_TLS_CERT_ALTNAME_INVALID'),
    );
    assert.equal(host.kind, 'tls');
    assert.match(host.message, /does not name the host in MCP_REDIS_URL/);
    assert.equal(explainRedisError(withCode('certificate has expired', 'CERT_HAS_EXPIRED')).kind, 'tls');
  });

  test('anything else is an outage, passed on with its code', () => {
    assert.deepEqual(explainRedisError(withCode('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED')), {
      kind: 'other',
      message: 'connect ECONNREFUSED 127.0.0.1:1',
    });
    assert.deepEqual(explainRedisError(withCode('Connection is closed.', 'ECLOSED')), {
      kind: 'other',
      message: 'ECLOSED: Connection is closed.',
    });
    assert.equal(explainRedisError('a string').message, 'a string');
    // A key that merely contains the word is not an auth error.
    assert.equal(explainRedisError(new Error('ERR unknown command NOAUTHX')).kind, 'other');
  });
});

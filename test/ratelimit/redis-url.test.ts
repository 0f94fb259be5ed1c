/**
 * What MCP_REDIS_URL may name (src/redis/url.ts): one server, a Sentinel set or a
 * Cluster, each read exactly, and every malformed URL refused at start-up with a message that
 * says what is wrong and never shows a password.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseSettings } from '../../src/config/settings.ts';
import { parseRedisUrl } from '../../src/redis/url.ts';

const SECRET = 'a'.repeat(64);

describe('MCP_REDIS_URL forms', () => {
  test('one server: the URL as Redis documents it', () => {
    assert.deepEqual(parseRedisUrl('rediss://:pw@redis.internal:6380/2'), {
      kind: 'server',
      url: 'rediss://:pw@redis.internal:6380/2',
    });
  });

  test('a Sentinel set: its sentinels (26379 by default), the master name, a database, credentials', () => {
    assert.deepEqual(
      parseRedisUrl(
        'rediss+sentinel://app:p%40ss@10.0.0.1,10.0.0.2:26380,[::1]:5000/mymaster/3?sentinelPassword=s3',
      ),
      {
        kind: 'sentinel',
        sentinels: [
          { host: '10.0.0.1', port: 26379 },
          { host: '10.0.0.2', port: 26380 },
          { host: '::1', port: 5000 },
        ],
        masterName: 'mymaster',
        db: 3,
        username: 'app',
        password: 'p@ss',
        sentinelUsername: undefined,
        sentinelPassword: 's3',
        tls: true,
      },
    );
  });

  test('a Cluster: its seed nodes (6379 by default) and credentials', () => {
    assert.deepEqual(parseRedisUrl('redis+cluster://:pw@node-a,node-b:7001'), {
      kind: 'cluster',
      nodes: [
        { host: 'node-a', port: 6379 },
        { host: 'node-b', port: 7001 },
      ],
      username: undefined,
      password: 'pw',
      tls: false,
    });
  });

  test('each malformed URL stops start-up naming the mistake, the password masked', () => {
    const refused: [string, RegExp][] = [
      ['http://redis:6379', /expected redis:\/\/host:port, rediss:\/\/\.\.\., redis\+sentinel:\/\//],
      ['redis+sentinel://:secretpw@a:26379', /names the master after the nodes/],
      ['redis+sentinel://a/m/x', /takes only a database number/],
      ['redis+sentinel://a/m?sentinelPassword=secretpw&db=2', /unknown query parameter "db"/],
      ['redis+cluster://a:1,b:notaport', /cluster node "b:notaport" is not host:port/],
      ['redis+cluster://a:99999', /cluster node "a:99999" is not host:port/],
      ['redis+cluster://a,,b', /cluster node "" is not host:port/],
      ['redis+cluster://a/0', /has no path/],
      ['redis+cluster://:%zz@a', /password is not percent-encoded correctly/],
      ['redis+mesh://a', /expected redis:\/\//],
    ];
    for (const [url, message] of refused) {
      assert.throws(
        () => parseSettings({ MCP_REDIS_URL: url, MCP_STATE_SECRET: SECRET }),
        (err: Error) => {
          assert.match(err.message, message, url);
          assert.doesNotMatch(err.message, /secretpw/, 'no password in the message');
          return true;
        },
      );
    }
  });

  test('a very long list of nodes is read in linear time', () => {
    const nodes = Array.from({ length: 5000 }, (_, i) => `n${i}:${(i % 60000) + 1}`).join(',');
    const target = parseRedisUrl(`redis+cluster://${nodes}`);
    assert.equal(target.kind === 'cluster' && target.nodes.length, 5000);
  });
});

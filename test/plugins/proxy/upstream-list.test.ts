/**
 * MCP_PROXY_UPSTREAMS and MCP_PROXY_UPSTREAM_SECRETS attacked as the core parses them: each bad
 * entry an error naming its index, name and field; duplicate names and prefixes, a missing
 * prefix among several, both kinds of upstream in one entry; huge, deep, invalid and
 * non-array lists, inline and from a file; secrets for no upstream, of the wrong kind, and
 * never echoed. Then the transforms' own rules (hidden arguments out of the schema, -32602
 * when sent) and the reversible URI labels.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { type ProxySettings, proxyPlugin } from '../../../plugins/proxy/index.ts';
import { upstreamSpecs } from '../../../plugins/proxy/specs.ts';
import { hideArguments, labelledUris, withHidden } from '../../../plugins/proxy/transform.ts';
import { MAX_CONFIG_BYTES, MAX_UPSTREAMS } from '../../../plugins/proxy/upstream-list.ts';
import { type PluginDefinition, ProtocolError } from '../../../src/index.ts';
import { parsePluginSettings } from '../../../src/plugin/loader.ts';
import { scratch } from './helpers.ts';

const parse = (env: Record<string, string>) =>
  parsePluginSettings(
    proxyPlugin as PluginDefinition<Record<string, unknown>>,
    env,
  ) as unknown as ProxySettings;
const list = (upstreams: unknown, extra: Record<string, string> = {}) =>
  parse({ MCP_PROXY_UPSTREAMS: JSON.stringify(upstreams), ...extra });

const a = { name: 'alpha', command: 'node', args: ['a.js'], prefix: 'a_' };
const b = { name: 'beta', url: 'https://b.example/mcp', prefix: 'b_' };

describe('MCP_PROXY_UPSTREAMS', () => {
  test('a good list: defaults filled in, each upstream as the settings of a single one', () => {
    const s = list([a, { ...b, include: ['x_*'], isolation: 'per-session', optional: true }], {
      MCP_PROXY_UPSTREAM_SECRETS: JSON.stringify({
        beta: { bearerToken: 't0ken' },
        alpha: { env: { K: 'v' } },
      }),
      MCP_PROXY_WAIT_MS: '1234',
    });
    const [one, two] = upstreamSpecs(s);
    assert.equal(one?.name, 'alpha');
    assert.deepEqual(one?.settings.secretEnv, { K: 'v' });
    assert.equal(one?.settings.command, 'node');
    assert.equal(one?.settings.waitMs, 1234, 'the shared limits apply to each');
    assert.equal(two?.settings.bearerToken, 't0ken');
    assert.equal(two?.settings.isolation, 'per-session');
    assert.equal(two?.optional, true);
    assert.deepEqual(two?.settings.include, ['x_*']);
    assert.equal(upstreamSpecs(s), upstreamSpecs(s), 'worked out once per settings object');
  });

  test('one entry needs no prefix; its URIs are still labelled', () => {
    const [only] = upstreamSpecs(list([{ name: 'solo', command: 'node' }]));
    assert.equal(only?.uris.ours('file:///x'), 'solo+file:///x');
  });

  for (const [what, upstreams, message] of [
    [
      'no prefix among several',
      [a, { ...b, prefix: undefined }],
      /upstreams\[1\] \("beta"\)\.prefix: required when there is more than one upstream/,
    ],
    [
      'the same prefix twice',
      [a, { ...b, prefix: 'a_' }],
      /upstreams\[1\] \("beta"\)\.prefix: upstreams\[0\] has the same prefix "a_"/,
    ],
    [
      'the same name twice',
      [a, { ...b, name: 'alpha' }],
      /upstreams\[1\] \("alpha"\)\.name: upstreams\[0\] has the same name/,
    ],
    [
      'a command and a URL',
      [{ ...a, url: 'https://a.example/mcp' }],
      /upstreams\[0\] \("alpha"\)\.command: give exactly one of command/,
    ],
    ['neither', [{ name: 'x', prefix: 'x_' }], /upstreams\[0\] \("x"\)\.command: give exactly one/],
    ['a bad name', [{ ...a, name: 'Has Spaces' }], /upstreams\[0\] \("Has Spaces"\)\.name: expected 1 to 32/],
    ['a bad prefix', [{ ...a, prefix: 'a b' }], /upstreams\[0\] \("alpha"\)\.prefix: expected 1 to 63/],
    [
      'a URL that is not http(s)',
      [{ ...b, url: 'file:///etc/passwd' }],
      /upstreams\[0\] \("beta"\)\.url: expected an http\(s\) URL/,
    ],
    [
      'a URL with no host',
      [{ ...b, url: 'http:///mcp' }],
      /upstreams\[0\] \("beta"\)\.url: the URL has no host/,
    ],
    [
      'a URL with credentials',
      [{ ...b, url: 'https://me:hunter2@b.example/mcp' }],
      /upstreams\[0\] \("beta"\)\.url: the URL carries credentials \(user:password@\)/,
    ],
    ['an unknown field', [{ ...a, comand: 'x' }], /upstreams\[0\] \("alpha"\): Unrecognized key: "comand"/],
    ['env of numbers', [{ ...a, env: { A: 1 } }], /upstreams\[0\] \("alpha"\)\.env\.A/],
    [
      'a bad rename',
      [{ ...a, tools: { t: { rename: 'has space' } } }],
      /upstreams\[0\] \("alpha"\)\.tools\.t\.rename/,
    ],
    [
      'an unknown transform field',
      [{ ...a, tools: { t: { hidden: {} } } }],
      /upstreams\[0\] \("alpha"\)\.tools\.t: Unrecognized key: "hidden"/,
    ],
    ['an empty list', [], /the list of upstreams is empty/],
    ['an object', { upstreams: [a] }, /expected a JSON array of upstreams/],
    [
      'too many',
      Array.from({ length: MAX_UPSTREAMS + 1 }, (_, i) => ({ ...a, name: `u${i}`, prefix: `u${i}_` })),
      /65 upstreams, more than 64/,
    ],
    ['a string entry', ['node server.js'], /upstreams\[0\]: Invalid input: expected object/],
  ] as const) {
    test(`${what}: an error naming where`, () => {
      assert.throws(
        () => list(upstreams),
        (err: Error) => /MCP_PROXY_UPSTREAMS=/.test(err.message) && message.test(err.message),
      );
    });
  }

  test('invalid JSON, huge and deeply nested lists, inline or in a file', () => {
    assert.throws(() => parse({ MCP_PROXY_UPSTREAMS: '[{"name":' }), /is not valid JSON/);
    const huge = JSON.stringify([{ ...a, args: ['x'.repeat(MAX_CONFIG_BYTES)] }]);
    assert.throws(
      () => parse({ MCP_PROXY_UPSTREAMS: huge }),
      (err: Error) => /larger than 1048576 bytes/.test(err.message) && err.message.length < 2000,
      'refused, and the error does not echo it whole',
    );
    const deep = `[${'['.repeat(5000)}${']'.repeat(5000)}]`;
    assert.throws(
      () => parse({ MCP_PROXY_UPSTREAMS: deep }),
      /upstreams\[0\]: Invalid input: expected object/,
    );
    const tmp = scratch();
    try {
      const file = path.join(tmp.dir, 'upstreams.json');
      writeFileSync(file, JSON.stringify([a, b]));
      assert.deepEqual(
        upstreamSpecs(parse({ MCP_PROXY_UPSTREAMS: file })).map((s) => s.name),
        ['alpha', 'beta'],
      );
      writeFileSync(file, huge);
      assert.throws(() => parse({ MCP_PROXY_UPSTREAMS: file }), /the file .* is larger than 1048576 bytes/);
      assert.throws(
        () => parse({ MCP_PROXY_UPSTREAMS: path.join(tmp.dir, 'missing.json') }),
        /neither JSON \(starting with \[ or \{\) nor a readable file: ENOENT/,
      );
    } finally {
      tmp.remove();
    }
  });

  test('the list replaces the single upstream settings', () => {
    assert.throws(
      () => list([a], { MCP_PROXY_COMMAND: 'node' }),
      /leave MCP_PROXY_COMMAND and MCP_PROXY_URL unset/,
    );
    assert.throws(() => list([a], { MCP_PROXY_URL: 'https://x.example/mcp' }), /leave MCP_PROXY_COMMAND/);
    for (const [name, value] of [
      ['MCP_PROXY_PREFIX', 'p_'],
      ['MCP_PROXY_ARGS', 'x'],
      ['MCP_PROXY_INCLUDE', 'a'],
      ['MCP_PROXY_SECRET_ENV', '{"A":"b"}'],
      ['MCP_PROXY_FORWARD_UPSTREAM_TOKEN', 'true'],
    ] as const) {
      assert.throws(
        () => list([a], { [name]: value }),
        (err: Error) => err.message.includes(`${name}=`) && /is for a single upstream/.test(err.message),
        name,
      );
    }
  });

  test('secrets: only for listed upstreams, of their kind, never echoed', () => {
    const secrets = (value: unknown) => ({ MCP_PROXY_UPSTREAM_SECRETS: JSON.stringify(value) });
    assert.throws(
      () => list([a, b], secrets({ gamma: { apiKey: 'k-secret-1' } })),
      /names "gamma", which no upstream/,
    );
    assert.throws(
      () => list([a, b], secrets({ alpha: { bearerToken: 'k-secret-2' } })),
      /sent to a url upstream only/,
    );
    assert.throws(
      () => list([a, b], secrets({ beta: { env: { A: 'k-secret-3' } } })),
      /"beta" is a url upstream, with no environment/,
    );
    assert.throws(() => parse(secrets({ alpha: { apiKey: 'k-secret-4' } })), /and that is unset/);
    const raw = (v: string) => ({ MCP_PROXY_UPSTREAM_SECRETS: v });
    for (const bad of [
      secrets({ beta: { bearerToken: 42 } }),
      secrets({ beta: { token: 'k-secret-5' } }),
      raw('k-secret-6'),
      raw('{"beta": k-secret-7}'),
    ]) {
      assert.throws(
        () => list([a, b], bad),
        (err: Error) => /MCP_PROXY_UPSTREAM_SECRETS/.test(err.message) && !/k-secret/.test(err.message),
      );
    }
  });
});

describe('transforms and URI labels', () => {
  test('a hidden argument leaves the schema and its required list', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    };
    assert.deepEqual(hideArguments(schema, { b: 10 }), {
      type: 'object',
      properties: { a: { type: 'number' } },
      required: ['a'],
    });
    assert.equal(hideArguments(schema, undefined), schema);
  });

  test('sent with its fixed value; a caller sending it gets -32602', () => {
    assert.deepEqual(withHidden('t', { a: 1 }, { b: 10 }), { a: 1, b: 10 });
    assert.throws(
      () => withHidden('t', { a: 1, b: 2 }, { b: 10 }),
      (err: unknown) => err instanceof ProtocolError && err.code === -32602 && /"b"/.test(err.message),
    );
    // A caller cannot reach a hidden argument through the prototype either.
    assert.deepEqual(withHidden('t', JSON.parse('{"__proto__":{"b":1}}'), { b: 10 }).b, 10);
  });

  test('URI labels map back, and only their own URIs', () => {
    const u = labelledUris('memory');
    assert.equal(u.ours('memory://knowledge-graph'), 'memory+memory://knowledge-graph');
    assert.equal(u.theirs('memory+memory://knowledge-graph'), 'memory://knowledge-graph');
    assert.equal(u.theirs('memoryx+a://b'), undefined);
    assert.equal(u.theirs('a://b'), undefined);
  });
});

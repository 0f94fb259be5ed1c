import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { redactArgs, redactSecrets } from '../../src/telemetry/redaction.ts';

describe('redactSecrets', () => {
  test('returns the same object when there is nothing to redact', () => {
    const entry = { method: 'tools/call', nested: { a: [1, { b: 2 }] } };
    assert.equal(redactSecrets(entry), entry);
  });

  test('matches whole field names, case-insensitively', () => {
    const out = redactSecrets({
      Authorization: 'x',
      'Proxy-Authorization': 'x',
      'set-cookie': ['a'],
      API_KEY: 'x',
      id_token: 'x',
      privateKey: 'x',
      tokenCount: 3,
      keyId: 'k',
      authorizationServer: 'https://as.example',
    });
    assert.deepEqual(out, {
      Authorization: '[redacted]',
      'Proxy-Authorization': '[redacted]',
      'set-cookie': '[redacted]',
      API_KEY: '[redacted]',
      id_token: '[redacted]',
      privateKey: '[redacted]',
      tokenCount: 3,
      keyId: 'k',
      authorizationServer: 'https://as.example',
    });
  });

  test('keeps a JSON __proto__ key a plain key', () => {
    const entry = JSON.parse('{"__proto__": {"polluted": true}, "token": "t"}') as Record<string, unknown>;
    const out = redactSecrets(entry) as Record<string, unknown>;
    assert.equal(out.token, '[redacted]');
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, { polluted: true });
  });
});

describe('redactArgs', () => {
  test('redacts values under keys matching pass|secret|token|key|auth', () => {
    assert.deepEqual(
      redactArgs({ passphrase: 'p', mySecret: 's', csrfToken: 't', apikey: 'k', oauth: 'o', query: 'q' }),
      {
        passphrase: '[redacted]',
        mySecret: '[redacted]',
        csrfToken: '[redacted]',
        apikey: '[redacted]',
        oauth: '[redacted]',
        query: 'q',
      },
    );
  });

  test('bounds what one line may carry', () => {
    const out = redactArgs({
      text: 'x'.repeat(5000),
      items: Array.from({ length: 60 }, (_, i) => i),
      deep: { a: { b: { c: { d: { e: { f: 'too deep' } } } } } },
    });
    assert.deepEqual(out, {
      text: `${'x'.repeat(1024)}…(5000 chars)`,
      items: [...Array.from({ length: 50 }, (_, i) => i), '…(10 more)'],
      deep: { a: { b: { c: { d: { e: '[depth limit]' } } } } },
    });
  });

  test('passes primitives through', () => {
    assert.equal(redactArgs(3), 3);
    assert.equal(redactArgs(null), null);
    assert.deepEqual(redactArgs(['a', { token: 't' }]), ['a', { token: '[redacted]' }]);
  });
});

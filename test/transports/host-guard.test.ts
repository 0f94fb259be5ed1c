/**
 * The Host check (src/transports/edge/guards.ts), which remembers the Host values it allowed:
 * what it remembers never lets another value through, and a client trying port after port
 * neither grows it without bound nor changes an answer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostGuard } from '../../src/transports/edge/guards.ts';

const options = { checkHost: true, allowedOrigins: [], anyOrigin: false };

test('an allowed Host stays allowed, and a refused one refused, however often each is asked', () => {
  const guard = hostGuard({ ...options, allowedHosts: ['api.example.com', 'admin.example.com:8443'] });
  for (let round = 0; round < 3; round++) {
    assert.equal(guard.hostAllowed('api.example.com'), true);
    assert.equal(guard.hostAllowed(' API.example.com:443 '), true);
    assert.equal(guard.hostAllowed('admin.example.com:8443'), true);
    assert.equal(guard.hostAllowed('admin.example.com:8444'), false);
    assert.equal(guard.hostAllowed('evil.example.com'), false);
    assert.equal(guard.hostAllowed(undefined), false);
    assert.equal(guard.hostAllowed(''), false);
  }
});

test('past the values it remembers, the check still answers from the allowed list', () => {
  const guard = hostGuard({ ...options, allowedHosts: [] });
  for (let port = 1; port <= 500; port++) assert.equal(guard.hostAllowed(`127.0.0.1:${port}`), true);
  assert.equal(guard.hostAllowed('localhost:9999'), true);
  assert.equal(guard.hostAllowed('[::1]:9999'), true);
  assert.equal(guard.hostAllowed('attacker.test:1'), false);
  assert.equal(guard.hostAllowed('127.0.0.2:1'), false);
});

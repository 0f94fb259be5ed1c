/**
 * MCP_PROXY_MAX_SESSIONS is a cap on processes, under any interleaving: in the real CLI over
 * HTTP, with per-session isolation, a cap of 3 and an upstream that takes a random time to
 * start (fixtures/hostile-server.ts), several workers race sessions that are created, call a
 * tool, and are then deleted while their upstream is still starting, left to expire
 * (MCP_SESSION_IDLE_MS), or deleted while their upstream restarts after being killed. The
 * upstream processes are counted all along: never more than the cap plus the shared one, and
 * once every session has ended, only the shared one is left.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type SpawnedHttpServer, spawnHttpServer } from '../../helpers/spawn-server.ts';
import { until } from '../../helpers/until.ts';
import { HOSTILE, upstreamPids } from './helpers.ts';

const CAP = 3;
const WORKERS = 6;
const ROUNDS = 5;
const INFO = { name: 'cap-race', version: '1.0.0' };
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function openSession(url: string): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: INFO },
    }),
  });
  await res.text();
  const sid = res.headers.get('mcp-session-id');
  assert.ok(sid, `no session id (HTTP ${res.status})`);
  await post(url, sid, { jsonrpc: '2.0', method: 'notifications/initialized' });
  return sid;
}

async function post(url: string, sid: string, message: unknown): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify(message),
  });
  return res.text();
}

const callEcho = (url: string, sid: string) =>
  post(url, sid, {
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: 'hi' } },
  }).catch(() => '');

async function remove(url: string, sid: string): Promise<void> {
  const res = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': sid } });
  await res.text();
}

/** The per-session upstreams' pids (the shared one runs with `--name=shared`). */
function perSession(server: SpawnedHttpServer): number[] {
  return upstreamPids(server, HOSTILE).filter((pid) => {
    try {
      return !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--name=shared');
    } catch {
      return false;
    }
  });
}

describe('the per-session process cap under a race', () => {
  let server: SpawnedHttpServer;
  before(async () => {
    server = await spawnHttpServer({
      MCP_PLUGINS: 'proxy',
      MCP_PROXY_COMMAND: process.execPath,
      MCP_PROXY_ARGS: JSON.stringify([HOSTILE, '--name={session}']),
      MCP_PROXY_ENV: JSON.stringify({ HOSTILE_TOOLS: 'echo', HOSTILE_START_DELAY_MS: '600' }),
      MCP_PROXY_ISOLATION: 'per-session',
      MCP_PROXY_MAX_SESSIONS: String(CAP),
      MCP_PROXY_RESTART_DELAY_MS: '10',
      MCP_SESSION_IDLE_MS: '1000',
    });
  });
  after(async () => {
    await server?.stop();
  });

  test('create, delete mid-start, expiry and restart never run more than the cap', {
    timeout: 240_000,
  }, async () => {
    let most = 0;
    let samples = 0;
    const sampler = setInterval(() => {
      samples++;
      most = Math.max(most, upstreamPids(server, HOSTILE).length);
    }, 5);
    const worker = async (w: number) => {
      for (let round = 0; round < ROUNDS; round++) {
        const sid = await openSession(server.url);
        const call = callEcho(server.url, sid);
        const how = (w + round) % 3;
        if (how === 0) {
          // Deleted while its upstream is (most likely) still starting: the call has just been sent.
          await remove(server.url, sid);
        } else if (how === 1) {
          // Left to expire once idle.
          await call;
        } else {
          // Its upstream killed, then the session deleted while it restarts.
          await call;
          const victim = perSession(server)[0];
          if (victim !== undefined) process.kill(victim, 'SIGKILL');
          await remove(server.url, sid);
        }
        await call;
      }
    };
    try {
      await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
      // Every session has ended (deleted, or expired after MCP_SESSION_IDLE_MS): only the shared one is left.
      await until(() => perSession(server).length === 0 && upstreamPids(server, HOSTILE).length === 1, {
        timeoutMs: 60_000,
        intervalMs: 50,
        message: `per-session upstreams still running: ${perSession(server).join(', ')}`,
      });
    } finally {
      clearInterval(sampler);
    }
    assert.ok(samples > 10, 'the process count was sampled');
    assert.ok(most <= CAP + 1, `at most ${CAP} per-session upstreams and the shared one; seen ${most}`);
    assert.ok(most >= 2, `per-session upstreams ran (seen ${most})`);
  });
});

/**
 * The wire profiles (src/protocol/wires/): one classifier decides the profile of a message, and
 * the request's record carries the profile the transport chose, so nothing decides it again.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildMcpServer } from '../../src/assembly/server.ts';
import { SUPPORTED_VERSIONS } from '../../src/base/versions.ts';
import { parseSettings } from '../../src/config/settings.ts';
import type { RequestObserver } from '../../src/protocol/observer.ts';
import type { RequestRecord } from '../../src/protocol/request-record.ts';
import { newSession } from '../../src/protocol/session/store.ts';
import { classifyWire, PROFILES, profileOf, REV2025, REV2026 } from '../../src/protocol/wires/classify.ts';
import { createLogger } from '../../src/telemetry/logger.ts';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const H2026 = { 'mcp-protocol-version': '2026-07-28' };
const H2025 = { 'mcp-protocol-version': '2025-11-25' };

describe('classifyWire', () => {
  const cases: [string, unknown, Record<string, string> | undefined, typeof REV2025][] = [
    [
      'a request with the envelope',
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } },
      undefined,
      REV2026,
    ],
    [
      'a request with the envelope, any header',
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } },
      H2025,
      REV2026,
    ],
    [
      'a request naming 2026 in the header only',
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      H2026,
      REV2026,
    ],
    [
      'a header past 2026 (the SDK compares strings)',
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { 'mcp-protocol-version': 'v999.0.0' },
      REV2026,
    ],
    ['a request with a 2025 header', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, H2025, REV2025],
    ['a request with neither', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, undefined, REV2025],
    [
      'initialize with a 2026 envelope',
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { _meta: ENVELOPE } },
      undefined,
      REV2026,
    ],
    [
      'initialize with a pre-2026 envelope',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } },
      },
      undefined,
      REV2025,
    ],
    [
      'initialize with a malformed envelope version',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': 7 } },
      },
      H2026,
      REV2025,
    ],
    [
      'a notification with the envelope',
      { jsonrpc: '2.0', method: 'notifications/x', params: { _meta: ENVELOPE } },
      undefined,
      REV2026,
    ],
    ['a response, by the header', { jsonrpc: '2.0', id: 1, result: {} }, H2026, REV2026],
    ['a response without a header', { jsonrpc: '2.0', id: 1, result: {} }, undefined, REV2025],
    ['a batch, by the header', [{ jsonrpc: '2.0', id: 1, method: 'ping' }], H2026, REV2026],
    ['not JSON-RPC at all', 'text', undefined, REV2025],
  ];
  for (const [name, message, headers, expected] of cases) {
    test(name, () => {
      assert.equal(classifyWire(message, headers), expected);
    });
  }
});

/** A server that keeps the record of every request it observes. */
async function recordingServer() {
  const records: RequestRecord[] = [];
  const observe: RequestObserver = {
    start(record) {
      records.push(record);
      return { run: (fn) => fn(), end: () => {} };
    },
  };
  const server = await buildMcpServer({
    settings: parseSettings({ MCP_PLUGINS: '' }),
    logger: createLogger({ level: 'silent', format: 'json' }),
    observe,
    plugins: [],
  });
  return { server, records };
}

describe('the profile on the record', () => {
  test('the record carries the profile of its message, and the wire named after it', async () => {
    const { server, records } = await recordingServer();
    const session = newSession();
    await server.dispatcher.handle(
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } },
      { transport: 'stdio', session },
    );
    await server.dispatcher.handle(
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {} },
      },
      { transport: 'stdio', session },
    );
    assert.deepEqual(
      records.map((r) => [r.profile, r.wire]),
      [
        [REV2026, '2026'],
        [REV2025, '2025'],
      ],
    );
  });

  test('the profile a transport chose is the one used: the dispatcher does not classify again', async () => {
    const { server, records } = await recordingServer();
    // A request with the 2026 envelope that its transport classified as 2025 is handled on the
    // 2025 wire (here: refused, as no session was initialised), not re-read as 2026.
    const reply = await server.dispatcher.handle(
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } },
      { transport: 'http', headers: H2026, profile: REV2025 },
    );
    assert.equal(records[0]?.profile, REV2025);
    const body = reply.body as { error?: { code: number; message: string } };
    assert.match(body.error?.message ?? '', /not initialized/);
  });

  test("a batch's members are on the wire that admitted the batch; the 2026 wire admits none", async () => {
    const { server, records } = await recordingServer();
    const session = newSession();
    session.initialized = true;
    session.protocolVersion = '2025-03-26';
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: ENVELOPE } },
    ];
    // Unclassified (stdio): the batch is on the 2025 wire, and so is each member.
    const served = await server.dispatcher.handle(batch, { transport: 'stdio', session });
    assert.equal((served.body as unknown[]).length, 2);
    assert.deepEqual(
      records.map((r) => r.profile),
      [REV2025, REV2025],
    );
    // Classified as 2026 by its transport (a 2026 MCP-Protocol-Version header): -32600, HTTP 400.
    const refused = await server.dispatcher.handle(batch, {
      transport: 'http',
      headers: H2026,
      session,
      profile: REV2026,
    });
    assert.equal(refused.status, 400);
    assert.equal((refused.body as { error?: { code: number } }).error?.code, -32600);
    assert.equal(records.length, 2);
  });
});

/** A 2025-wire session initialised at `version`. */
function sessionAt(version: string) {
  const session = newSession();
  session.initialized = true;
  session.protocolVersion = version;
  return session;
}

describe('the rules that differ between revisions, asked of the profiles', () => {
  const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
  const byRevision = (rule: (version: string) => boolean) => REVISIONS.map(rule);

  test('batches: 2025-03-26 and earlier, never before initialize, never on 2026', () => {
    assert.deepEqual(byRevision(REV2025.allowsBatches), [true, true, false, false]);
    assert.equal(REV2025.allowsBatches(undefined), false);
    assert.deepEqual(byRevision(REV2026.allowsBatches), [false, false, false, false]);
    assert.equal(REV2026.allowsBatches('2026-07-28'), false);
  });

  test('invalid tool arguments: -32602 through 2025-06-18, an isError result from 2025-11-25 (SEP-1303)', () => {
    assert.deepEqual(byRevision(REV2025.invalidArgumentsAsResult), [false, false, false, true]);
    assert.equal(REV2026.invalidArgumentsAsResult('2026-07-28'), true);
  });

  test('core tasks declared by initialize from 2025-11-25 (SEP-1686); the 2026 extension is not core', () => {
    assert.deepEqual(byRevision(REV2025.tasks.declaredAt), [false, false, false, true]);
    assert.equal(REV2026.tasks.declaredAt('2026-07-28'), false);
  });

  test('reply streams resumable from 2025-11-25 (SEP-1699); never on 2026', () => {
    assert.deepEqual(
      REVISIONS.map((v) => REV2025.resumable(sessionAt(v))),
      [false, false, false, true],
    );
    assert.equal(REV2026.resumable(sessionAt('2025-11-25')), false);
  });

  test('negotiation echoes a revision of the wire, else offers its latest', () => {
    for (const v of REVISIONS) assert.equal(REV2025.negotiate(v), v);
    for (const other of ['2026-07-28', '1999-01-01', '', 7, undefined]) {
      assert.equal(REV2025.negotiate(other), '2025-11-25', String(other));
    }
    assert.equal(REV2026.negotiate('2025-06-18'), '2026-07-28');
  });

  test("a request without a kept session is served at its header's version, 2025-03-26 when it names none", () => {
    assert.equal(REV2025.headerVersion(H2025), '2025-11-25');
    assert.equal(REV2025.headerVersion({ 'mcp-protocol-version': ' 2025-06-18 ' }), '2025-06-18');
    assert.equal(REV2025.headerVersion(undefined), '2025-03-26');
    assert.equal(REV2025.headerVersion({}), '2025-03-26');
    assert.equal(REV2025.headerVersion({ 'mcp-protocol-version': '1999-01-01' }), '2025-11-25');
    assert.equal(REV2026.headerVersion(H2026), '2026-07-28');
  });
});

describe('one profile per revision (docs/internals/architecture.md, "Adding a revision")', () => {
  test('every revision we speak is spoken by exactly one profile of PROFILES, in the same order', () => {
    assert.deepEqual(
      PROFILES.flatMap((p) => p.versions),
      [...SUPPORTED_VERSIONS],
    );
  });

  test('the classifier and profileOf give each revision its own profile', () => {
    for (const profile of PROFILES) {
      for (const version of profile.versions) {
        const request = profile.sessions
          ? { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version } }
          : {
              jsonrpc: '2.0',
              id: 1,
              method: 'tools/list',
              params: { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': version } },
            };
        assert.equal(classifyWire(request, { 'mcp-protocol-version': version }), profile, version);
        assert.equal(profileOf(profile.wire, version), profile, version);
      }
      assert.equal(
        profileOf(profile.wire),
        PROFILES.find((p) => p.wire === profile.wire),
      );
    }
  });
});

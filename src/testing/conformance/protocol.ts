/**
 * The protocol checks of the conformance report: the 2025 lifecycle (initialize fields,
 * version negotiation, notifications, requests before initialize), JSON-RPC error codes, the
 * 2026 stateless wire, and the envelope of every response seen during the run.
 * Rules: MCP 2025-11-25 "Lifecycle" and "Transports", JSON-RPC 2.0 §4-5, docs/internals/conformance-fixture.md §3.
 */
import { ErrorCode } from '../../base/errors.ts';
import { isObject, type JsonObject } from '../../base/jsonrpc.ts';
import { META } from '../../base/meta-keys.ts';
import { VERSION_2026, VERSIONS_2025 } from '../../base/versions.ts';
import { type Answer, describeAnswer, type ProbeClient } from '../client/probe-client.ts';
import {
  ENVELOPE_WORDS,
  judgeInvalidRequest,
  judgeMethodNotFound,
  UNKNOWN_METHOD,
} from './protocol-rules.ts';
import type { Recorder } from './recorder.ts';
import { stdoutJunk } from './tool-list-rules.ts';

/** A version no server speaks, to see that the server offers one of its own instead. */
export const UNSUPPORTED_VERSION = '1999-01-01';

function expectCode(answer: Answer, code: number, alternative?: string): string[] {
  if (answer.kind === 'error' && answer.error.code === code) return [];
  return [`expected error ${code}${alternative ? ` ${alternative}` : ''}, got ${describeAnswer(answer)}`];
}

/**
 * Transports §Session Management: "Servers that require a session ID SHOULD respond to requests
 * without an Mcp-Session-Id header (other than initialization) with HTTP 400 Bad Request". The
 * rule is for servers that *require* one, and issuing a session id does not say that: whether a
 * server requires one is read from what it does with a request that comes without. Served: it
 * does not require one, and the rule does not apply (not run). Refused with 400: the pass.
 * Refused any other way (another status, an error on a 200): it requires one, and answers
 * otherwise than the SHOULD says. Over stdio there is no such rule for the server (Lifecycle puts
 * it on the client: it "SHOULD NOT send" requests before initialize), and an HTTP server that
 * issues no session has nothing to require.
 */
export async function checkPreInitializeHttp(
  c: ProbeClient,
  rec: Recorder,
  sessionIssued: boolean,
): Promise<void> {
  if (!sessionIssued) {
    rec.notRun('lifecycle.pre-initialize', 'the server issues no Mcp-Session-Id: nothing to require');
    return;
  }
  const answer = await c.raw(
    { jsonrpc: '2.0', id: c.nextId(), method: 'tools/list', params: {} },
    { wire: '2025', omitSession: true },
  );
  if (answer.kind === 'result') {
    rec.notRun(
      'lifecycle.pre-initialize',
      'the server serves a request without Mcp-Session-Id: it issues sessions but does not require one, so the rule for servers that require one does not apply',
    );
    return;
  }
  if (answer.kind !== 'error' && answer.kind !== 'http') {
    rec.notRun('lifecycle.pre-initialize', `tools/list without a session got ${describeAnswer(answer)}`);
    return;
  }
  if (answer.status === 400) rec.pass('lifecycle.pre-initialize');
  else
    rec.fail(
      'lifecycle.pre-initialize',
      `tools/list without a session got ${describeAnswer(answer)}: the server requires a session, and a request without one SHOULD get HTTP 400 Bad Request`,
    );
}

/**
 * initialize with an unsupported version (the server must offer one it supports), falling
 * back to a normal initialize when it refuses. Returns whether a session is up.
 */
export async function checkInitialize(c: ProbeClient, rec: Recorder): Promise<boolean> {
  let answer = await c.initialize(UNSUPPORTED_VERSION);
  if (answer.kind === 'result') {
    const offered = answer.result.protocolVersion;
    if (typeof offered === 'string' && offered !== UNSUPPORTED_VERSION) {
      rec.pass('initialize.version-negotiation', `offered ${offered}`);
    } else {
      rec.fail(
        'initialize.version-negotiation',
        `asked for ${UNSUPPORTED_VERSION}, got protocolVersion ${JSON.stringify(offered)}`,
      );
    }
  } else {
    rec.fail(
      'initialize.version-negotiation',
      `asked for ${UNSUPPORTED_VERSION}, got ${describeAnswer(answer)} (the server should offer a version it supports)`,
    );
    answer = await c.initialize();
  }
  if (answer.kind !== 'result') {
    rec.fail('initialize.result', `initialize got ${describeAnswer(answer)}`);
    return false;
  }
  const r = answer.result;
  const version = r.protocolVersion;
  rec.expect(
    'initialize.protocol-version',
    typeof version === 'string' && version !== '' ? [] : [`protocolVersion is ${JSON.stringify(version)}`],
    typeof version === 'string' && !(VERSIONS_2025 as readonly string[]).includes(version)
      ? `${version} is not a revision this client knows`
      : undefined,
  );
  const info = r.serverInfo;
  rec.expect(
    'initialize.server-info',
    isObject(info) && typeof info.name === 'string' && info.name !== ''
      ? []
      : [`serverInfo is ${JSON.stringify(info) ?? 'missing'}`],
  );
  rec.expect(
    'initialize.capabilities',
    isObject(r.capabilities) ? [] : [`capabilities is ${JSON.stringify(r.capabilities) ?? 'missing'}`],
  );
  return true;
}

/** JSON-RPC 2.0 §4.1: a notification is never answered, whatever its method. */
export async function checkNotifications(c: ProbeClient, rec: Recorder): Promise<void> {
  if (c.link.failure !== undefined) {
    rec.notRun('notifications.unanswered', 'the connection is gone');
    return;
  }
  const problems: string[] = [];
  const sent: [string, JsonObject | undefined][] = [
    ['notifications/initialized', undefined],
    ['notifications/cancelled', { requestId: 'mcp-toolkit-check-no-such-request', reason: 'probe' }],
  ];
  // Over HTTP an unknown notification may be refused with a 4xx (Transports §Sending Messages).
  if (c.link.transport !== 'http') sent.push(['notifications/mcp-toolkit/probe', {}]);
  for (const [method, params] of sent) {
    const { status, responses } = await c.notify(method, params, { wire: '2025' });
    if (responses.length > 0)
      problems.push(`${method} was answered: ${JSON.stringify(responses[0]).slice(0, 120)}`);
    if (status !== undefined && status !== 202 && (status < 200 || status >= 300)) {
      problems.push(`${method} got HTTP ${status} (expected 202 Accepted)`);
    }
  }
  rec.expect('notifications.unanswered', problems);
}

/** -32601 for an unknown method (a string id, so its echo is checked too) and -32600 for `params: null`. */
export async function checkErrorCodes(c: ProbeClient, rec: Recorder): Promise<void> {
  const unknown = await c.request(UNKNOWN_METHOD, {}, { id: 'check-unknown-method', wire: '2025' });
  rec.judge('jsonrpc.method-not-found', judgeMethodNotFound(unknown));
  const invalid = await c.rawInvalid(
    { jsonrpc: '2.0', id: c.nextId(), method: 'tools/call', params: null },
    { wire: '2025' },
  );
  rec.judge('jsonrpc.invalid-request', judgeInvalidRequest(invalid, '2025', c.link.transport));
}

/** The 2026 stateless wire (docs/internals/conformance-fixture.md §3): discover, resultType, the envelope rule. */
export async function check2026(c: ProbeClient, rec: Recorder, discovered: Answer): Promise<void> {
  const d = discovered.kind === 'result' ? discovered.result : undefined;
  const versions = d?.supportedVersions;
  rec.expect(
    '2026.discover',
    d === undefined
      ? [`server/discover got ${describeAnswer(discovered)}`]
      : [
          ...(Array.isArray(versions) && versions.includes(VERSION_2026)
            ? []
            : [`supportedVersions ${JSON.stringify(versions)} lacks ${VERSION_2026}`]),
          ...(isObject(d.capabilities) ? [] : ['capabilities missing']),
        ],
  );
  if (d === undefined) return;
  await c.request('tools/list', {}, { wire: '2026' });
  const unknown = await c.request(UNKNOWN_METHOD, {}, { wire: '2026' });
  const unknownProblems = expectCode(unknown, ErrorCode.MethodNotFound);
  if (c.link.transport === 'http' && unknown.kind === 'error' && unknown.status !== 404) {
    unknownProblems.push(`HTTP ${unknown.status} (expected 404)`);
  }
  rec.expect('2026.method-not-found', unknownProblems);

  const missing: string[] = [];
  if (c.link.transport === 'http') {
    // The header names 2026 but the body has no envelope: 400. Two MUSTs meet here: a missing
    // envelope is -32602 (the conformance suite's reading), and Transports §Protocol Version
    // Header: "If the values do not match, the server MUST reject the request with 400 Bad
    // Request and a HeaderMismatch JSON-RPC error". The header's value and an absent body value
    // do not match, and the more specific rule wins, so -32020 passes too.
    const answer = await c.raw(
      { jsonrpc: '2.0', id: c.nextId(), method: 'tools/list', params: {} },
      { wire: '2026', omitSession: true },
    );
    if (!(answer.kind === 'error' && answer.error.code === ErrorCode.HeaderMismatch))
      missing.push(...expectCode(answer, ErrorCode.InvalidParams, 'or -32020 (HeaderMismatch)'));
    if (answer.kind === 'error' && answer.status !== 400)
      missing.push(`HTTP ${answer.status} (expected 400)`);
  } else {
    // stdio has no headers: an envelope without clientCapabilities is the incomplete one.
    const answer = await c.raw(
      {
        jsonrpc: '2.0',
        id: c.nextId(),
        method: 'tools/list',
        params: { _meta: { [META.protocolVersion]: VERSION_2026 } },
      },
      { wire: '2026' },
    );
    missing.push(...expectCode(answer, ErrorCode.InvalidParams));
  }
  rec.expect('2026.missing-envelope', missing);

  const lacking = c.responses
    .filter((r) => r.wire === '2026' && isObject(r.response.result))
    .filter((r) => typeof (r.response.result as JsonObject).resultType !== 'string')
    .map((r) => `${String(r.request?.method)} result has no resultType`);
  rec.expect('2026.result-type', lacking);
}

/** JSON-RPC 2.0 §5 over every response seen during the run. */
export function checkEnvelopes(c: ProbeClient, rec: Recorder): void {
  const all = c.responses.map((r) => r.response);
  if (all.length === 0) {
    for (const id of ['jsonrpc.version', 'jsonrpc.id-echo', 'jsonrpc.result-xor-error'] as const)
      rec.notRun(id, 'no response to judge');
    return;
  }
  rec.expect(
    'jsonrpc.version',
    all.filter((m) => m.jsonrpc !== '2.0').map((m) => ENVELOPE_WORDS.version(m.id, m.jsonrpc)),
    `${all.length} responses`,
  );
  const echo = [
    ...c.idMismatches.map((m) => ENVELOPE_WORDS.idEcho(m.sent, m.received)),
    ...c.unmatched
      .filter((m) => m.id !== null && m.id !== undefined)
      .map((m) => ENVELOPE_WORDS.strayId(m.id)),
  ];
  rec.expect('jsonrpc.id-echo', echo);
  rec.expect(
    'jsonrpc.result-xor-error',
    all.filter((m) => 'result' in m && 'error' in m).map((m) => ENVELOPE_WORDS.both(m.id)),
  );
}

/** MCP stdio transport: "The server MUST NOT write anything to its stdout that is not a valid MCP message." */
export function checkStdout(c: ProbeClient, rec: Recorder): void {
  if (c.link.junk.length === 0 && c.responses.length === 0 && c.notifications.length === 0) {
    rec.notRun('stdio.stdout', 'the server wrote nothing to stdout');
    return;
  }
  rec.found('stdio.stdout', stdoutJunk(c.link.junk));
}

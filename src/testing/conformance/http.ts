/**
 * The streamable HTTP transport checks (MCP 2025-11-25 "Transports"; the 2026-07-28 header
 * rules on the same endpoint): Origin and Host validation, the protocol version header, the
 * Accept header, parse errors, batches, GET and DELETE, a terminated session, and the 2026
 * routing headers. They run on a session of their own, opened and ended here, so the rest of
 * the report never sees a session these probes spoiled.
 */
import { ErrorCode } from '../../base/errors.ts';
import { META } from '../../base/meta-keys.ts';
import { LATEST_2025, VERSION_2026 } from '../../base/versions.ts';
import { describeReply, type ProbeReply, probe, replyError } from '../client/http-probe.ts';
import type { Recorder } from './recorder.ts';

export interface HttpCheckOptions {
  url: string;
  /** The user's headers (auth), sent with every probe. */
  headers: Readonly<Record<string, string>>;
  timeoutMs: number;
  /** A loopback server: the Host check applies (a public server sits behind whatever Host its proxy sends). */
  local: boolean;
  /** The server speaks the 2026 wire: its header rules are checked too. */
  has2026: boolean;
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const FOREIGN_ORIGIN = 'http://evil.example';

function initialize(id: number): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: LATEST_2025,
      capabilities: {},
      clientInfo: { name: 'mcp-toolkit-check', version: '1' },
    },
  });
}

const ping = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });

const refused = (reply: ProbeReply | undefined, status: number) => reply?.status === status;

/** Ends a session a probe may have opened by accident (a server that ignored the probe's fault). */
async function endSession(o: HttpCheckOptions, reply: ProbeReply | undefined): Promise<void> {
  const sid = reply?.headers['mcp-session-id'];
  if (typeof sid !== 'string') return;
  await probe(o.url, {
    method: 'DELETE',
    headers: { ...o.headers, 'mcp-session-id': sid },
    timeoutMs: o.timeoutMs,
  });
}

async function checkOriginAndHost(o: HttpCheckOptions, rec: Recorder): Promise<void> {
  const origin = await probe(o.url, {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...o.headers, origin: FOREIGN_ORIGIN },
    body: initialize(1),
    timeoutMs: o.timeoutMs,
  });
  if (origin === undefined) rec.notRun('http.origin', 'no reply to the probe');
  else if (origin.status === 403) rec.pass('http.origin');
  else if (origin.status >= 400 && origin.status < 500)
    rec.warn(
      'http.origin',
      `Origin: ${FOREIGN_ORIGIN} got ${describeReply(origin)}; the status for it is 403`,
    );
  else
    rec.fail(
      'http.origin',
      `initialize with Origin: ${FOREIGN_ORIGIN} got ${describeReply(origin)}, expected 403`,
    );
  await endSession(o, origin);
  if (!o.local) {
    rec.notRun('http.host', 'not a loopback server: its Host is whatever its proxy sends');
    return;
  }
  const host = await probe(o.url, {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...o.headers, host: 'evil.example.com' },
    body: initialize(2),
    timeoutMs: o.timeoutMs,
  });
  if (host === undefined) rec.notRun('http.host', 'no reply to the probe');
  else if (host.status >= 400 && host.status < 500) rec.pass('http.host', `HTTP ${host.status}`);
  else
    rec.fail('http.host', `initialize with Host: evil.example.com got ${describeReply(host)}, expected 403`);
  await endSession(o, host);
}

/** Opens the probes' own session; undefined when the server issues none. */
async function openSession(o: HttpCheckOptions): Promise<string | undefined> {
  const reply = await probe(o.url, {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...o.headers },
    body: initialize(3),
    timeoutMs: o.timeoutMs,
  });
  const sid = reply?.headers['mcp-session-id'];
  if (typeof sid !== 'string') return undefined;
  await probe(o.url, {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...o.headers, 'mcp-session-id': sid, 'mcp-protocol-version': LATEST_2025 },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    timeoutMs: o.timeoutMs,
  });
  return sid;
}

async function checkSessionRules(o: HttpCheckOptions, rec: Recorder, sid: string | undefined): Promise<void> {
  const session: Record<string, string> = sid === undefined ? {} : { 'mcp-session-id': sid };
  const headers = { ...JSON_HEADERS, ...o.headers, ...session, 'mcp-protocol-version': LATEST_2025 };
  const post = (body: string, extra: Record<string, string> = {}) =>
    probe(o.url, { method: 'POST', headers: { ...headers, ...extra }, body, timeoutMs: o.timeoutMs });

  const version = await post(ping(10), { 'mcp-protocol-version': '1999-01-01' });
  if (refused(version, 400)) rec.pass('http.protocol-version-header');
  else
    rec.fail(
      'http.protocol-version-header',
      `MCP-Protocol-Version: 1999-01-01 got ${describeReply(version)}, expected 400`,
    );

  const accept = await post(ping(11), { accept: 'text/html' });
  if (refused(accept, 406)) rec.pass('http.accept');
  else rec.fail('http.accept', `a POST with Accept: text/html got ${describeReply(accept)}, expected 406`);

  const parse = await post('{"jsonrpc": "2.0", "id": 12, "method": ');
  const perr = replyError(parse);
  if (perr?.code === ErrorCode.ParseError && perr.id === null)
    rec.pass('http.parse-error', `HTTP ${parse?.status}`);
  else
    rec.fail(
      'http.parse-error',
      `a truncated JSON body got ${describeReply(parse)}${perr && perr.id !== null ? ` with id ${JSON.stringify(perr.id)}` : ''}${parse && !perr ? `: ${parse.text.slice(0, 80)}` : ''}; expected error -32700 with id null`,
    );

  // 2025-06-18 removed batches; a session on a later revision should refuse one.
  const batch = await post(`[${ping(13)},${ping(14)}]`);
  const served = (batch?.messages ?? []).filter((m) => typeof m === 'object' && m !== null && 'result' in m);
  if (batch === undefined) rec.notRun('http.batch', 'no reply to the probe');
  else if (served.length > 0)
    rec.fail('http.batch', `a batch of two pings was served on a ${LATEST_2025} session`);
  else rec.pass('http.batch', describeReply(batch));

  if (sid === undefined) {
    for (const id of ['http.get', 'http.delete', 'http.session-terminated'] as const)
      rec.notRun(id, 'the server issues no Mcp-Session-Id');
    return;
  }
  const get = await probe(o.url, {
    method: 'GET',
    headers: { ...o.headers, ...session, accept: 'text/event-stream', 'mcp-protocol-version': LATEST_2025 },
    timeoutMs: o.timeoutMs,
    headersOnly: true,
  });
  if (get?.status === 405 || (get?.status === 200 && get.contentType.includes('text/event-stream'))) {
    rec.pass('http.get', get.status === 405 ? 'HTTP 405' : 'an SSE stream');
  } else rec.fail('http.get', `GET with Accept: text/event-stream got ${describeReply(get)}`);

  const del = await probe(o.url, {
    method: 'DELETE',
    headers: { ...o.headers, ...session, 'mcp-protocol-version': LATEST_2025 },
    timeoutMs: o.timeoutMs,
  });
  if (del?.status === 405) {
    rec.pass('http.delete', 'HTTP 405: clients may not end sessions');
    rec.notRun('http.session-terminated', 'DELETE is refused (405): no session to terminate');
    return;
  }
  if (del === undefined || del.status < 200 || del.status >= 300) {
    rec.fail('http.delete', `DELETE with Mcp-Session-Id got ${describeReply(del)}, expected 2xx or 405`);
    rec.notRun('http.session-terminated', 'the session could not be ended');
    return;
  }
  rec.pass('http.delete', `HTTP ${del.status}`);
  const after = await post(ping(15));
  if (refused(after, 404)) rec.pass('http.session-terminated');
  else
    rec.fail(
      'http.session-terminated',
      `a request with the deleted session got ${describeReply(after)}, expected 404`,
    );
}

/** The 2026 routing headers (SEP-2243), the envelope's clientCapabilities and batches. */
async function check2026Headers(o: HttpCheckOptions, rec: Recorder): Promise<void> {
  const envelope = { [META.protocolVersion]: VERSION_2026, [META.clientCapabilities]: {} };
  const post = (body: unknown, headers: Record<string, string>) =>
    probe(o.url, {
      method: 'POST',
      headers: { ...JSON_HEADERS, ...o.headers, 'mcp-protocol-version': VERSION_2026, ...headers },
      body: JSON.stringify(body),
      timeoutMs: o.timeoutMs,
    });
  const problems: string[] = [];
  const method = await post(
    { jsonrpc: '2.0', id: 20, method: 'tools/list', params: { _meta: envelope } },
    { 'mcp-method': 'prompts/list' },
  );
  if (method?.status !== 400)
    problems.push(`Mcp-Method: prompts/list on a tools/list body got ${describeReply(method)}, expected 400`);
  const name = await post(
    {
      jsonrpc: '2.0',
      id: 21,
      method: 'tools/call',
      params: { name: 'mcp-toolkit-a', arguments: {}, _meta: envelope },
    },
    { 'mcp-method': 'tools/call', 'mcp-name': 'mcp-toolkit-b' },
  );
  if (name?.status !== 400)
    problems.push(
      `Mcp-Name: mcp-toolkit-b on a call of mcp-toolkit-a got ${describeReply(name)}, expected 400`,
    );
  // 400 is the MUST; -32020 the SHOULD beside it.
  const codes = [
    [method, 'Mcp-Method'],
    [name, 'Mcp-Name'],
  ] as const;
  const wrongCode = codes.find(
    ([reply]) => reply?.status === 400 && replyError(reply)?.code !== ErrorCode.HeaderMismatch,
  );
  if (problems.length > 0) rec.fail('2026.header-mismatch', problems.join('; '));
  else if (wrongCode)
    rec.warn(
      '2026.header-mismatch',
      `a mismatched ${wrongCode[1]} got HTTP 400 with error ${replyError(wrongCode[0])?.code ?? 'none'}; the code for it is -32020`,
    );
  else rec.pass('2026.header-mismatch');

  const noCaps = await post(
    {
      jsonrpc: '2.0',
      id: 22,
      method: 'tools/list',
      params: { _meta: { [META.protocolVersion]: VERSION_2026 } },
    },
    { 'mcp-method': 'tools/list' },
  );
  const capsErr = replyError(noCaps);
  if (noCaps?.status === 400 && capsErr?.code === ErrorCode.InvalidParams)
    rec.pass('2026.missing-capabilities');
  else
    rec.fail(
      '2026.missing-capabilities',
      `an envelope without clientCapabilities got ${describeReply(noCaps)}, expected HTTP 400 with -32602`,
    );

  const batch = await post(
    [
      { jsonrpc: '2.0', id: 23, method: 'tools/list', params: { _meta: envelope } },
      { jsonrpc: '2.0', id: 24, method: 'tools/list', params: { _meta: envelope } },
    ],
    { 'mcp-method': 'tools/list' },
  );
  const served = (batch?.messages ?? []).some((m) => typeof m === 'object' && m !== null && 'result' in m);
  if (batch === undefined) rec.notRun('2026.batch-rejected', 'no reply to the probe');
  else if (batch.status === 400 && !served) rec.pass('2026.batch-rejected', describeReply(batch));
  else
    rec.fail(
      '2026.batch-rejected',
      `a batch with 2026 envelopes got ${describeReply(batch)}, expected HTTP 400`,
    );
}

export async function checkHttpTransport(o: HttpCheckOptions, rec: Recorder): Promise<void> {
  await checkOriginAndHost(o, rec);
  await checkSessionRules(o, rec, await openSession(o));
  if (o.has2026) await check2026Headers(o, rec);
}

/**
 * The third-party corpus's findings, pinned: a finding's check, level and status, and for a MUST
 * or SHOULD the line of the specification that makes it true, quoted as the specification writes
 * it (`source`, which starts with the section the report names), so a changed verdict fails the
 * test and says what it was held to. Also the HTTP servers the corpus starts on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { ConformanceReport } from '../../../src/testing/conformance/report.ts';
import { until } from '../../helpers/until.ts';

/** Short timeouts: each server run stays well under a minute. */
export const FAST_FLAGS = ['--request-timeout', '2', '--call-timeout', '5'];

export interface Pinned {
  id: string;
  level: 'MUST' | 'SHOULD' | 'HOUSE';
  status: 'fail' | 'warn';
  source?: string;
}

export const INVALID_REQUEST: Pinned = {
  id: 'jsonrpc.invalid-request',
  level: 'MUST',
  status: 'fail',
  source:
    'JSON-RPC 2.0 §4.2, §5: "If present, parameters for the rpc call MUST be provided as a Structured value" (params: null is no Request object) and "When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications"',
};
/** Answered, but with -32700: a warning inside the MUST check (no MUST names the code). */
export const INVALID_REQUEST_PARSE_CODE: Pinned = {
  id: 'jsonrpc.invalid-request',
  level: 'MUST',
  status: 'warn',
  source:
    'JSON-RPC 2.0 §4.2, §5: §5.1 defines "-32600 Invalid Request: The JSON sent is not a valid Request object" and "-32700 Parse error: Invalid JSON was received by the server" (params: null is valid JSON; no MUST names the code, so a warning)',
};
/**
 * An unknown tool answered with an isError result. Tools §Error Handling: "Protocol Errors:
 * Standard JSON-RPC errors for issues like: Unknown tools", with no MUST or SHOULD (2025-11-25,
 * 2026-07-28): a house warning, the level the text supports.
 */
export const UNKNOWN_TOOL: Pinned = { id: 'tools.unknown-tool', level: 'HOUSE', status: 'warn' };
export const INVALID_CURSOR_SERVED: Pinned = {
  id: 'pagination.invalid-cursor',
  level: 'SHOULD',
  status: 'warn',
  source:
    'Pagination §Error Handling: "Invalid cursors SHOULD result in an error with code -32602 (Invalid params)." (the list was served as if no cursor had been sent)',
};
/** -32602 for an unknown resource on a 2025 revision: the code of 2026-07-28, not the 2025 one. */
export const RESOURCE_NOT_FOUND_2025: Pinned = {
  id: 'resources.unknown',
  level: 'SHOULD',
  status: 'warn',
  source:
    'Resources §Error Handling: "Servers SHOULD return standard JSON-RPC errors for common failure cases: Resource not found: -32002"',
};
export const INVALID_LOG_LEVEL: Pinned = {
  id: 'logging.invalid-level',
  level: 'SHOULD',
  status: 'warn',
  source:
    'Logging §Error Handling: "Servers SHOULD return standard JSON-RPC errors for common failure cases: Invalid log level: -32602 (Invalid params)"',
};
export const FOREIGN_ORIGIN: Pinned = {
  id: 'http.origin',
  level: 'MUST',
  status: 'fail',
  source:
    'Transports §Security Warning: "Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks" and "If the Origin header is present and invalid, servers MUST respond with HTTP 403 Forbidden"',
};
export const HTML_PARSE_ERROR: Pinned = {
  id: 'http.parse-error',
  level: 'MUST',
  status: 'fail',
  source:
    'JSON-RPC 2.0 §5.1: "-32700 Parse error: Invalid JSON was received by the server", which §7 answers for an "rpc call with invalid JSON" with {"code": -32700, "message": "Parse error"}, "id": null; §5: "When a rpc call is made, the Server MUST reply with a Response" (an HTML page is none)',
};
/** A truncated body answered with a bare HTTP 500 (mcp-framework's HTTP Stream transport). */
export const PARSE_ERROR_500: Pinned = {
  ...HTML_PARSE_ERROR,
  source:
    'JSON-RPC 2.0 §5.1: "-32700 Parse error: Invalid JSON was received by the server", which §7 answers for an "rpc call with invalid JSON" with {"code": -32700, "message": "Parse error"}, "id": null; §5: "When a rpc call is made, the Server MUST reply with a Response" (a bare HTTP 500 is none)',
};
export const VERSION_HEADER_SERVED: Pinned = {
  id: 'http.protocol-version-header',
  level: 'MUST',
  status: 'fail',
  source:
    'Transports §Protocol Version Header: "If the server receives a request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request"',
};
export const DELETED_SESSION_SERVED: Pinned = {
  id: 'http.session-terminated',
  level: 'MUST',
  status: 'fail',
  source:
    'Transports §Session Management: "The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found" (it answered DELETE with 2xx, then served the session)',
};
export const CAPABILITIES_200: Pinned = {
  id: '2026.missing-capabilities',
  level: 'MUST',
  status: 'fail',
  source:
    'Base Protocol §_meta: "A request missing any required field is malformed; the server MUST reject it with JSON-RPC error code -32602 (Invalid params). On HTTP, the response status MUST be 400 Bad Request."',
};
export const ACCEPT_IGNORED: Pinned = { id: 'http.accept', level: 'HOUSE', status: 'warn' };
export const BATCH_SERVED: Pinned = { id: 'http.batch', level: 'HOUSE', status: 'warn' };
export const FOREIGN_HOST: Pinned = { id: 'http.host', level: 'HOUSE', status: 'warn' };

/**
 * With CORPUS_TALLY=<file>, each pinned report's findings are appended to the file (one JSON
 * line per run), which scripts/corpus-figures.ts counts for docs/testing.md's figures.
 */
function tally(report: ConformanceReport, found: readonly ConformanceReport['checks'][number][]): void {
  const file = process.env.CORPUS_TALLY;
  if (file === undefined || file === '') return;
  const line = {
    server: report.serverInfo?.name ?? report.target,
    transport: report.transport,
    wires: report.wires,
    findings: found.map((c) => ({ id: c.id, level: c.level, status: c.status })),
  };
  appendFileSync(file, `${JSON.stringify(line)}\n`);
}

/** The report's findings are exactly `pins`, at their level and status; MUST and SHOULD with their spec line. */
export function assertPinned(report: ConformanceReport, pins: readonly Pinned[]): void {
  const found = report.checks.filter((c) => c.status === 'fail' || c.status === 'warn');
  tally(report, found);
  assert.deepEqual(
    found.map((c) => c.id).sort(),
    pins.map((p) => p.id).sort(),
    JSON.stringify(found.map((c) => [c.id, c.status, c.reason])),
  );
  for (const pin of pins) {
    const c = found.find((x) => x.id === pin.id);
    assert.deepEqual([c?.level, c?.status], [pin.level, pin.status], pin.id);
    if (pin.level === 'HOUSE') continue;
    const section = (c?.source ?? '').replace(/ \(.*$/, '');
    assert.ok(
      section !== '' && pin.source?.startsWith(section),
      `${pin.id}: its source should quote ${section}`,
    );
  }
  assert.equal(report.ok, !pins.some((p) => p.status === 'fail'));
}

export function tapSummary(stdout: string): { tests: number; fail: number; failed: string[] } {
  const count = (name: string) =>
    Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(stdout)?.[1] ?? Number.NaN);
  const failed = [...stdout.matchAll(/^\s*not ok \d+ - (test_\S+)/gm)].map((m) => m[1] as string);
  return { tests: count('tests'), fail: count('fail'), failed };
}

/** A port free on 127.0.0.1 now, for servers that take a port and cannot be given 0. */
export async function freePort(): Promise<number> {
  const s = createServer();
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const { port } = s.address() as { port: number };
  s.close();
  await once(s, 'close');
  return port;
}

export interface HttpServerProcess {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts an HTTP server process and waits until `url` answers (any HTTP status); `url` may
 * instead be read from the first line the process prints that starts with http://127.0.0.1.
 */
export async function startHttpServer(
  command: string,
  args: readonly string[],
  options: { url?: string; env?: Record<string, string>; cwd?: string } = {},
): Promise<HttpServerProcess> {
  const { NODE_TEST_CONTEXT: _, ...inherited } = process.env;
  const child: ChildProcess = spawn(command, args, {
    env: { ...inherited, ...options.env },
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => {
    out += c;
  });
  child.stderr?.setEncoding('utf8').on('data', (c: string) => {
    out += c;
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    await gone;
    clearTimeout(timer);
  };
  try {
    const url = await until(() => options.url ?? /^http:\/\/127\.0\.0\.1:\d+\/mcp$/m.exec(out)?.[0], {
      timeoutMs: 20_000,
      message: `${args.join(' ')} printed no URL: ${out}`,
    });
    await until(
      () =>
        fetch(url, { method: 'GET', signal: AbortSignal.timeout(1_000) }).then(
          (r) => {
            void r.body?.cancel();
            return true;
          },
          () => false,
        ),
      { timeoutMs: 20_000, intervalMs: 50, message: `${url} never answered: ${out}` },
    );
    return { url, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

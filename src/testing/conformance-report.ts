/**
 * The conformance report: the interoperability checks that server authors never run because
 * their one client tolerates the failure, run against any server (in-process, a stdio
 * command, a URL) and printed as a checklist with a total.
 */
import { isObject, type JsonObject } from '../protocol/jsonrpc.ts';
import { checkPrompts, checkResources, checkTools } from './conformance-features.ts';
import {
  check2026,
  checkEnvelopes,
  checkErrorCodes,
  checkInitialize,
  checkNotifications,
  checkPreInitializeHttp,
  checkPreInitializeStream,
  checkStdout,
} from './conformance-protocol.ts';
import { type ConformanceCheck, Recorder } from './conformance-recorder.ts';
import { endpointUrl, openLink } from './connect.ts';
import type { HttpLink } from './http-link.ts';
import { type Answer, ProbeClient, type Wire } from './probe-client.ts';
import { type ConnectOptions, describeTarget, resolveTarget, type Target } from './targets.ts';

export type { ConformanceCheck } from './conformance-recorder.ts';

export interface ConformanceReport {
  /** The URL, the command line, or `in-process server`. */
  target: string;
  transport: 'stdio' | 'http' | 'in-process';
  /** The wires checked, in order. */
  wires: Wire[];
  serverInfo?: { name?: string; version?: string };
  protocolVersion?: string;
  checks: ConformanceCheck[];
  passed: number;
  failed: number;
  skipped: number;
  /** passed + failed (skipped checks do not count). */
  total: number;
  ok: boolean;
}

export type ConformanceOptions = ConnectOptions;

function supports2026(answer: Answer): boolean {
  if (answer.kind !== 'result') return false;
  const v = answer.result.supportedVersions;
  return Array.isArray(v) && v.some((x) => typeof x === 'string' && x >= '2026-07-28');
}

async function run2025(c: ProbeClient, rec: Recorder): Promise<boolean> {
  const http = c.link.transport === 'http';
  if (!http) await checkPreInitializeStream(c, rec);
  const up = await checkInitialize(c, rec);
  if (!up) return false;
  c.wire = '2025';
  await checkNotifications(c, rec);
  if (http) await checkPreInitializeHttp(c, rec, (c.link as HttpLink).sessionId !== undefined);
  await checkErrorCodes(c, rec);
  return true;
}

async function runFeatures(c: ProbeClient, rec: Recorder, capabilities: JsonObject): Promise<void> {
  await checkTools(c, rec, isObject(capabilities.tools));
  if (isObject(capabilities.resources)) await checkResources(c, rec);
  if (isObject(capabilities.prompts)) await checkPrompts(c, rec);
}

/**
 * Runs every check against a target and returns the report (it never throws for a server
 * fault: an unreachable server is a failed check).
 *
 * @example
 * const report = await conformanceReport(server); // an McpServer, in-process
 * assert.equal(report.failed, 0, formatReport(report));
 * const remote = await conformanceReport('http://127.0.0.1:3000/mcp', { wire: '2025' });
 * const spawned = await conformanceReport({ command: 'node', args: ['server.js'] });
 */
export async function conformanceReport(
  target: Target,
  options: ConformanceOptions = {},
): Promise<ConformanceReport> {
  const resolved = resolveTarget(target);
  const rec = new Recorder();
  const link = openLink(resolved, options);
  const c = new ProbeClient(link, resolved, options);
  const wires: Wire[] = [];
  const wire = options.wire ?? 'auto';
  try {
    let discovered: Answer | undefined;
    if (wire !== '2025') discovered = await c.discover();
    const has2026 = discovered !== undefined && supports2026(discovered);
    let capabilities: JsonObject | undefined;
    if (wire !== '2026') {
      if (await run2025(c, rec)) {
        wires.push('2025');
        capabilities = isObject(c.initializeResult?.capabilities) ? c.initializeResult.capabilities : {};
      }
    }
    if (wire === '2026' || has2026) {
      wires.push('2026');
      await check2026(c, rec, discovered as Answer);
      if (capabilities === undefined && has2026 && discovered?.kind === 'result') {
        c.wire = '2026';
        capabilities = isObject(discovered.result.capabilities) ? discovered.result.capabilities : {};
      }
    }
    if (capabilities !== undefined) {
      c.wire = wires[0];
      await runFeatures(c, rec, capabilities);
    }
    if (link.failure !== undefined && !rec.checks.some((x) => x.reason?.includes(link.failure as string))) {
      rec.fail('connection', 'the connection stays up', link.failure);
    }
  } finally {
    await c.close();
  }
  checkEnvelopes(c, rec);
  if (link.transport === 'stdio') checkStdout(c, rec);
  const checks = rec.checks;
  // A dead server fails every later check for the same reason: say it in full once.
  const gone = link.failure;
  if (gone !== undefined) {
    let said = false;
    for (const x of checks) {
      if (!x.reason?.includes(gone)) continue;
      if (said) x.reason = x.reason.replace(gone, 'the server is gone, see above');
      said = true;
    }
  }
  const passed = checks.filter((x) => x.status === 'pass').length;
  const failed = checks.filter((x) => x.status === 'fail').length;
  const info =
    c.initializeResult?.serverInfo ??
    (c.discoverResult?._meta as JsonObject | undefined)?.['io.modelcontextprotocol/serverInfo'];
  const version = c.protocolVersion ?? (wires.includes('2026') ? '2026-07-28' : undefined);
  return {
    target: resolved.kind === 'url' ? endpointUrl(resolved.url) : describeTarget(resolved),
    transport: link.transport,
    wires,
    ...(isObject(info) ? { serverInfo: { name: info.name as string, version: info.version as string } } : {}),
    ...(version !== undefined ? { protocolVersion: version } : {}),
    checks,
    passed,
    failed,
    skipped: checks.length - passed - failed,
    total: passed + failed,
    ok: failed === 0,
  };
}

/** The checklist: `✓ title`, `✗ title: reason`, `- title (skipped: reason)`, then `N/M conformance checks passed`. */
export function formatReport(report: ConformanceReport): string {
  const head = `Conformance report for ${report.target}${
    report.serverInfo?.name
      ? ` (${report.serverInfo.name}${report.serverInfo.version ? ` ${report.serverInfo.version}` : ''})`
      : ''
  }${report.wires.length > 0 ? `, wire ${report.wires.join(' + ')}` : ''}`;
  const lines = report.checks.map((x) =>
    x.status === 'pass'
      ? `✓ ${x.title}`
      : x.status === 'fail'
        ? `✗ ${x.title}: ${x.reason ?? 'failed'}`
        : `- ${x.title} (skipped: ${x.reason ?? 'not applicable'})`,
  );
  return [head, '', ...lines, '', `${report.passed}/${report.total} conformance checks passed`].join('\n');
}

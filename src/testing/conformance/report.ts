/**
 * The conformance report: the interoperability checks that server authors never run because
 * their one client tolerates the failure, run against any server (in-process, a stdio
 * command, a URL) and printed as a checklist with a total.
 */
import { isObject, type JsonObject } from '../../base/jsonrpc.ts';
import { VERSION_2026 } from '../../base/versions.ts';
import { connectionProblem, endpointUrl, openLink, refusalFix } from '../client/connect.ts';
import { closingLine } from '../report/cli-report.ts';
import { CHECKS, type CheckId } from './check-catalog.ts';
import { CursorProbes } from './cursors.ts';
import { type DeprecatedUse, deprecatedUses, formatDeprecations } from './deprecations.ts';
import { checkPrompts, checkResources, checkTools } from './features.ts';
import { checkHttpTransport } from './http.ts';
import {
  check2026,
  checkEnvelopes,
  checkErrorCodes,
  checkInitialize,
  checkNotifications,
  checkPreInitializeHttp,
  checkStdout,
} from './protocol.ts';
import { type ConformanceCheck, Recorder } from './recorder.ts';
import { checkTasks } from './tasks.ts';
import { checkUtilities } from './utilities.ts';

export { connectionProblem } from '../client/connect.ts';

import { HttpLink } from '../client/http-link.ts';
import { type Answer, ProbeClient, type Wire } from '../client/probe-client.ts';
import {
  type ConnectOptions,
  describeTarget,
  isLocalTarget,
  resolveTarget,
  type Target,
} from '../client/targets.ts';
import { cardFacts, checkApps, checkServerCardAndCatalog } from './discovery-checks.ts';
import { RESTARTED } from './protocol-rules.ts';

export type { ConformanceCheck } from './recorder.ts';

export interface ConformanceReport {
  /** The URL, the command line, or `in-process server`. */
  target: string;
  transport: 'stdio' | 'http' | 'in-process';
  /** The wires checked, in order. */
  wires: Wire[];
  serverInfo?: { name?: string; version?: string };
  protocolVersion?: string;
  /** Whether a handshake completed (false: nothing could be judged; `mcp-toolkit check` exits 3). */
  connected: boolean;
  checks: ConformanceCheck[];
  passed: number;
  /** MUST rules broken (any rule under `strict`): the run fails. */
  failed: number;
  /** SHOULD and house rules broken: shown, not failing. */
  warnings: number;
  /** Checks with nothing to judge. */
  notRun: number;
  /** Every check in the report: passed + failed + warnings + notRun. */
  total: number;
  ok: boolean;
  /**
   * Features MCP 2026-07-28 deprecates (SEP-2577: Logging, Sampling, Roots) that the server was
   * seen using: a note for its author, never a failure (they are still served).
   */
  deprecated: DeprecatedUse[];
}

export interface ConformanceOptions extends ConnectOptions {
  /** SHOULD and house rules fail instead of warning. */
  strict?: boolean;
  /** Called with each verdict as it is recorded (e.g. to write JUnit as the run goes). */
  onCheck?: (check: ConformanceCheck) => void;
}

/** How often a stdio server that stopped is started again for the checks after it. */
const MAX_RESTARTS = 2;

function supports2026(answer: Answer): boolean {
  if (answer.kind !== 'result') return false;
  const v = answer.result.supportedVersions;
  return Array.isArray(v) && v.some((x) => typeof x === 'string' && x >= '2026-07-28');
}

async function run2025(c: ProbeClient, rec: Recorder): Promise<boolean> {
  const http = c.link.transport === 'http';
  const up = await checkInitialize(c, rec);
  if (!up) return false;
  c.wire = '2025';
  if (c.protocolVersion !== undefined) rec.setRevision(c.protocolVersion);
  rec.pass('connection', `initialize answered, protocol ${c.protocolVersion ?? 'unknown'}`);
  await checkNotifications(c, rec);
  if (http) await checkPreInitializeHttp(c, rec, (c.link as HttpLink).sessionId !== undefined);
  await checkErrorCodes(c, rec);
  return true;
}

async function runFeatures(
  c: ProbeClient,
  rec: Recorder,
  capabilities: JsonObject,
  cursors: CursorProbes,
  revive: () => Promise<void>,
): Promise<void> {
  if (c.wire === '2025') await cursors.probe(c, '2025', capabilities);
  await revive();
  const tools = await checkTools(c, rec, isObject(capabilities.tools));
  await revive();
  if (tools !== undefined) await checkTasks(c, rec, tools);
  await revive();
  if (isObject(capabilities.resources)) await checkResources(c, rec);
  await revive();
  if (isObject(capabilities.prompts)) await checkPrompts(c, rec);
  await revive();
  await checkUtilities(c, rec, capabilities);
}

/**
 * Over stdio an `initialize` selects the legacy era for the whole process (Versioning
 * §Compatibility Matrix: "scoped to the stdio process (stdio)"), and a dual-era server "selects
 * its behavior from how the client opens": after the 2025 run the 2026 probes go to a fresh
 * process opened with `server/discover`, as a modern client would open it. Streams the caller
 * wired (no command to start again) keep the one connection.
 */
async function check2026Apart(
  c: ProbeClient,
  rec: Recorder,
  discovered: Answer,
  fresh: (() => ProbeClient) | undefined,
  cursors: CursorProbes,
): Promise<void> {
  const run = async (client: ProbeClient, answer: Answer) => {
    await check2026(client, rec, answer);
    if (answer.kind === 'result' && isObject(answer.result.capabilities))
      await cursors.probe(client, '2026', answer.result.capabilities);
  };
  if (fresh === undefined || c.initializeResult === undefined) {
    await run(c, discovered);
    return;
  }
  // A process of its own: judged even when the first one stopped.
  rec.resume();
  const modern = fresh();
  try {
    await run(modern, await modern.discover());
  } finally {
    await modern.close();
    if (c.stopped !== undefined) rec.stopped(c.stopped);
    else rec.resume();
  }
}

/** The checks that apply to a transport, in catalogue order (for the not-run list). */
function applicable(transport: ConformanceReport['transport'], wires: readonly Wire[]): CheckId[] {
  return (Object.keys(CHECKS) as CheckId[]).filter((id) => {
    if (id === 'connection' || id.startsWith('auth.')) return false;
    if (id.startsWith('http.') || id === 'lifecycle.pre-initialize') return transport === 'http';
    if (id.startsWith('stdio.')) return transport === 'stdio';
    // Optional features: a server that never answered said nothing about views or a card.
    if (id.startsWith('apps.') || id === 'card' || id.startsWith('catalog.')) return false;
    if (id === '2026.header-mismatch' || id === '2026.missing-capabilities' || id === '2026.batch-rejected')
      return transport === 'http' && (wires.length === 0 || wires.includes('2026'));
    if (id.startsWith('2026.')) return wires.length === 0 || wires.includes('2026');
    return true;
  });
}

/**
 * Runs every check against a target and returns the report (it never throws for a server
 * fault: an unreachable server is a failed `connection` check, and every other check is
 * "not run", never passed).
 *
 * @example
 * const report = await conformanceReport(await createServer({ plugins: [notes], transport: 'none' })); // in-process
 * assert.equal(report.failed, 0, formatReport(report));
 * const remote = await conformanceReport('http://127.0.0.1:3000/mcp', { wire: '2025' });
 * const spawned = await conformanceReport({ command: 'node', args: ['server.js'] });
 */
export async function conformanceReport(
  target: Target,
  options: ConformanceOptions = {},
): Promise<ConformanceReport> {
  const resolved = resolveTarget(target);
  const rec = new Recorder({
    ...(options.strict !== undefined ? { strict: options.strict } : {}),
    ...(options.onCheck ? { onCheck: options.onCheck } : {}),
  });
  const link = openLink(resolved, options);
  const c = new ProbeClient(link, resolved, options);
  // A server that stops is said once (server.stopped, with the last request sent); the checks
  // after it are not run, unless a command can be started again for them.
  c.onStopped = (why) => rec.stopped(why);
  if (resolved.kind === 'command') c.reopen = () => openLink(resolved, options);
  let restarts = 0;
  const revive = async () => {
    if (c.stopped === undefined || restarts >= MAX_RESTARTS) return;
    restarts++;
    if (await c.restart()) rec.resume(RESTARTED);
  };
  const wires: Wire[] = [];
  const wire = options.wire ?? 'auto';
  const url = resolved.kind === 'url' ? endpointUrl(resolved.url) : undefined;
  const cursors = new CursorProbes();
  try {
    let discovered: Answer | undefined;
    if (wire !== '2025') discovered = await c.discover();
    const has2026 = discovered !== undefined && supports2026(discovered);
    let capabilities: JsonObject | undefined;
    if (wire !== '2026' && (await run2025(c, rec))) {
      wires.push('2025');
      capabilities = isObject(c.initializeResult?.capabilities) ? c.initializeResult.capabilities : {};
    }
    if (wire === '2026' || has2026) {
      wires.push('2026');
      if (wires.length === 1) rec.setRevision(VERSION_2026);
      await check2026Apart(
        c,
        rec,
        discovered as Answer,
        resolved.kind === 'command'
          ? () => {
              const modern = new ProbeClient(openLink(resolved, options), resolved, options);
              modern.onStopped = (why) => rec.stopped(why);
              return modern;
            }
          : undefined,
        cursors,
      );
      if (c.discoverResult !== undefined && !rec.checks.some((x) => x.id === 'connection'))
        rec.pass('connection', 'server/discover answered');
      if (capabilities === undefined && has2026 && discovered?.kind === 'result') {
        c.wire = '2026';
        capabilities = isObject(discovered.result.capabilities) ? discovered.result.capabilities : {};
      }
    }
    if (capabilities !== undefined) {
      c.wire = wires[0];
      await revive();
      await runFeatures(c, rec, capabilities, cursors, revive);
      cursors.record(rec);
      await revive();
      await checkApps(c, rec, capabilities);
      if (url !== undefined && c.stopped === undefined) {
        await checkHttpTransport(
          {
            url,
            headers: options.headers ?? {},
            timeoutMs: c.requestTimeoutMs,
            local: isLocalTarget(resolved),
            has2026: wires.includes('2026'),
          },
          rec,
        );
      }
    }
    if (url !== undefined && capabilities !== undefined && c.stopped === undefined)
      await checkServerCardAndCatalog(url, rec, cardFacts(c), options);
    const broke = c.link.failure;
    if (
      broke !== undefined &&
      !rec.checks.some((x) => x.id === 'server.stopped' || x.reason?.includes(broke))
    ) {
      rec.fail('connection', broke);
    }
  } finally {
    await c.close();
  }
  const connected = wires.length > 0 && (wires.includes('2025') || c.discoverResult !== undefined);
  if (connected) {
    // They judge what came before the stop too: every response, every stdout line.
    rec.lookBack(() => {
      checkEnvelopes(c, rec);
      if (link.transport === 'stdio') checkStdout(c, rec);
    });
    if (!rec.checks.some((x) => x.id === 'server.stopped'))
      rec.pass('server.stopped', 'the server answered to the end of the run');
    if (rec.halted) {
      const seen = new Set(rec.checks.map((x) => x.id));
      for (const id of applicable(link.transport, wires))
        if (!seen.has(id)) rec.notRun(id, 'the server stopped (see server.stopped)');
    }
  } else {
    // Nothing answered at all (no process, no endpoint, a refusal before JSON-RPC): one failure
    // that says why, and every other check not run.
    const refused = link instanceof HttpLink && link.refusal !== undefined;
    if (refused || (c.responses.length === 0 && c.serverRequests.length === 0)) rec.checks.length = 0;
    const seen = new Set(rec.checks.map((x) => x.id));
    if (!seen.has('connection')) {
      const fix = refusalFix(c);
      rec.fail('connection', connectionProblem(c, url), fix !== undefined ? { fix } : {});
    }
    for (const id of applicable(link.transport, wires))
      if (!seen.has(id)) rec.notRun(id, 'nothing to judge: no handshake completed');
  }
  const checks = rec.checks;
  // A dead server fails every later check for the same reason: say it in full once.
  const gone = c.link.failure;
  if (gone !== undefined) {
    let said = false;
    for (const x of checks) {
      if (!x.reason?.includes(gone)) continue;
      if (said) x.reason = x.reason.replace(gone, 'the server is gone, see above');
      said = true;
    }
  }
  const deprecated = deprecatedUses({
    capabilities: isObject(c.initializeResult?.capabilities)
      ? c.initializeResult.capabilities
      : isObject(c.discoverResult?.capabilities)
        ? c.discoverResult.capabilities
        : undefined,
    serverRequests: c.serverRequests,
    notifications: c.notifications,
    responses: c.responses,
  });
  const count = (status: ConformanceCheck['status']) => checks.filter((x) => x.status === status).length;
  const passed = count('pass');
  const failed = count('fail');
  const warnings = count('warn');
  const info =
    c.initializeResult?.serverInfo ??
    (c.discoverResult?._meta as JsonObject | undefined)?.['io.modelcontextprotocol/serverInfo'];
  const version = c.protocolVersion ?? (wires.includes('2026') ? VERSION_2026 : undefined);
  return {
    target: url ?? describeTarget(resolved),
    transport: link.transport,
    wires,
    ...(isObject(info) ? { serverInfo: { name: info.name as string, version: info.version as string } } : {}),
    ...(version !== undefined ? { protocolVersion: version } : {}),
    connected,
    checks,
    passed,
    failed,
    warnings,
    notRun: count('not-run'),
    total: checks.length,
    ok: failed === 0,
    deprecated,
  };
}

const MARK: Record<ConformanceCheck['status'], string> = { pass: '✓', fail: '✗', warn: '!', 'not-run': '-' };

/**
 * The checklist: `✓ id: title`; a failure (`✗`) or warning (`!`) with its level, reason, fix and
 * the rule's address; checks not run grouped by reason; then the closing count line.
 */
export function formatReport(report: ConformanceReport, options: { closingLine?: boolean } = {}): string {
  const head = `Conformance report for ${report.target}${
    report.serverInfo?.name
      ? ` (${report.serverInfo.name}${report.serverInfo.version ? ` ${report.serverInfo.version}` : ''})`
      : ''
  }${report.wires.length > 0 ? `, wire ${report.wires.join(' + ')}` : ''}${
    report.protocolVersion ? `, protocol ${report.protocolVersion}` : ''
  }`;
  const lines: string[] = [];
  const checks = report.checks;
  for (let i = 0; i < checks.length; i++) {
    const x = checks[i] as ConformanceCheck;
    if (x.status === 'pass') {
      lines.push(`✓ ${x.id}: ${x.title}`);
      continue;
    }
    if (x.status === 'not-run') {
      // Consecutive checks not run for one reason make one line.
      const group = [x];
      while (checks[i + 1]?.status === 'not-run' && checks[i + 1]?.reason === x.reason)
        group.push(checks[++i] as ConformanceCheck);
      lines.push(
        group.length === 1
          ? `- ${x.id}: ${x.title} (not run: ${x.reason ?? 'nothing to judge'})`
          : `- ${group.length} checks not run (${x.reason ?? 'nothing to judge'}): ${group.map((g) => g.id).join(', ')}`,
      );
      continue;
    }
    const verdict = x.status === 'fail' ? x.level : `${x.level}, warning`;
    lines.push(`${MARK[x.status]} ${x.id}: ${x.title} [${verdict}]`);
    for (const line of (x.reason ?? 'failed').split('\n')) lines.push(`    ${line}`);
    lines.push(`    fix: ${x.fix}`);
    lines.push(`    rule: ${x.source}: ${x.spec}`);
  }
  const notes = formatDeprecations(report.deprecated ?? []);
  if (notes.length > 0) lines.push('', ...notes);
  const tail = options.closingLine === false ? [] : ['', closingLine(report)];
  return [head, '', ...lines, ...tail].join('\n');
}

/**
 * The generated live tests, as plain data: connect, list the tools, and derive every case
 * pytest-mcp-tools generates (with its test names) plus ours. Each case is a function that
 * throws a LiveTestFailure or returns notes and warnings; live/tests.ts turns them into node
 * test-runner tests, and the kit's own tests run them directly.
 */
import { isObject, type JsonObject } from '../../base/jsonrpc.ts';
import { ConnectError, connect, endpointUrl, openLink } from '../client/connect.ts';
import { probeEndpoint } from '../client/http-link.ts';
import type { ProbeClient } from '../client/probe-client.ts';
import { isLocalTarget, type ResolvedTarget, resolveTarget, type Target } from '../client/targets.ts';
import { CursorProbes } from '../conformance/cursors.ts';
import {
  judgeInvalidRequest,
  judgeMethodNotFound,
  judgeUnknownTool,
  UNKNOWN_METHOD,
  UNKNOWN_TOOL,
} from '../conformance/protocol-rules.ts';
import {
  duplicateToolNames,
  misnamedTools,
  stdoutJunk,
  undescribedTools,
  unnamedTools,
} from '../conformance/tool-list-rules.ts';
import { fail, judged, LiveTestFailure } from './calls.ts';
import type { LiveCase, LiveTestOptions } from './live-case.ts';
import { guardStops } from './stops.ts';
import { toolCases, writeSkip } from './tool-cases.ts';

export type { LiveCase, LiveTestOptions } from './live-case.ts';

/** How to include the tools that could write: only a local target gets the plain suggestion. */
export function allowWritesHint(target: ResolvedTarget): string {
  if (target.kind !== 'url' || isLocalTarget(target))
    return 'the target is local: rerun with --allow-writes to include them';
  const host = new URL(target.url).host;
  return `--allow-writes would call them on ${host}: use it only against a disposable deployment`;
}

export interface LivePlan {
  /** What was tested, e.g. `http://127.0.0.1:3000/mcp (wire 2025-11-25)`. */
  label: string;
  cases: LiveCase[];
  /** Tools whose calls were not made because they could write, and how to include them. */
  notCalled: { tools: string[]; hint: string };
  /** The negotiated revision (spec links point at it), when a handshake completed. */
  revision?: string;
  close(): Promise<void>;
}

/** pytest-mcp-tools' endpoint label: `POST /mcp`, `stdio`, `in-process`. */
function endpointLabel(target: ResolvedTarget): string {
  if (target.kind === 'url') return `POST ${new URL(endpointUrl(target.url)).pathname}`;
  return target.kind === 'server' ? 'in-process' : 'stdio';
}

/** Connects, lists the tools and returns every generated case (a failed connection is one failing case). */
export async function planLiveTests(target: Target, options: LiveTestOptions = {}): Promise<LivePlan> {
  const resolved = resolveTarget(target);
  const where = endpointLabel(resolved);
  let client: ProbeClient;
  try {
    client = await connect(resolved, options);
  } catch (err) {
    const reason = err instanceof ConnectError ? err.message : String(err);
    const fix = err instanceof ConnectError ? err.fix : undefined;
    return {
      label: resolved.kind === 'url' ? resolved.url : where,
      cases: [
        {
          name: 'test_mcp_tools[NO ENDPOINT FOUND]',
          check: 'test.connect',
          // Worded as check's `connection` finding (the test's name says no endpoint was found).
          run: async () => fail(reason, undefined, undefined, fix),
        },
      ],
      notCalled: { tools: [], hint: allowWritesHint(resolved) },
      close: async () => {},
    };
  }
  if (resolved.kind === 'command') client.reopen = () => openLink(resolved, options);
  const version = client.wire === '2026' ? '2026-07-28' : client.protocolVersion;
  const cases: LiveCase[] = [
    {
      name: `test_mcp_tools[${where}]`,
      check: 'test.connect',
      run: async () => ({ notes: [`wire ${client.wire}, protocol ${version}`] }),
    },
  ];
  if (resolved.kind === 'url') {
    const origin = new URL(endpointUrl(resolved.url)).origin;
    for (const path of ['/sse', '/messages']) {
      const status = await probeEndpoint(origin + path, options.headers);
      if (status !== undefined && status >= 200 && status < 300) {
        cases.push({
          name: `test_deprecated_endpoint[GET ${path}]`,
          check: 'test.deprecated-endpoint',
          run: async () => ({
            warnings: [
              `${path} answers (HTTP ${status}): the HTTP+SSE transport is deprecated since 2025-03-26; serve streamable HTTP only`,
            ],
          }),
        });
      }
    }
  }

  const listed = await client.listAll('tools/list', 'tools');
  const tools = listed.items.filter(isObject);
  cases.push(...listingCases(tools, listed.problem));
  const annotated = tools.filter((t) => isObject(t.annotations));
  if (annotated.length > 0) cases.push(...annotationCases(annotated));
  const hint = options.allowWritesHint ?? allowWritesHint(resolved);
  const toolOptions = { ...options, allowWritesHint: hint };
  const notCalled: string[] = [];
  for (const tool of tools) {
    if (typeof tool.name !== 'string' || tool.name === '') continue;
    if (writeSkip(tool, toolOptions) !== undefined) notCalled.push(tool.name);
    cases.push(...toolCases(client, tool, toolOptions));
  }
  cases.push(...protocolCases(client));
  if (client.link.transport === 'stdio') {
    cases.push({
      name: 'test_stdout_carries_only_jsonrpc',
      check: 'test.stdout',
      run: async () => {
        const junk = stdoutJunk(client.link.junk);
        if (junk !== undefined) fail(junk);
        return {};
      },
    });
  }
  const guarded = guardStops(client);
  return {
    label: `${resolved.kind === 'url' ? endpointUrl(resolved.url) : where} (wire ${client.wire}, protocol ${version})`,
    cases: cases.map((k) => (k.skip === undefined ? { ...k, run: () => guarded(k.name, k.run) } : k)),
    notCalled: { tools: notCalled, hint },
    ...(version !== undefined ? { revision: version } : {}),
    close: () => client.close(),
  };
}

function listingCases(tools: JsonObject[], problem: string | undefined): LiveCase[] {
  const name = (t: JsonObject) => (typeof t.name === 'string' ? t.name : JSON.stringify(t).slice(0, 60));
  return [
    {
      name: 'test_list_tools_from_basic_server',
      check: 'test.list-tools',
      run: async () => {
        const issues: string[] = problem ? [problem] : [];
        const unnamed = unnamedTools(tools);
        if (unnamed !== undefined) issues.push(unnamed);
        for (const t of tools) {
          if (!isObject(t.inputSchema) || t.inputSchema.type !== 'object')
            issues.push(`${name(t)}: inputSchema is not an object schema`);
          if (
            t.outputSchema !== undefined &&
            (!isObject(t.outputSchema) || t.outputSchema.type !== 'object')
          ) {
            issues.push(`${name(t)}: outputSchema is not an object schema`);
          }
        }
        if (issues.length > 0) fail(issues.join('; '));
        return { notes: [`${tools.length} tools`] };
      },
    },
    // Worded as check's tools.* findings (tool-list-rules.ts).
    ...(
      [
        ['test_tools_have_descriptions', 'test.descriptions', undescribedTools],
        ['test_tools_have_names', 'test.names', misnamedTools],
        ['test_tools_have_unique_names', 'test.unique-names', duplicateToolNames],
      ] as const
    ).map(
      ([caseName, check, rule]): LiveCase => ({
        name: caseName,
        check,
        run: async () => {
          const finding = rule(tools);
          if (finding !== undefined) fail(finding);
          return {};
        },
      }),
    ),
  ];
}

function annotationCases(annotated: JsonObject[]): LiveCase[] {
  return [
    {
      name: 'test_tools_have_titles',
      check: 'test.titles',
      run: async () => {
        const untitled = annotated
          .filter((t) => {
            const title = typeof t.title === 'string' ? t.title : (t.annotations as JsonObject).title;
            return typeof title !== 'string' || title.trim() === '';
          })
          .map((t) => String(t.name));
        if (untitled.length > 0)
          fail(`annotated tools without a title (tool.title or annotations.title): ${untitled.join(', ')}`);
        return {};
      },
    },
    {
      name: 'test_tool_annotations_are_consistent',
      check: 'test.annotations',
      run: async () => {
        const contradictions: string[] = [];
        const meaningless: string[] = [];
        for (const t of annotated) {
          const a = t.annotations as JsonObject;
          if (a.readOnlyHint !== true) continue;
          if (a.destructiveHint === true) contradictions.push(String(t.name));
          if (a.idempotentHint === true) meaningless.push(String(t.name));
        }
        if (contradictions.length > 0) {
          fail(`readOnlyHint with destructiveHint contradict each other: ${contradictions.join(', ')}`);
        }
        // The spec reads idempotentHint only when readOnlyHint is false: beside it, it says
        // nothing, and is not wrong (official servers do it). A note, not a finding.
        const notes =
          meaningless.length > 0
            ? [
                `note: idempotentHint says nothing beside readOnlyHint (read only when readOnlyHint is false): ${meaningless.join(', ')}`,
              ]
            : [];
        return { notes };
      },
    },
  ];
}

/** The protocol probes, each the one `check` sends for the rule, judged by the same function. */
function protocolCases(client: ProbeClient): LiveCase[] {
  return [
    {
      name: 'test_invalid_request',
      check: 'test.invalid-request',
      run: async () => {
        const id = client.nextId();
        const answer = await client.rawInvalid({ jsonrpc: '2.0', id, method: 'tools/call', params: null });
        const j = judgeInvalidRequest(answer, client.wire ?? '2025', client.link.transport);
        return judged('tools/call with params: null', id, answer, j, { nullIdOk: true });
      },
    },
    {
      name: 'test_method_not_found',
      check: 'test.method-not-found',
      run: async () => {
        const id = client.nextId();
        const answer = await client.request(UNKNOWN_METHOD, {}, { id });
        return judged(UNKNOWN_METHOD, id, answer, judgeMethodNotFound(answer, client.wire ?? '2025'));
      },
    },
    {
      name: 'test_invalid_cursor',
      check: 'test.invalid-cursor',
      run: async () => {
        // Every paginated list the server declares, on the wire of the run, as check asks them.
        const probes = new CursorProbes();
        await probes.probe(client, client.wire ?? '2025', serverCapabilities(client));
        const j = probes.judgement();
        if (j.status === 'not-run') return { skipped: j.reason };
        if (j.status === 'warn') throw new LiveTestFailure(j.reason, undefined, undefined, undefined, true);
        return { notes: [j.reason] };
      },
    },
    {
      name: 'test_unknown_tool',
      check: 'test.unknown-tool',
      run: async () => {
        const id = client.nextId();
        const answer = await client.request('tools/call', { name: UNKNOWN_TOOL, arguments: {} }, { id });
        return judged(`tools/call of unknown tool ${UNKNOWN_TOOL}`, id, answer, judgeUnknownTool(answer));
      },
    },
  ];
}

/** What the server declared at the handshake of the run's wire. */
function serverCapabilities(client: ProbeClient): JsonObject {
  const from = client.wire === '2026' ? client.discoverResult : client.initializeResult;
  return isObject(from?.capabilities) ? from.capabilities : {};
}

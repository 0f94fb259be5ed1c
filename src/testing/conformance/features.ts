/**
 * The feature checks of the conformance report: tools (listing, pagination, names, schemas,
 * unknown tool, structuredContent), resources and prompts when the server declares them.
 * Rules: MCP 2025-11-25 "Tools", "Resources", "Prompts" and "Pagination".
 */

import { ErrorCode } from '../../base/errors.ts';
import { isObject, type JsonObject } from '../../base/jsonrpc.ts';
import { describeAnswer, type ProbeClient } from '../client/probe-client.ts';
import { compileSchema, validateValue } from '../schema/json-schema.ts';
import {
  describeFinding,
  INFORMATIONAL_RULES,
  PORTABILITY_CLIENTS,
  type PortabilityFinding,
  type PortabilityRule,
  portabilityFinding,
  toolPortability,
} from '../schema/portability.ts';
import { generateInputs } from '../schema/values.ts';
import {
  type CallErrorFinding,
  internalErrorReason,
  judgeCallError,
  judgeUnknownResource,
  judgeUnknownTool,
  UNKNOWN_TOOL,
} from './protocol-rules.ts';
import { listSome, type Recorder } from './recorder.ts';
import { taskSupportOf } from './task-call.ts';
import {
  duplicateToolNames,
  toolLabel as label,
  misnamedTools,
  undescribedTools,
} from './tool-list-rules.ts';

/** At most this many tools are called by the structuredContent check. */
const MAX_STRUCTURED_CALLS = 10;

/**
 * The arguments `check` calls a read-only tool with: its first example that satisfies its
 * inputSchema, else the simplest generated input (every required field at its simplest value).
 */
export function safeArguments(tool: JsonObject): JsonObject | undefined {
  const schema = tool.inputSchema;
  if (!isObject(schema)) return undefined;
  const examples = Array.isArray(schema.examples) ? schema.examples : [];
  for (const example of examples)
    if (isObject(example) && validateValue(schema, example).length === 0) return example;
  const generated = generateInputs(schema, { max: 1 });
  return generated.ok ? generated.cases[0]?.args : undefined;
}

/** Lists every tool (following cursors) and checks the listing; returns the tools for the callers. */
export async function checkTools(
  c: ProbeClient,
  rec: Recorder,
  declared: boolean,
): Promise<JsonObject[] | undefined> {
  if (!declared) {
    for (const id of ['tools.list', 'tools.unknown-tool'] as const)
      rec.notRun(id, 'the server declares no tools capability');
    return undefined;
  }
  const listed = await c.listAll('tools/list', 'tools');
  const firstPageFailed = listed.problem !== undefined && listed.pages === 1 && listed.items.length === 0;
  if (firstPageFailed) {
    const internal = internalErrorReason('tools/list', listed.answer);
    if (internal !== undefined) rec.notRun('tools.list', internal);
    else rec.fail('tools.list', listed.problem as string);
    return undefined;
  }
  const notObjects = listed.items.filter((t) => !isObject(t)).length;
  rec.expect(
    'tools.list',
    notObjects ? [`${notObjects} entries are not objects`] : [],
    `${listed.items.length} tools`,
  );
  const tools = listed.items.filter(isObject);
  if (listed.problem !== undefined) rec.fail('tools.pagination', listed.problem);
  else if (listed.pages > 1) rec.pass('tools.pagination', `${listed.pages} pages`);
  else rec.notRun('tools.pagination', 'one page: no cursor to follow');

  const fields: string[] = [];
  tools.forEach((t, i) => {
    const missing = [
      typeof t.name === 'string' ? undefined : 'name',
      isObject(t.inputSchema) ? undefined : 'inputSchema',
    ].filter(Boolean);
    if (missing.length > 0) fields.push(`${label(t, i)} lacks ${missing.join(', ')}`);
  });
  rec.expect('tools.fields', fields);
  // Worded as test words them (tool-list-rules.ts).
  rec.found('tools.name-format', misnamedTools(tools));
  rec.found('tools.unique-names', duplicateToolNames(tools));
  rec.found('tools.descriptions', undescribedTools(tools));
  rec.expect(
    'tools.input-schema-object',
    tools
      .filter((t) => !isObject(t.inputSchema) || t.inputSchema.type !== 'object')
      .map(
        (t, i) =>
          `${label(t, i)} has type ${JSON.stringify(isObject(t.inputSchema) ? t.inputSchema.type : t.inputSchema)}`,
      ),
  );
  const withOutput = tools.filter((t) => t.outputSchema !== undefined);
  if (withOutput.length === 0) {
    rec.notRun('tools.output-schema-object', 'no tool declares an outputSchema');
  } else {
    rec.expect(
      'tools.output-schema-object',
      withOutput
        .filter((t) => !isObject(t.outputSchema) || t.outputSchema.type !== 'object')
        .map(
          (t, i) =>
            `${label(t, i)} has type ${JSON.stringify(isObject(t.outputSchema) ? t.outputSchema.type : t.outputSchema)}`,
        ),
    );
  }
  const invalid: string[] = [];
  tools.forEach((t, i) => {
    for (const key of ['inputSchema', 'outputSchema'] as const) {
      if (!isObject(t[key])) continue;
      const compiled = compileSchema(t[key]);
      if (!compiled.ok) invalid.push(`${label(t, i)} ${key}: ${compiled.error}`);
    }
  });
  rec.expect('tools.schemas-valid', invalid);
  checkPortability(rec, tools);

  const unknown = await c.callTool(UNKNOWN_TOOL, {}, { timeoutMs: c.requestTimeoutMs });
  rec.judge('tools.unknown-tool', judgeUnknownTool(unknown));
  await checkStructuredContent(c, rec, tools);
  return tools;
}

/** One house-rule check per construct clients drop or reject, listing the tools and the clients. */
function checkPortability(rec: Recorder, tools: JsonObject[]): void {
  // Per rule, each tool with its findings of that rule.
  const byRule = new Map<PortabilityRule, [string, PortabilityFinding[]][]>();
  tools.forEach((t, i) => {
    const mine = new Map<PortabilityRule, PortabilityFinding[]>();
    for (const f of toolPortability(t)) mine.set(f.rule, [...(mine.get(f.rule) ?? []), f]);
    for (const [rule, found] of mine) byRule.set(rule, [...(byRule.get(rule) ?? []), [label(t, i), found]]);
  });
  for (const rule of Object.keys(PORTABILITY_CLIENTS) as PortabilityRule[]) {
    const found = byRule.get(rule) ?? [];
    if (found.length === 0) rec.pass(`portability.${rule}`);
    else if (INFORMATIONAL_RULES.has(rule)) {
      const items = found.map(([tool, fs]) => `${tool} ${fs.map(describeFinding).join(', ')}`);
      rec.pass(`portability.${rule}`, `note: ${listSome(items)} (${PORTABILITY_CLIENTS[rule]})`);
    } else rec.fail(`portability.${rule}`, portabilityFinding(rule, found));
  }
}

/**
 * Calls read-only tools (`readOnlyHint: true`) that declare an outputSchema, with their first
 * valid example or the simplest generated input: a tool without that hint is never called by
 * `check` (it may have side effects).
 */
async function checkStructuredContent(c: ProbeClient, rec: Recorder, tools: JsonObject[]): Promise<void> {
  const callable = tools.filter(
    (t) =>
      typeof t.name === 'string' &&
      isObject(t.outputSchema) &&
      isObject(t.annotations) &&
      t.annotations.readOnlyHint === true &&
      // Run only as a task: judged by tasks.result (conformance/tasks.ts).
      taskSupportOf(t) !== 'required' &&
      safeArguments(t) !== undefined,
  );
  if (callable.length === 0) {
    for (const id of CALL_RULES) rec.notRun(id, 'no read-only tool with an outputSchema and a valid input');
    return;
  }
  const problems: string[] = [];
  const callErrors: Record<CallErrorFinding['rule'], string[]> = {
    'tools.execution-error': [],
    'tools.schema-accepted': [],
  };
  let checked = 0;
  let answered = 0;
  // The tools a pass speaks for: test calls every read-only tool, check only these.
  const called: string[] = [];
  for (const t of callable.slice(0, MAX_STRUCTURED_CALLS)) {
    const args = safeArguments(t);
    const answer = await c.callTool(t.name as string, args);
    if (answer.kind === 'error' && answer.error.code === ErrorCode.MissingRequiredClientCapability) continue;
    if (answer.kind === 'error') {
      // A failing call: house findings with the server's message, never the output schema's MUST.
      const found = judgeCallError(t.name as string, args, answer.error);
      callErrors[found.rule].push(found.reason);
      answered++;
      called.push(t.name as string);
      continue;
    }
    if (answer.kind === 'result') {
      answered++;
      called.push(t.name as string);
    }
    if (answer.kind !== 'result') {
      problems.push(`${t.name}: got ${describeAnswer(answer)}`);
      continue;
    }
    if (answer.result.isError === true || answer.result.resultType === 'input_required') continue;
    checked++;
    if (!isObject(answer.result.structuredContent)) {
      problems.push(`${t.name}: no structuredContent although it declares an outputSchema`);
      continue;
    }
    const issues = validateValue(t.outputSchema, answer.result.structuredContent);
    if (issues.length > 0) problems.push(`${t.name}: ${issues.slice(0, 3).join(', ')}`);
  }
  for (const id of CALL_RULES) {
    if (callErrors[id].length > 0) rec.fail(id, listSome(callErrors[id]));
    else if (answered === 0) rec.notRun(id, 'no call was answered');
    else
      rec.pass(
        id,
        `${answered} calls answered (${called.join(', ')}: the read-only tools with an outputSchema)`,
      );
  }
  if (problems.length === 0 && checked === 0) {
    rec.notRun(
      'tools.structured-content',
      'no call returned a result to compare (isError, or a JSON-RPC error)',
    );
    return;
  }
  rec.expect('tools.structured-content', problems, `${checked} tools called`);
}

/** The rules a call answered with a JSON-RPC error falls under (protocol-rules.ts). */
const CALL_RULES = ['tools.execution-error', 'tools.schema-accepted'] as const;

export async function checkResources(c: ProbeClient, rec: Recorder): Promise<void> {
  const listed = await c.listAll('resources/list', 'resources');
  const bad = listed.items
    .filter((r) => !isObject(r) || typeof r.uri !== 'string' || typeof r.name !== 'string')
    .map(
      (r) =>
        `${JSON.stringify(r).slice(0, 80)} lacks ${isObject(r) && typeof r.uri === 'string' ? 'a name' : 'a uri'}`,
    );
  const templates = await c.request('resources/templates/list', {});
  if (templates.kind === 'result') {
    const list = templates.result.resourceTemplates;
    if (!Array.isArray(list)) bad.push('resources/templates/list result has no resourceTemplates array');
    else {
      for (const t of list) {
        if (!isObject(t) || typeof t.uriTemplate !== 'string' || typeof t.name !== 'string') {
          bad.push(`template ${JSON.stringify(t).slice(0, 80)} lacks uriTemplate or name`);
        }
      }
    }
  }
  const internal =
    listed.items.length === 0 ? internalErrorReason('resources/list', listed.answer) : undefined;
  if (internal !== undefined) rec.notRun('resources.list', internal);
  else {
    if (listed.problem !== undefined) bad.unshift(listed.problem);
    rec.expect('resources.list', bad, `${listed.items.length} resources`);
  }
  await checkUnknownResource(c, rec);

  const first = listed.items.find((r) => isObject(r) && typeof r.uri === 'string');
  if (!first) {
    rec.notRun('resources.read', 'no resource listed');
    return;
  }
  const read = await c.request('resources/read', { uri: first.uri as string });
  const readFailed = internalErrorReason(`resources/read ${first.uri}`, read);
  if (readFailed !== undefined) {
    rec.notRun('resources.read', readFailed);
    return;
  }
  const problems: string[] = [];
  if (read.kind !== 'result') problems.push(`reading ${first.uri} got ${describeAnswer(read)}`);
  else {
    const contents = read.result.contents;
    if (!Array.isArray(contents) || contents.length === 0)
      problems.push(`reading ${first.uri} returned no contents`);
    else {
      for (const item of contents) {
        if (
          !isObject(item) ||
          typeof item.uri !== 'string' ||
          (typeof item.text !== 'string' && typeof item.blob !== 'string')
        ) {
          problems.push(`a content item of ${first.uri} lacks uri, or text/blob`);
        }
      }
    }
  }
  rec.expect('resources.read', problems, String(first.uri));
}

/** resources/read of a URI no server serves (a scheme of the kit's own): resource not found. */
async function checkUnknownResource(c: ProbeClient, rec: Recorder): Promise<void> {
  const answer = await c.request('resources/read', {
    uri: `mcp-toolkit-check://no-such-resource/${Date.now()}`,
  });
  const wire = c.wire ?? '2025';
  rec.judge('resources.unknown', judgeUnknownResource(answer, wire), { mustOnFail: wire === '2026' });
}

export async function checkPrompts(c: ProbeClient, rec: Recorder): Promise<void> {
  const listed = await c.listAll('prompts/list', 'prompts');
  const internal = listed.items.length === 0 ? internalErrorReason('prompts/list', listed.answer) : undefined;
  if (internal !== undefined) {
    for (const id of ['prompts.list', 'prompts.arguments'] as const) rec.notRun(id, internal);
    return;
  }
  const bad: string[] = listed.problem !== undefined ? [listed.problem] : [];
  for (const p of listed.items) {
    if (!isObject(p) || typeof p.name !== 'string') {
      bad.push(`${JSON.stringify(p).slice(0, 80)} lacks a name`);
      continue;
    }
    if (p.arguments === undefined) continue;
    if (!Array.isArray(p.arguments)) bad.push(`${p.name}: arguments is not an array`);
    else {
      for (const a of p.arguments) {
        if (!isObject(a) || typeof a.name !== 'string') bad.push(`${p.name}: an argument lacks a name`);
        else if (a.required !== undefined && typeof a.required !== 'boolean')
          bad.push(`${p.name}.${a.name}: required is not a boolean`);
      }
    }
  }
  rec.expect('prompts.list', bad, `${listed.items.length} prompts`);

  // A prompt that lists no required argument must be served without any: otherwise it
  // needs an argument it does not declare.
  const open = listed.items.filter(
    (p) =>
      isObject(p) &&
      typeof p.name === 'string' &&
      !(Array.isArray(p.arguments) && p.arguments.some((a) => isObject(a) && a.required === true)),
  );
  if (open.length === 0) {
    rec.notRun('prompts.arguments', 'every prompt has required arguments');
    return;
  }
  const problems: string[] = [];
  const needInput: string[] = [];
  for (const p of open.slice(0, 10)) {
    const got = await c.request('prompts/get', { name: p.name as string, arguments: {} });
    // A prompt that needs a client capability this client does not declare says nothing about its arguments.
    if (got.kind === 'error' && got.error.code === ErrorCode.MissingRequiredClientCapability)
      needInput.push(p.name as string);
    else if (got.kind === 'result' && got.result.resultType === 'input_required')
      needInput.push(p.name as string);
    else if (got.kind !== 'result')
      problems.push(
        `${p.name} lists no required argument but prompts/get without any got ${describeAnswer(got)}`,
      );
    else if (!Array.isArray(got.result.messages))
      problems.push(`${p.name}: the result has no messages array`);
  }
  rec.expect(
    'prompts.arguments',
    problems,
    needInput.length > 0 ? `not judged (need client input): ${needInput.join(', ')}` : undefined,
  );
}

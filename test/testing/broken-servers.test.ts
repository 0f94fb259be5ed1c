/**
 * The corpus of broken fixture servers (official SDK v1, one defect each) through both engines:
 * the conformance report must fail exactly the checks meant for the defect, and the generated
 * live tests exactly the tests meant for it. The good server passes both, strict included.
 * The servers run on in-memory streams; transports.test.ts covers real processes and HTTP.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { WireChoice } from '../../src/testing/client/targets.ts';
import { resolveTarget } from '../../src/testing/client/targets.ts';
import { conformanceReport, formatReport } from '../../src/testing/conformance/report.ts';
import { allowWritesHint, type LiveTestOptions } from '../../src/testing/live/plan.ts';
import { DEFECTS, type DefectName } from '../fixtures/broken-servers/defects.ts';
import { FAST, fixtureStreams, PATIENT, runPlan } from './helpers/fixtures.ts';
import { assertOneWording, SHARED_RULES } from './helpers/one-wording.ts';

interface Expected {
  /** Conformance check ids that must fail (and no others). */
  check?: string[];
  /** Generated tests that must fail (names, or patterns), and no others. */
  test?: (string | RegExp)[];
  /** Generated tests that must pass with a warning. */
  warn?: string[];
  wire?: WireChoice;
  live?: LiveTestOptions;
}

/** Defects of the HTTP transport only: test/testing/http-corpus.test.ts. */
type HttpOnly =
  | 'sse-endpoint'
  | 'no-origin-check'
  | 'no-host-check'
  | 'deleted-session-400'
  | 'deleted-session-200'
  | 'version-header-ignored'
  | 'accept-ignored'
  | 'parse-error-html'
  | 'batch-accepted'
  | 'get-not-sse'
  | 'delete-fails'
  | 'pre-initialize-404';

/** Defects that stop the server (it exits, or answers nothing): test/testing/server-stops.test.ts. */
type ProcessOnly = 'crash-on-call' | 'hang-on-call';

const EXPECTED: Record<Exclude<DefectName, HttpOnly | ProcessOnly>, Expected> = {
  none: {},
  'answers-notifications': { check: ['notifications.unanswered'] },
  // Over stdio the rule is the client's (Lifecycle: it "SHOULD NOT send"): no finding. HTTP: http-corpus.test.ts.
  'pre-initialize-accepted': {},
  // check sends these probes on the 2025 wire (and says so): test sends them there too, so the
  // two reports judge one probe and word it alike.
  'params-null-dropped': {
    check: ['jsonrpc.invalid-request'],
    test: ['test_invalid_request'],
    live: { wire: '2025' },
  },
  // Answered, with another code: a warning in both engines (the grades are pinned below).
  'params-null-parse-error': {
    check: ['jsonrpc.invalid-request'],
    test: ['test_invalid_request'],
    live: { wire: '2025' },
  },
  'unknown-method-wrong-code': {
    check: ['jsonrpc.method-not-found', '2026.method-not-found'],
    test: ['test_method_not_found'],
    live: { wire: '2025' },
  },
  'no-jsonrpc-version': { check: ['jsonrpc.version'], test: ['test_method_not_found'] },
  'wrong-id-echo': { check: ['jsonrpc.id-echo'], test: ['test_method_not_found'] },
  'result-and-error': { check: ['jsonrpc.result-xor-error'], test: ['test_method_not_found'] },
  'no-version-negotiation': { check: ['initialize.version-negotiation'] },
  'no-server-info': { check: ['initialize.server-info'] },
  'no-capabilities': { check: ['initialize.capabilities'] },
  'no-protocol-version': { check: ['initialize.protocol-version', 'initialize.version-negotiation'] },
  'stdout-junk': { check: ['stdio.stdout'], test: ['test_stdout_carries_only_jsonrpc'] },
  'tools-list-not-array': { check: ['tools.list'], test: ['test_list_tools_from_basic_server'] },
  'tool-without-description': {
    check: ['tools.descriptions'],
    test: ['test_tools_have_descriptions'],
  },
  'tool-without-input-schema': {
    check: ['tools.fields', 'tools.input-schema-object'],
    test: ['test_list_tools_from_basic_server'],
  },
  'unknown-tool-not-error': { check: ['tools.unknown-tool'], test: ['test_unknown_tool'] },
  // A protocol error with another code than the spec's example: conformant, a note only.
  'unknown-tool-method-not-found': {},
  'empty-description': { check: ['tools.descriptions'], test: ['test_tools_have_descriptions'] },
  'duplicate-name': { check: ['tools.unique-names'], test: ['test_tools_have_unique_names'] },
  'bad-name': { check: ['tools.name-format'], test: ['test_tools_have_names'] },
  'input-schema-not-object': {
    check: ['tools.input-schema-object'],
    test: ['test_list_tools_from_basic_server'],
  },
  'output-schema-not-object': {
    check: ['tools.output-schema-object', 'tools.structured-content'],
    test: ['test_list_tools_from_basic_server', /^test_add_numbers_(example|schema)_\d+$/],
  },
  'structured-content-mismatch': {
    check: ['tools.structured-content'],
    test: [/^test_get_greeting_(example|schema)_\d+$/],
  },
  'broken-pagination': { check: ['tools.pagination'], test: ['test_list_tools_from_basic_server'] },
  'invalid-cursor-served': { check: ['pagination.invalid-cursor'], test: ['test_invalid_cursor'] },
  'readonly-destructive': { test: ['test_tool_annotations_are_consistent'] },
  // Meaningless beside readOnlyHint but not wrong: a note (pinned in the verdicts test), no finding.
  'readonly-idempotent': {},
  'missing-title': { test: ['test_tools_have_titles'] },
  'missing-field-description': { test: ['test_schedule_note_input_schema_field_descriptions'] },
  'invalid-field-type': {
    check: ['tools.schemas-valid'],
    test: ['test_schedule_note_input_schema_field_types', 'test_schedule_note_example_0'],
  },
  'invalid-example': { test: ['test_add_numbers_example_0'] },
  'example-fails': { test: ['test_set_mode_example_0'] },
  // A failing call: house findings with the server's message, not the output schema's MUST (issue 49).
  'tool-backend-down': {
    check: ['tools.execution-error'],
    test: [/^test_get_greeting_(example|schema)_\d+$/],
  },
  'stricter-than-schema': {
    check: ['tools.schema-accepted'],
    test: [/^test_get_greeting_(example_0|schema_\d+)$/],
  },
  'accepts-invalid-input': { test: [/^test_\w+_(missing|wrong_type|invalid)_\w+$/] },
  'no-examples': { test: ['test_schedule_note_has_examples'], live: { strict: true } },
  'no-output-schema': { test: ['test_set_mode_has_output_schema'], live: { strict: true } },
  'type-union': { check: ['portability.type-union'], test: ['test_get_greeting_schema_portability'] },
  'property-union': { check: ['portability.union'], test: ['test_get_greeting_schema_portability'] },
  'schema-ref': { check: ['portability.ref'], test: ['test_schedule_note_schema_portability'] },
  // Allowed by the spec and refused by no client we know of: a note, no finding (pinned below).
  'dollar-schema': {},
  'untyped-property': {
    check: ['portability.untyped-property'],
    test: ['test_set_mode_schema_portability'],
  },
  'unportable-format': { check: ['portability.format'], test: ['test_schedule_note_schema_portability'] },
  'boolean-schema': {
    check: ['portability.boolean-schema'],
    test: ['test_add_numbers_schema_portability'],
  },
  // Required with a default, the default applied: a contradictory schema, no validation failure.
  'required-default': {
    check: ['portability.required-default'],
    test: ['test_set_mode_schema_portability', 'test_set_mode_missing_level'],
  },
  'task-required-served': { check: ['tasks.required-without-task'] },
  'task-required-refused': {},
  // The task checks judge the 2025 wire (the fixture declares no tasks extension on 2026).
  'task-plain-result': { check: ['tasks.create-result'], test: [/^test_research_/], live: { wire: '2025' } },
  'task-bad-status': {
    check: ['tasks.status'],
    test: [/^test_research_schema_\d+$/],
    live: { wire: '2025' },
  },
  'task-get-fails': { check: ['tasks.get'], test: [/^test_research_schema_\d+$/], live: { wire: '2025' } },
  'task-result-invalid': {
    check: ['tasks.result'],
    test: [/^test_research_schema_\d+$/],
    live: { wire: '2025' },
  },
  'ping-error': { check: ['utilities.ping'] },
  'set-level-fails': { check: ['logging.set-level'] },
  'invalid-level-internal-error': { check: ['logging.invalid-level'] },
  'completion-malformed': { check: ['completions.complete'] },
  'subscribe-fails': { check: ['resources.subscribe'] },
  'resource-unreadable': { check: ['resources.read'] },
  // -32603 is the code for the server's own failure: not run, never a MUST failure (issue 49).
  'resource-read-internal-error': {},
  'resources-list-internal-error': {},
  'unknown-resource-method-not-found': { check: ['resources.unknown'] },
  'resource-list-malformed': { check: ['resources.list'] },
  'prompt-list-malformed': { check: ['prompts.list'] },
  'prompt-undeclared-argument': { check: ['prompts.arguments'] },
  'no-2026-wire': { check: ['2026.discover', 'connection'], wire: '2026' },
  'no-result-type': { check: ['2026.result-type'] },
  'envelope-not-checked': { check: ['2026.missing-envelope'] },
};

const matches = (name: string, want: string | RegExp) =>
  typeof want === 'string' ? name === want : want.test(name);

/** The shared rules whose findings the defects above compared (assertOneWording). */
const compared = new Set<string>();

describe('broken fixture servers', { concurrency: 4 }, () => {
  for (const [defect, expected] of Object.entries(EXPECTED) as [DefectName, Expected][]) {
    test(`${defect}: ${DEFECTS[defect]}`, async () => {
      // A task is followed to its end within the call timeout: the task defects answer every
      // request, so they get timeouts no loaded machine runs out of.
      const timeouts = defect.startsWith('task-') ? PATIENT : FAST;
      const report = await conformanceReport(await fixtureStreams(defect), {
        ...timeouts,
        wire: expected.wire ?? 'auto',
      });
      // A finding is a failure (MUST) or a warning (SHOULD, house rules); levels are pinned below.
      const found = report.checks.filter((c) => c.status === 'fail' || c.status === 'warn');
      assert.deepEqual(
        found.map((c) => c.id).sort(),
        [...(expected.check ?? [])].sort(),
        JSON.stringify(found),
      );
      assert.equal(report.ok, !found.some((c) => c.status === 'fail'));

      const run = await runPlan(await fixtureStreams(defect), { ...timeouts, ...expected.live });
      const wanted = expected.test ?? [];
      const failed = [...run.failed.keys()];
      const unexpected = failed.filter((n) => !wanted.some((w) => matches(n, w)));
      assert.deepEqual(
        unexpected,
        [],
        `unexpected failures: ${JSON.stringify(Object.fromEntries(run.failed))}`,
      );
      for (const w of wanted)
        assert.ok(
          failed.some((n) => matches(n, w)),
          `${String(w)} should fail; failed: ${failed.join(', ')}`,
        );
      assert.deepEqual([...run.warned].sort(), [...(expected.warn ?? [])].sort());
      // One wording per rule: a rule both commands judge reads the same in both reports (when
      // both ran on the same wire: no-2026-wire's check runs on 2026 only).
      if (expected.wire === undefined)
        for (const id of assertOneWording(report, run.verdicts.values(), defect)) compared.add(id);
    });
  }

  test('the good server passes strict mode and both --invalid-input expectations it meets', async () => {
    const strict = await runPlan(await fixtureStreams('none'), { strict: true, invalidInput: 'error' });
    assert.deepEqual([...strict.failed.keys()], []);
    assert.ok(strict.names.includes('test_get_greeting_has_examples'));
    assert.ok(strict.names.includes('test_schedule_note_wrong_type_to'));
    // Just outside the declared range: a = -1001 and 1001 for minimum -1000, maximum 1000.
    for (const n of ['test_add_numbers_invalid_a_below_minimum', 'test_add_numbers_invalid_a_above_maximum'])
      assert.ok(strict.verdicts.get(n)?.status === 'pass', n);
    // It answers invalid input with -32602, so insisting on isError results fails every probe.
    const asResult = await runPlan(await fixtureStreams('none'), { invalidInput: 'result' });
    const failed = [...asResult.failed.keys()];
    assert.ok(failed.length > 5);
    assert.ok(
      failed.every((n) => /_(missing|wrong_type|invalid)_/.test(n)),
      failed.join(', '),
    );
  });

  test('a required property with a default that the server applies is a contradictory schema, not a MUST failure', async () => {
    const run = await runPlan(await fixtureStreams('required-default'), {});
    const v = run.verdicts.get('test_set_mode_missing_level');
    assert.equal(v?.status, 'warn', JSON.stringify(v));
    assert.equal(v?.level, 'HOUSE');
    assert.equal(v?.check, 'test.contradictory-schema');
    // Worded as check words the rule; what the call showed is a note.
    assert.match(v?.reason ?? '', /^"set_mode" inputSchema properties\.level: required and default 1\n/);
    assert.match(v?.notes.join() ?? '', /the call without level was served: the default applied/);
    const report = await conformanceReport(await fixtureStreams('required-default'), FAST);
    const c = report.checks.find((x) => x.id === 'portability.required-default');
    assert.equal(c?.status, 'warn');
    assert.equal(c?.reason, v?.reason);
  });

  test('one rule, one grade: params: null answered with -32700 warns in check and in test, with the same fix', async () => {
    const report = await conformanceReport(await fixtureStreams('params-null-parse-error'), FAST);
    const c = report.checks.find((x) => x.id === 'jsonrpc.invalid-request');
    assert.equal(c?.status, 'warn', JSON.stringify(c));
    assert.match(c?.reason ?? '', /answered, but with error -32700 .*the code for it is -32600/);
    assert.equal(report.ok, true);
    const run = await runPlan(await fixtureStreams('params-null-parse-error'));
    const v = run.verdicts.get('test_invalid_request');
    // One grade: the rule's level (MUST, as check prints it) with the status warn.
    assert.deepEqual([c?.level, v?.status, v?.level], ['MUST', 'warn', 'MUST'], JSON.stringify(v));
    assert.match(v?.reason ?? '', /answered, but with error -32700 .*the code for it is -32600/);
    assert.equal(v?.fix, c?.fix);
    const strict = await runPlan(await fixtureStreams('params-null-parse-error'), { strict: true });
    assert.equal(strict.verdicts.get('test_invalid_request')?.status, 'fail');
    const dropped = await runPlan(await fixtureStreams('params-null-dropped'));
    assert.deepEqual([dropped.verdicts.get('test_invalid_request')?.status], ['fail']);
  });

  test('an invalid log level answered with -32603 and the validator dump is the SHOULD warning, with its spec line', async () => {
    const report = await conformanceReport(await fixtureStreams('invalid-level-internal-error'), FAST);
    const c = report.checks.find((x) => x.id === 'logging.invalid-level');
    assert.deepEqual([c?.level, c?.status, report.ok], ['SHOULD', 'warn', true], JSON.stringify(c));
    assert.match(
      c?.reason ?? '',
      /got error -32603 \(the message is a raw validation dump\); .*SHOULD get -32602/,
    );
    assert.equal(
      c?.spec,
      'https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging#error-handling',
    );
    assert.match(c?.fix ?? '', /-32602/);
    const good = await conformanceReport(await fixtureStreams('none'), FAST);
    assert.equal(good.checks.find((x) => x.id === 'logging.invalid-level')?.status, 'pass');
  });

  test('an unknown tool answered with -32601 is a protocol error: a pass with a note, in check and test', async () => {
    const report = await conformanceReport(await fixtureStreams('unknown-tool-method-not-found'), FAST);
    const c = report.checks.find((x) => x.id === 'tools.unknown-tool');
    assert.equal(c?.status, 'pass', JSON.stringify(c));
    assert.match(c?.reason ?? '', /error -32601; the spec's example uses -32602/);
    const run = await runPlan(await fixtureStreams('unknown-tool-method-not-found'));
    const v = run.verdicts.get('test_unknown_tool');
    assert.equal(v?.status, 'pass', JSON.stringify(v));
    assert.match(v?.notes.join() ?? '', /-32601/);
    // An isError result is the finding, and its fix speaks of the isError result it got.
    const isError = await conformanceReport(await fixtureStreams('unknown-tool-not-error'), FAST);
    assert.match(
      isError.checks.find((x) => x.id === 'tools.unknown-tool')?.fix ?? '',
      /not an isError result/,
    );
  });

  test('a $schema key is informational: a pass with a note in check, a note in test', async () => {
    const report = await conformanceReport(await fixtureStreams('dollar-schema'), FAST);
    const c = report.checks.find((x) => x.id === 'portability.dollar-schema');
    assert.equal(c?.status, 'pass', JSON.stringify(c));
    assert.match(
      c?.reason ?? '',
      /^note: "get_greeting" inputSchema \(root\): \$schema .*no client known to refuse it/,
    );
    const run = await runPlan(await fixtureStreams('dollar-schema'));
    const v = run.verdicts.get('test_get_greeting_schema_portability');
    assert.equal(v?.status, 'pass', JSON.stringify(v));
    assert.match(v?.notes.join() ?? '', /\$schema/);
  });

  test('by default only readOnlyHint tools are called; each other tool gets one line for all its calls', async () => {
    const run = await runPlan(await fixtureStreams('accepts-invalid-input'), { allowWrites: false });
    // set_mode and schedule_note are not read-only: their calls and probes are one skipped line each.
    assert.match(
      run.skipped.get('test_set_mode_calls') ?? '',
      /^not called: annotated readOnlyHint: false, so a call could write \(the target is local: rerun with --allow-writes to include them\); \d+ calls not made: example_0, schema_0( to schema_\d+)?, /,
    );
    const note = run.skipped.get('test_schedule_note_calls') ?? '';
    assert.match(note, /calls not made: .*schema_0.*missing_to/);
    // Nothing else of the two tools is skipped: one line per tool, whatever the number of calls.
    const skippedOf = (tool: string) => [...run.skipped.keys()].filter((n) => n.startsWith(`test_${tool}_`));
    assert.deepEqual(skippedOf('set_mode'), ['test_set_mode_calls']);
    assert.deepEqual(skippedOf('schedule_note'), ['test_schedule_note_calls']);
    // Their metadata tests still run.
    assert.ok(run.names.includes('test_schedule_note_schema_portability'));
    assert.ok([...run.failed.keys()].every((n) => /^test_(get_greeting|add_numbers)_/.test(n)));
    assert.ok(run.failed.has('test_get_greeting_missing_name'));
    // --read-only wins over allowWrites.
    const strictRo = await runPlan(await fixtureStreams('none'), { allowWrites: true, readOnly: true });
    assert.ok(strictRo.skipped.has('test_set_mode_calls'));
    // With writes allowed every call is made, and no line stands for them.
    const all = await runPlan(await fixtureStreams('none'), { allowWrites: true });
    assert.ok(all.names.includes('test_set_mode_example_0'));
    assert.ok(!all.skipped.has('test_set_mode_example_0'));
    assert.ok(!all.names.some((n) => n.endsWith('_calls')));
  });

  test('verdicts: MUST fails, SHOULD and house rules warn (fail with strict); each has a fix and a link', async () => {
    const house = await conformanceReport(await fixtureStreams('empty-description'), FAST);
    const descriptions = house.checks.find((c) => c.id === 'tools.descriptions');
    assert.deepEqual([descriptions?.level, descriptions?.status, house.ok], ['HOUSE', 'warn', true]);
    const strict = await conformanceReport(await fixtureStreams('empty-description'), {
      ...FAST,
      strict: true,
    });
    assert.deepEqual(
      [strict.checks.find((c) => c.id === 'tools.descriptions')?.status, strict.ok],
      ['fail', false],
    );
    const should = await conformanceReport(await fixtureStreams('unknown-tool-not-error'), FAST);
    const unknown = should.checks.find((c) => c.id === 'tools.unknown-tool');
    // No MUST or SHOULD of Tools §Error Handling names it: a house warning.
    assert.deepEqual([unknown?.level, unknown?.status, should.ok], ['HOUSE', 'warn', true]);
    // The link is for the negotiated revision.
    assert.equal(
      unknown?.spec,
      'https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling',
    );
    const must = await conformanceReport(await fixtureStreams('unknown-method-wrong-code'), FAST);
    const code = must.checks.find((c) => c.id === 'jsonrpc.method-not-found');
    assert.deepEqual([code?.level, code?.status, must.ok], ['MUST', 'fail', false]);
    assert.match(code?.fix ?? '', /-32601/);
    for (const c of [...house.checks, ...must.checks]) {
      assert.ok(c.fix.length > 10 && /^https:\/\//.test(c.spec) && c.source !== '', JSON.stringify(c));
    }
    // The text output shows level, fix and rule for a finding, and the closing count line.
    const text = formatReport(must);
    assert.match(text, /^✗ jsonrpc\.method-not-found: unknown methods return -32601 \[MUST\]$/m);
    assert.match(text, /^ {4}fix: answer a method you do not serve with error -32601/m);
    assert.match(
      text,
      /^ {4}rule: JSON-RPC 2\.0 §5\.1 Error object: https:\/\/www\.jsonrpc\.org\/specification#error_object$/m,
    );
    assert.match(text, /2026-07-28\/basic\/transports#streamable-http$/m);
    assert.match(text, /^\d+ passed, 2 failed, 0 warnings, 5 not run$/m);
    // Generated tests: a house rule warns, a MUST fails, strict fails both.
    const live = await runPlan(await fixtureStreams('missing-field-description'));
    const field = live.verdicts.get('test_schedule_note_input_schema_field_descriptions');
    assert.deepEqual([field?.level, field?.status], ['HOUSE', 'warn']);
    const liveStrict = await runPlan(await fixtureStreams('missing-field-description'), { strict: true });
    assert.equal(
      liveStrict.verdicts.get('test_schedule_note_input_schema_field_descriptions')?.status,
      'fail',
    );
    const mismatch = await runPlan(await fixtureStreams('structured-content-mismatch'));
    const example = mismatch.verdicts.get('test_get_greeting_example_0');
    const idem = await runPlan(await fixtureStreams('readonly-idempotent'));
    const annotations = idem.verdicts.get('test_tool_annotations_are_consistent');
    assert.equal(annotations?.status, 'pass');
    assert.match(
      annotations?.notes.join() ?? '',
      /idempotentHint says nothing beside readOnlyHint .*: get_greeting/,
    );
    // An example is a house rule, but a result that breaks its outputSchema breaks a MUST.
    assert.deepEqual([example?.check, example?.level, example?.status], ['test.example', 'MUST', 'fail']);
  });

  test('a tool that requires a task: its refusal of a plain call passes; the live tests do not call it', async () => {
    const report = await conformanceReport(await fixtureStreams('task-required-refused'), FAST);
    const c = report.checks.find((x) => x.id === 'tasks.required-without-task');
    assert.deepEqual([c?.status, c?.reason], ['pass', 'research']);
    const served = await conformanceReport(await fixtureStreams('task-required-served'), FAST);
    assert.match(
      served.checks.find((x) => x.id === 'tasks.required-without-task')?.reason ?? '',
      /research called without a task got an isError result/,
    );
    const run = await runPlan(await fixtureStreams('task-required-served'));
    assert.match(
      run.skipped.get('test_research_calls') ?? '',
      /taskSupport is "required".*calls not made: .*schema_0.*missing_topic/,
    );
  });

  test('a tool that requires a task, on 2025: called as a task and polled to its end; each broken task rule fails under its own id', async () => {
    const good = await conformanceReport(await fixtureStreams('task-required-refused'), PATIENT);
    for (const id of ['tasks.create-result', 'tasks.status', 'tasks.get', 'tasks.result'])
      assert.equal(good.checks.find((x) => x.id === id)?.status, 'pass', id);
    const live = await runPlan(await fixtureStreams('task-required-refused'), { ...PATIENT, wire: '2025' });
    assert.deepEqual([...live.failed.keys()], []);
    assert.equal(live.verdicts.get('test_research_schema_0')?.status, 'pass');
    assert.equal(live.verdicts.get('test_research_missing_topic')?.status, 'pass');

    const cases = [
      [
        'task-plain-result',
        'tasks.create-result',
        'test.task-create',
        /got a plain result instead of a CreateTaskResult/,
      ],
      ['task-bad-status', 'tasks.status', 'test.task-status', /has status "running", not one of working/],
      ['task-get-fails', 'tasks.get', 'test.task-get', /tasks\/get for research's task \S+ got error -32602/],
      ['task-result-invalid', 'tasks.result', 'test.schema-call', /summary.*string|string.*summary/],
    ] as const;
    for (const [defect, id, family, reason] of cases) {
      const report = await conformanceReport(await fixtureStreams(defect), PATIENT);
      const c = report.checks.find((x) => x.id === id);
      assert.deepEqual([c?.status, c?.level], ['fail', 'MUST'], defect);
      assert.match(c?.reason ?? '', reason, defect);
      assert.match(
        c?.spec ?? '',
        /^https:\/\/modelcontextprotocol\.io\/specification\/2025-11-25\/basic\/utilities\/tasks#/,
      );
      assert.ok((c?.fix ?? '').length > 20, defect);
      const run = await runPlan(await fixtureStreams(defect), { ...PATIENT, wire: '2025' });
      const v = run.verdicts.get('test_research_schema_0');
      assert.deepEqual([v?.check, v?.level, v?.status], [family, 'MUST', 'fail'], defect);
      assert.match(v?.reason ?? '', reason, defect);
      if (family !== 'test.schema-call') assert.match(v?.spec ?? '', /basic\/utilities\/tasks#/);
    }
  });

  test('for a remote target the hint warns instead of suggesting --allow-writes', () => {
    assert.match(
      allowWritesHint(resolveTarget('https://mcp.example.com/mcp')),
      /on mcp\.example\.com: use it only against a disposable/,
    );
    assert.match(
      allowWritesHint(resolveTarget('http://127.0.0.1:3000/mcp')),
      /local: rerun with --allow-writes/,
    );
    assert.match(allowWritesHint(resolveTarget({ command: 'node', args: ['s.js'] })), /local/);
  });

  test('every conformance check and every generated test is caught by some defect', async () => {
    const report = await conformanceReport(await fixtureStreams('none'), FAST);
    const caughtChecks = new Set(Object.values(EXPECTED).flatMap((e) => e.check ?? []));
    // `connection` is caught by an unreachable target (transports.test.ts); an informational
    // check never finds anything (its note is pinned by the dollar-schema test above).
    const uncaught = report.checks
      .map((c) => c.id)
      .filter(
        (id) =>
          !caughtChecks.has(id) &&
          // server.stopped: a process that ends (server-stops.test.ts).
          !['connection', 'portability.dollar-schema', 'server.stopped'].includes(id),
      );
    assert.deepEqual(uncaught, []);
    const run = await runPlan(await fixtureStreams('none'), { strict: true });
    const patterns = Object.values(EXPECTED).flatMap((e) => [...(e.test ?? []), ...(e.warn ?? [])]);
    const families = (n: string) =>
      n
        .replace(/^test_(get_greeting|add_numbers|set_mode|schedule_note)_/, 'test_TOOL_')
        .replace(/_\d+$/, '_N');
    const generated = new Set(run.names.map(families));
    const caught = new Set(run.names.filter((n) => patterns.some((p) => matches(n, p))).map(families));
    // Covered elsewhere: the endpoint line (transports.test.ts: unreachable server, /sse warning).
    const missing = [...generated].filter((f) => !caught.has(f) && !f.startsWith('test_mcp_tools['));
    assert.deepEqual(missing, []);
  });
});

// After the suite (top-level tests run one after another): every rule both commands judge was
// triggered by some defect and worded alike. connection and server.stopped are compared where
// they are triggered: transports.test.ts (an unreachable target) and server-stops.test.ts.
test('check and test word alike every rule they share, each triggered by some defect', () => {
  const elsewhere = ['connection', 'server.stopped'];
  assert.deepEqual(
    [...SHARED_RULES.keys()].filter((id) => !compared.has(id) && !elsewhere.includes(id)).sort(),
    [],
  );
});

/**
 * The per-tool generated tests, named as pytest-mcp-tools names them: field descriptions and
 * types, example calls, schema-generated calls, strict-mode checks, and invalid-input probes.
 */
import { isObject, type JsonObject } from '../../base/jsonrpc.ts';
import type { Answer } from '../client/answer.ts';
import type { ProbeClient } from '../client/probe-client.ts';
import { declaredErrorProblems, ERRORS_META_KEY } from '../conformance/declared-errors.ts';
import { serverRunsTasks, taskSupportOf } from '../conformance/task-call.ts';
import { invalidTypes, missingDescriptions, propertiesOf, requiredOf } from '../schema/fields.ts';
import { validateValue } from '../schema/json-schema.ts';
import {
  describeFinding,
  INFORMATIONAL_RULES,
  PORTABILITY_CLIENTS,
  portabilityFinding,
  toolPortability,
} from '../schema/portability.ts';
import { outOfRange } from '../schema/probes.ts';
import { generateInputs, isTyped, wrongValue } from '../schema/values.ts';
import { type CaseOutcome, expectRefusal, expectToolResult, fail, LiveTestFailure } from './calls.ts';
import type { LiveCase, LiveTestOptions } from './live-case.ts';
import { liveCall } from './task.ts';

const DEFAULT_MAX_CALLS = 50;

/** Whether the tool says it changes nothing (`annotations.readOnlyHint: true`). */
export function isReadOnlyTool(tool: JsonObject): boolean {
  return isObject(tool.annotations) && tool.annotations.readOnlyHint === true;
}

/** Why a tool's calls are not made (it could write and writes are not allowed), or undefined. */
export function writeSkip(tool: JsonObject, options: LiveTestOptions): string | undefined {
  if (isReadOnlyTool(tool)) return undefined;
  if (options.allowWrites === true && options.readOnly !== true) return undefined;
  const why =
    isObject(tool.annotations) && tool.annotations.readOnlyHint === false
      ? 'annotated readOnlyHint: false'
      : 'not annotated readOnlyHint: true';
  return `not called: ${why}, so a call could write (${options.allowWritesHint ?? 'rerun with --allow-writes to include it'})`;
}

/**
 * Why a tool gets no generated values beyond its basic call: it may reach the outside world
 * (the spec's default for `openWorldHint` is true), so hostile strings would go on to a real
 * API. Undefined when it says it does not, or `--fuzz-open-world` asks for them anyway.
 */
export function openWorldSkip(tool: JsonObject, options: LiveTestOptions): string | undefined {
  if (options.fuzzOpenWorld === true) return undefined;
  const hint = isObject(tool.annotations) ? tool.annotations.openWorldHint : undefined;
  if (hint === false) return undefined;
  const why = hint === true ? 'annotated openWorldHint: true' : 'not annotated openWorldHint: false';
  return `not sent: ${why}, so its calls may reach a real API; only the basic schema-valid call is made (--fuzz-open-world sends the generated values too)`;
}

export function toolCases(client: ProbeClient, tool: JsonObject, options: LiveTestOptions): LiveCase[] {
  const name = tool.name as string;
  const schema = isObject(tool.inputSchema) ? tool.inputSchema : {};
  const props = propertiesOf(schema);
  const hasProps = Object.keys(props).length > 0;
  // Only tools that declare themselves read-only are called unless writes are allowed: a test
  // pointed at a staging or production server must not write there.
  // A tool that takes a task is called as one when the server runs tasks (live/task.ts); one
  // that requires a task cannot be called otherwise (check judges its refusal of a plain call).
  const callSkip =
    writeSkip(tool, options) ??
    (taskSupportOf(tool) === 'required' && !serverRunsTasks(client)
      ? 'not called: execution.taskSupport is "required" and the server declares no task support on this wire (check judges its refusal of a plain call)'
      : undefined);
  const judged = async (args: unknown, judge: (answer: Answer) => CaseOutcome): Promise<CaseOutcome> => {
    const answer = await liveCall(client, tool, args);
    return 'skipped' in answer ? { skipped: answer.skipped } : judge(answer);
  };
  const cases: LiveCase[] = [];
  const withSkip = (c: LiveCase, skip: string | undefined): LiveCase => (skip ? { ...c, skip } : c);

  if (hasProps) {
    cases.push(
      {
        name: `test_${name}_input_schema_field_descriptions`,
        check: 'test.field-descriptions',
        run: async () => {
          const missing = missingDescriptions(schema);
          if (missing.length > 0) fail(`properties without a description: ${missing.join(', ')}`);
          return {};
        },
      },
      {
        name: `test_${name}_input_schema_field_types`,
        check: 'test.field-types',
        run: async () => {
          const bad = invalidTypes(schema);
          if (bad.length > 0) fail(`properties without a valid JSON Schema type: ${bad.join('; ')}`);
          return {};
        },
      },
    );
  }

  const found = toolPortability(tool);
  const portability = found.filter((f) => !INFORMATIONAL_RULES.has(f.rule));
  const informational = found.filter((f) => INFORMATIONAL_RULES.has(f.rule));
  cases.push({
    name: `test_${name}_schema_portability`,
    check: 'test.schema-portability',
    run: async () => {
      const notes = informational.map((f) => `note: ${describeFinding(f)} (${PORTABILITY_CLIENTS[f.rule]})`);
      if (portability.length === 0) return { notes };
      const rules = [...new Set(portability.map((f) => f.rule))];
      fail(
        `constructs some clients drop or reject: ${portability.map(describeFinding).join('; ')} (affects ${rules
          .map((r) => PORTABILITY_CLIENTS[r])
          .join('; ')})`,
      );
    },
  });

  const declared = isObject(tool._meta) ? tool._meta[ERRORS_META_KEY] : undefined;
  if (declared !== undefined) {
    cases.push({
      name: `test_${name}_declared_errors`,
      check: 'test.declared-errors',
      run: async () => {
        const problems = declaredErrorProblems(declared);
        if (problems.length > 0) fail(`declared errors: ${problems.join('; ')}`);
        return {};
      },
    });
  }

  const examples = Array.isArray(schema.examples) ? (schema.examples as unknown[]) : [];
  examples.forEach((example, n) => {
    cases.push(
      withSkip(
        {
          name: `test_${name}_example_${n}`,
          check: 'test.example',
          run: async () => {
            // Checked before any call: an example that breaks its own schema is never sent.
            if (!isObject(example)) fail(`example ${n} is not an object: ${JSON.stringify(example)}`);
            const issues = validateValue(schema, example);
            if (issues.length > 0)
              fail(`example ${n} ${JSON.stringify(example)} violates the inputSchema: ${issues.join('; ')}`);
            return judged(example, (a) => expectToolResult(tool, example, a, { mustSucceed: true }));
          },
        },
        callSkip,
      ),
    );
  });

  // Every tool gets a basic call, a tool without properties too (pytest-mcp-tools calls only
  // tools with properties, which leaves a no-argument tool that always fails unnoticed).
  const generated = generateInputs(schema, {
    max: options.maxCallsPerTool ?? DEFAULT_MAX_CALLS,
    fuzz: options.fuzz === true,
  });
  if (!generated.ok) {
    cases.push({
      name: `test_${name}_schema_0`,
      check: 'test.schema-call',
      skip: `no input generated: ${generated.problem}`,
      run: async () => ({}),
    });
  } else {
    const openWorld = openWorldSkip(tool, options);
    generated.cases.forEach((c, n) => {
      cases.push(
        withSkip(
          {
            name: `test_${name}_schema_${n}`,
            check: 'test.schema-call',
            run: async () => {
              const out = await judged(c.args, (a) =>
                expectToolResult(tool, c.args, a, { mustSucceed: false }),
              );
              return { ...out, notes: [c.label, ...(out.notes ?? [])] };
            },
          },
          callSkip ?? (n > 0 ? openWorld : undefined),
        ),
      );
    });
  }

  if (options.strict) {
    cases.push(
      {
        name: `test_${name}_has_examples`,
        check: 'test.has-examples',
        run: async () => {
          if (examples.length === 0) fail(`${name} declares no inputSchema.examples`);
          return {};
        },
      },
      {
        name: `test_${name}_has_output_schema`,
        check: 'test.has-output-schema',
        run: async () => {
          if (!isObject(tool.outputSchema)) fail(`${name} declares no outputSchema`);
          return {};
        },
      },
    );
  }

  const required = requiredOf(schema);
  const base = generated.ok
    ? generated.cases[0]?.args
    : (examples.find((e) => isObject(e) && validateValue(schema, e).length === 0) as JsonObject | undefined);
  const probeSkip = callSkip ?? (base === undefined ? 'no valid input to start from' : undefined);
  const mode = options.invalidInput ?? 'either';
  const probe = (caseName: string, args: () => JsonObject): LiveCase =>
    withSkip(
      {
        name: caseName,
        check: 'test.invalid-input',
        run: async () => {
          const sent = args();
          return judged(sent, (a) => expectRefusal(tool, sent, a, mode));
        },
      },
      probeSkip,
    );
  if (required.some((f) => props[f] !== undefined && isTyped(props[f], schema))) {
    for (const field of required) {
      const without = (): JsonObject => {
        const args: JsonObject = { ...base };
        delete args[field];
        return args;
      };
      const prop = props[field];
      if (isObject(prop) && 'default' in prop) {
        // Required with a default (zod's output does this): a server that applies the default
        // validates correctly; the schema contradicts itself, a house finding, not a MUST one.
        cases.push(
          withSkip(
            {
              name: `test_${name}_missing_${field}`,
              check: 'test.contradictory-schema',
              run: async () => {
                const sent = without();
                return judged(sent, (a) => {
                  if (a.kind !== 'result' || a.result.isError === true) return {};
                  // Worded as check's portability.required-default for this field; what the call
                  // showed is a note.
                  const here = found.filter(
                    (f) =>
                      f.rule === 'required-default' &&
                      f.schema === 'inputSchema' &&
                      f.path === `properties.${field}`,
                  );
                  throw new LiveTestFailure(
                    portabilityFinding('required-default', [[JSON.stringify(name), here]]),
                    undefined,
                    undefined,
                    undefined,
                    false,
                    [`the call without ${field} was served: the default applied`],
                  );
                });
              },
            },
            probeSkip,
          ),
        );
        continue;
      }
      cases.push(probe(`test_${name}_missing_${field}`, without));
    }
    for (const field of Object.keys(props)) {
      const wrong = wrongValue(schema, field);
      if (wrong !== undefined)
        cases.push(probe(`test_${name}_wrong_type_${field}`, () => ({ ...base, [field]: wrong.value })));
    }
  }
  // Just outside the declared bounds: a server that checks only types accepts these.
  for (const field of Object.keys(props)) {
    for (const out of outOfRange(schema, field, options.fuzz === true))
      cases.push(probe(`test_${name}_invalid_${field}_${out.kind}`, () => ({ ...base, [field]: out.value })));
  }
  return callSkip === undefined
    ? cases
    : foldNotCalled(cases, name, callSkip, writeSkip(tool, options) !== undefined);
}

/** `schema_0, schema_1, schema_2` as `schema_0 to schema_2`: one name per run of numbered calls. */
function ranges(names: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < names.length; ) {
    const m = /^(.*_)(\d+)$/.exec(names[i] as string);
    let j = i + 1;
    if (m) {
      const [, stem, first] = m;
      while (j < names.length && names[j] === `${stem}${Number(first) + (j - i)}`) j++;
    }
    out.push(j - i > 2 ? `${names[i]} to ${names[j - 1]}` : (names[i] as string));
    if (j - i === 2) out.push(names[i + 1] as string);
    i = j;
  }
  return out;
}

/**
 * A tool whose calls are not made gets one line for all of them (issue 49: a write tool showed
 * one "not called" line per generated call, 17 for one tool), naming the calls it stands for.
 */
function foldNotCalled(cases: LiveCase[], tool: string, skip: string, couldWrite: boolean): LiveCase[] {
  const notMade = cases.filter((c) => c.skip === skip);
  if (notMade.length === 0) return cases;
  const prefix = `test_${tool}_`;
  const names = ranges(
    notMade.map((c) => (c.name.startsWith(prefix) ? c.name.slice(prefix.length) : c.name)),
  );
  return [
    ...cases.filter((c) => c.skip !== skip),
    {
      name: `${prefix}calls`,
      check: couldWrite ? 'test.not-called' : 'test.schema-call',
      skip: `${skip}; ${notMade.length} ${notMade.length === 1 ? 'call' : 'calls'} not made: ${names.join(', ')}`,
      run: async () => ({}),
    },
  ];
}

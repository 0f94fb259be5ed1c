/**
 * The families of generated tests of `mcp-toolkit test`: each generated test (named as
 * pytest-mcp-tools names it, `test_{tool}_schema_3`) belongs to one family, which names the
 * rule it is graded by. A family that applies a rule `check` also judges (`sameAs`) is graded
 * by that rule's entry in CHECKS: one id, one level, one source, one fix for both commands
 * (the family id stays the name baselines and JUnit key on). The other families are rules of
 * their own, `test` only. RULES is the one table of every rule. A single failure may state a
 * level of its own (an example whose structuredContent breaks the outputSchema breaks a MUST,
 * not a house rule).
 */
import { CHECKS, type CheckId, type CheckInfo } from '../conformance/check-catalog.ts';
import { TOOLS } from '../conformance/check-sources.ts';

/** A family's entry: a rule of its own, or (`rule`) the check rule it is graded by. */
export interface FamilyInfo extends CheckInfo {
  /** The id in RULES of the rule this family applies, when it is a rule of `check`. */
  readonly rule?: CheckId;
}

/** The family grades by check's rule `id`: the same title, level, source and fix. */
function sameAs<I extends CheckId>(id: I): (typeof CHECKS)[I] & { rule: I } {
  return { ...CHECKS[id], rule: id };
}

export const LIVE_CHECKS = {
  'test.connect': sameAs('connection'),
  'test.server-stopped': sameAs('server.stopped'),
  'test.deprecated-endpoint': {
    title: 'no deprecated HTTP+SSE endpoint',
    level: 'HOUSE',
    source: {
      spec: 'basic/transports',
      anchor: 'backwards-compatibility',
      label: 'Transports §Backwards Compatibility',
    },
    fix: 'serve streamable HTTP only; retire /sse and /messages once your clients have moved',
  },
  'test.list-tools': {
    title: 'tools/list lists object schemas',
    level: 'MUST',
    source: TOOLS('listing-tools', 'Tools §Listing Tools'),
    fix: 'answer tools/list with tools whose inputSchema (and outputSchema) are { "type": "object" } schemas',
  },
  'test.descriptions': sameAs('tools.descriptions'),
  'test.names': sameAs('tools.name-format'),
  'test.unique-names': sameAs('tools.unique-names'),
  'test.titles': {
    title: 'annotated tools have a title',
    level: 'HOUSE',
    source: TOOLS('tool', 'Tools §Tool (title, annotations.title)'),
    fix: 'give the tool a human-readable title (tool.title or annotations.title)',
  },
  'test.annotations': {
    title: 'tool annotations are consistent',
    level: 'HOUSE',
    source: { spec: 'schema', anchor: 'toolannotations', label: 'Schema §ToolAnnotations' },
    fix: 'a read-only tool is not destructive: drop destructiveHint (and idempotentHint) beside readOnlyHint: true',
  },
  'test.field-descriptions': {
    title: 'every input property has a description',
    level: 'HOUSE',
    source: TOOLS('tool', 'Tools §Tool (a model fills arguments from their descriptions)'),
    fix: 'add a description to every property of the inputSchema (with zod: .describe(...))',
  },
  'test.field-types': {
    title: 'every input property has a JSON Schema type',
    level: 'HOUSE',
    source: TOOLS('tool', 'Tools §Tool (some clients reject properties without type)'),
    fix: 'give every property a type (or enum/const, or typed anyOf branches)',
  },
  'test.schema-portability': {
    title: 'the tool schemas use what major clients accept',
    level: 'HOUSE',
    source: {
      spec: 'basic',
      anchor: 'json-schema-usage',
      label: 'Base Protocol §JSON Schema Usage (portability across clients)',
    },
    fix: 'one type per property, no anyOf/oneOf/$ref/$schema, strict-mode formats only (each finding names the clients)',
  },
  'test.declared-errors': {
    title: "a tool's declared errors are well-formed",
    level: 'HOUSE',
    source: TOOLS('error-handling', 'Tools §Error Handling (declared errors, as mcp-toolkit publishes them)'),
    fix: 'declare errors under _meta["io.github.mcp-toolkit/errors"] as { snake_case_code: { retryable: boolean, hint?: string } }',
  },
  'test.example': {
    title: 'declared examples are valid and succeed',
    level: 'HOUSE',
    source: TOOLS('tool', 'Tools §Tool (inputSchema.examples)'),
    fix: 'keep inputSchema.examples valid against the schema and working against the tool',
  },
  'test.schema-call': {
    title: 'a generated call gets a result that matches the outputSchema',
    level: 'MUST',
    source: TOOLS('output-schema', 'Tools §Output Schema (results MUST conform)'),
    fix: 'answer every valid call with a result; return structuredContent that validates against the outputSchema',
  },
  // A generated call answered with a JSON-RPC error: check's rules for a failing call.
  'test.execution-error': sameAs('tools.execution-error'),
  'test.schema-accepted': sameAs('tools.schema-accepted'),
  'test.has-examples': {
    title: 'the tool declares examples (--strict)',
    level: 'HOUSE',
    source: TOOLS('tool', 'Tools §Tool (inputSchema.examples)'),
    fix: 'add inputSchema.examples: one or two argument objects that show typical use',
  },
  'test.has-output-schema': {
    title: 'the tool declares an outputSchema (--strict)',
    level: 'HOUSE',
    source: TOOLS('output-schema', 'Tools §Output Schema'),
    fix: 'declare an outputSchema and return structuredContent',
  },
  // A tool called as a task: check's task rules, broken during a generated call.
  'test.task-create': sameAs('tasks.create-result'),
  'test.task-status': sameAs('tasks.status'),
  'test.task-get': sameAs('tasks.get'),
  'test.invalid-input': {
    title: 'invalid arguments are refused',
    level: 'MUST',
    source: TOOLS(
      'security-considerations',
      'Tools §Security Considerations (servers MUST validate all tool inputs)',
    ),
    fix: 'validate arguments against the inputSchema; refuse with -32602 (to 2025-06-18) or an isError result (2025-11-25)',
  },
  'test.contradictory-schema': sameAs('portability.required-default'),
  'test.invalid-request': sameAs('jsonrpc.invalid-request'),
  'test.method-not-found': sameAs('jsonrpc.method-not-found'),
  'test.jsonrpc-version': sameAs('jsonrpc.version'),
  'test.id-echo': sameAs('jsonrpc.id-echo'),
  'test.result-xor-error': sameAs('jsonrpc.result-xor-error'),
  'test.unknown-tool': sameAs('tools.unknown-tool'),
  'test.invalid-cursor': sameAs('pagination.invalid-cursor'),
  'test.stdout': sameAs('stdio.stdout'),
  'test.not-called': {
    title: 'a tool that could write was not called (one line for all its calls)',
    level: 'HOUSE',
    source: { spec: 'schema', anchor: 'toolannotations', label: 'Schema §ToolAnnotations (readOnlyHint)' },
    fix: 'annotate tools that change nothing with readOnlyHint: true; pass --allow-writes to a disposable server',
  },
} as const satisfies Record<string, FamilyInfo>;

export type LiveCheckId = keyof typeof LIVE_CHECKS;

/** The id in RULES of the rule a family is graded by (its own id for a rule of `test` only). */
export function ruleOf(family: LiveCheckId): string {
  const info: FamilyInfo = LIVE_CHECKS[family];
  return info.rule ?? family;
}

/**
 * The one rule table: every rule either command grades by, once, under one id: the checks of
 * `check` (CHECKS, with the groups it merges) and the families of `test` that are no check.
 */
export const RULES: Readonly<Record<string, CheckInfo>> = {
  ...CHECKS,
  ...Object.fromEntries(
    Object.entries(LIVE_CHECKS as Record<string, FamilyInfo>).filter(([, info]) => info.rule === undefined),
  ),
};

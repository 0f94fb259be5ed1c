/**
 * The families of generated tests of `mcp-toolkit test`: each generated test (named as
 * pytest-mcp-tools names it, `test_{tool}_schema_3`) belongs to one family, which gives its
 * level, the rule it applies and a one-line fix. A single failure may state a level of its own
 * (an example whose structuredContent breaks the outputSchema breaks a MUST, not a house rule).
 */
import type { CheckInfo, Source } from './check-catalog.ts';
import { PORTABILITY } from './check-sources.ts';
import { TASK_CHECKS } from './task-catalog.ts';

const TOOLS = (anchor: string, label: string): Source => ({ spec: 'server/tools', anchor, label });
const JSONRPC = (anchor: string, label: string): Source => ({
  url: `https://www.jsonrpc.org/specification#${anchor}`,
  label,
});

export const LIVE_CHECKS = {
  'test.connect': {
    title: 'the server answers the handshake',
    level: 'MUST',
    source: { spec: 'basic/lifecycle', anchor: 'initialization', label: 'Lifecycle §Initialization' },
    fix: 'start the server, check the URL or command, and give credentials (--token, --api-key, mcp-toolkit login)',
  },
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
  'test.descriptions': {
    title: 'every tool has a description',
    level: 'HOUSE',
    source: TOOLS('tool', 'Tools §Tool'),
    fix: 'describe what each tool does and when to use it',
  },
  'test.names': {
    title: 'tool names follow SEP-986',
    level: 'SHOULD',
    source: TOOLS('tool-names', 'Tools §Tool Names (SEP-986)'),
    fix: 'name every tool with 1-128 of A-Z a-z 0-9 _ - .',
  },
  'test.unique-names': {
    title: 'tool names are unique',
    level: 'SHOULD',
    source: TOOLS('tool-names', 'Tools §Tool Names'),
    fix: 'list each tool once under its own name',
  },
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
  // A tool called as a task: the rules of check's task checks, broken during a generated call.
  'test.task-create': TASK_CHECKS['tasks.create-result'],
  'test.task-status': TASK_CHECKS['tasks.status'],
  'test.task-get': TASK_CHECKS['tasks.get'],
  'test.invalid-input': {
    title: 'invalid arguments are refused',
    level: 'MUST',
    source: TOOLS(
      'security-considerations',
      'Tools §Security Considerations (servers MUST validate all tool inputs)',
    ),
    fix: 'validate arguments against the inputSchema; refuse with -32602 (to 2025-06-18) or an isError result (2025-11-25)',
  },
  'test.contradictory-schema': {
    title: 'a required property has no default',
    level: 'HOUSE',
    source: PORTABILITY('required with default'),
    fix: 'leave a property with a default out of required, or drop the default: the schema cannot say both',
  },
  'test.invalid-request': {
    title: 'tools/call with params: null is answered with an error (-32600; another code warns)',
    level: 'MUST',
    source: JSONRPC('response_object', 'JSON-RPC 2.0 §4.2, §5'),
    fix: 'answer a request whose params is not an object with error -32600; never drop it',
  },
  'test.method-not-found': {
    title: 'an unknown method gets -32601',
    level: 'MUST',
    source: JSONRPC('error_object', 'JSON-RPC 2.0 §5.1'),
    fix: 'answer a method you do not serve with error -32601',
  },
  'test.unknown-tool': {
    title: 'an unknown tool gets a protocol error (-32602 in the spec example)',
    level: 'SHOULD',
    source: TOOLS('error-handling', 'Tools §Error Handling'),
    fix: 'answer tools/call of a name you do not serve with a JSON-RPC error (-32602, as the spec shows)',
  },
  'test.stdout': {
    title: 'stdout carries only JSON-RPC',
    level: 'MUST',
    source: { spec: 'basic/transports', anchor: 'stdio', label: 'Transports §stdio' },
    fix: 'write logs and banners to stderr; stdout carries protocol messages only',
  },
  'test.not-called': {
    title: 'tools that could write were not called',
    level: 'HOUSE',
    source: { spec: 'schema', anchor: 'toolannotations', label: 'Schema §ToolAnnotations (readOnlyHint)' },
    fix: 'annotate tools that change nothing with readOnlyHint: true; pass --allow-writes to a disposable server',
  },
} as const satisfies Record<string, CheckInfo>;

export type LiveCheckId = keyof typeof LIVE_CHECKS;

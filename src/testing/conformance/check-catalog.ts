/**
 * Every check of `mcp-toolkit check`, with what a verdict needs beside pass or fail: how sure
 * the rule is (the specification's MUST, its SHOULD, or a house rule of ours), where it comes
 * from (a section of the specification, linked for the negotiated revision, or JSON-RPC 2.0),
 * and a one-line fix. The ids are stable: baselines, JUnit reports and `--json` consumers key
 * on them. The generated tests of `mcp-toolkit test` have their own families in live/catalog.ts.
 */

import {
  type CheckInfo,
  JSONRPC,
  LIFECYCLE,
  PORTABILITY,
  type Source,
  TASKS,
  TOOLS,
  TRANSPORTS,
} from './check-sources.ts';
import { DISCOVERY_CHECKS } from './discovery-catalog.ts';
import { TASK_CHECKS } from './task-catalog.ts';
import { TRANSPORT_CHECKS } from './transport-catalog.ts';

export type { CheckInfo, Level, Source } from './check-sources.ts';

export const CHECKS = {
  connection: {
    title: 'the server answers the handshake',
    level: 'MUST',
    source: LIFECYCLE('initialization', 'Lifecycle §Initialization'),
    fix: 'start the server, check the URL or command, and give credentials (--token, --api-key, mcp-toolkit login)',
  },
  'server.stopped': {
    title: 'the server stays up and answers every request',
    level: 'MUST',
    source: JSONRPC('response_object', 'JSON-RPC 2.0 §5 (the Server MUST reply with a Response)'),
    fix: "find the crash or the hang in the server's log from the last request sent (the report names it) and answer that request with a result or an error",
  },
  'initialize.result': {
    title: 'initialize succeeds',
    level: 'MUST',
    source: LIFECYCLE('initialization', 'Lifecycle §Initialization'),
    fix: 'answer initialize with protocolVersion, capabilities and serverInfo',
  },
  'initialize.version-negotiation': {
    title: 'an unsupported protocol version is answered with a supported one',
    level: 'MUST',
    source: LIFECYCLE('version-negotiation', 'Lifecycle §Version Negotiation'),
    fix: 'when the requested version is unknown, answer initialize with the latest version you support (not an error)',
  },
  'initialize.protocol-version': {
    title: 'initialize returns a protocolVersion',
    level: 'MUST',
    source: LIFECYCLE('version-negotiation', 'Lifecycle §Version Negotiation'),
    fix: 'put the negotiated protocolVersion in the initialize result',
  },
  'initialize.server-info': {
    title: 'initialize returns serverInfo.name',
    level: 'MUST',
    source: LIFECYCLE(
      'initialization',
      'Lifecycle §Initialization (InitializeResult.serverInfo is required)',
    ),
    fix: 'return serverInfo: { name, version } from initialize',
  },
  'initialize.capabilities': {
    title: 'initialize returns capabilities',
    level: 'MUST',
    source: LIFECYCLE('capability-negotiation', 'Lifecycle §Capability Negotiation'),
    fix: 'return a capabilities object from initialize (declare tools, resources, prompts you serve)',
  },
  'notifications.unanswered': {
    title: 'notifications receive no response',
    level: 'MUST',
    source: JSONRPC('notification', 'JSON-RPC 2.0 §4.1 Notification; Transports §Sending Messages (202)'),
    fix: 'never answer a message without an id; over HTTP reply 202 Accepted with no body',
  },
  'lifecycle.pre-initialize': {
    title: 'a request without a session is refused with 400 (HTTP servers that require one)',
    level: 'SHOULD',
    source: TRANSPORTS('session-management', 'Transports §Session Management'),
    fix: 'answer a non-initialize request without Mcp-Session-Id with HTTP 400',
  },
  'jsonrpc.method-not-found': {
    title: 'unknown methods return -32601',
    level: 'MUST',
    source: JSONRPC('error_object', 'JSON-RPC 2.0 §5.1 Error object'),
    fix: 'answer a method you do not serve with error -32601 (Method not found)',
  },
  'jsonrpc.invalid-request': {
    title: 'tools/call with params: null is answered with an error (-32600; another code warns)',
    level: 'MUST',
    source: JSONRPC('response_object', 'JSON-RPC 2.0 §4.2, §5 (every request gets a response)'),
    fix: 'answer a request whose params is not an object with error -32600 (Invalid Request); never drop it',
  },
  'jsonrpc.version': {
    title: 'every response carries jsonrpc 2.0',
    level: 'MUST',
    source: JSONRPC('response_object', 'JSON-RPC 2.0 §5 Response object'),
    fix: 'send "jsonrpc": "2.0" in every response',
  },
  'jsonrpc.id-echo': {
    title: 'every response echoes its request id',
    level: 'MUST',
    source: JSONRPC('response_object', 'JSON-RPC 2.0 §5 Response object'),
    fix: 'copy the request id into its response unchanged (a number stays a number, a string a string)',
  },
  'jsonrpc.result-xor-error': {
    title: 'no response has both result and error',
    level: 'MUST',
    source: JSONRPC('response_object', 'JSON-RPC 2.0 §5 Response object'),
    fix: 'send either result or error in a response, never both',
  },
  'tools.list': {
    title: 'tools/list returns a list',
    level: 'MUST',
    source: TOOLS('listing-tools', 'Tools §Listing Tools'),
    fix: 'answer tools/list with { tools: [...] }',
  },
  'tools.pagination': {
    title: 'pagination cursors work',
    level: 'MUST',
    source: { spec: 'server/utilities/pagination', anchor: 'response-format', label: 'Pagination' },
    fix: 'accept every nextCursor you hand out, and end the list (no nextCursor) eventually',
  },
  'pagination.invalid-cursor': {
    title: 'an invalid cursor gets -32602 (every paginated list, both wires)',
    level: 'SHOULD',
    source: {
      spec: 'server/utilities/pagination',
      anchor: 'error-handling',
      label: 'Pagination §Error Handling (invalid cursors: -32602)',
    },
    fix: 'answer a list request whose cursor you did not hand out (or cannot decode) with error -32602 (Invalid params), not with the first page',
  },
  'tools.fields': {
    title: 'every tool has a name and an inputSchema',
    level: 'MUST',
    source: TOOLS('tool', 'Tools §Tool (name and inputSchema are required)'),
    fix: 'give every listed tool a name and an inputSchema',
  },
  'tools.name-format': {
    title: 'tool names are 1-128 characters of A-Z a-z 0-9 _ - .',
    level: 'SHOULD',
    source: TOOLS('tool-names', 'Tools §Tool Names (SEP-986)'),
    fix: 'rename the tool with letters, digits, _ - . only, at most 128 characters',
  },
  'tools.unique-names': {
    title: 'tool names are unique',
    level: 'SHOULD',
    source: TOOLS('tool-names', 'Tools §Tool Names'),
    fix: 'list each tool once; give different tools different names',
  },
  'tools.descriptions': {
    title: 'every tool has a description',
    level: 'HOUSE',
    source: TOOLS('tool', 'Tools §Tool (a model chooses tools by their description)'),
    fix: 'describe what the tool does and when to use it, in a sentence or two',
  },
  'tools.input-schema-object': {
    title: 'every inputSchema is an object schema',
    level: 'MUST',
    source: TOOLS('tool', 'Tools §Tool (inputSchema type "object")'),
    fix: 'make inputSchema { "type": "object", "properties": {...} }, even for no arguments',
  },
  'tools.output-schema-object': {
    title: 'every outputSchema is an object schema',
    level: 'MUST',
    source: TOOLS('output-schema', 'Tools §Output Schema'),
    fix: 'make outputSchema an object schema; wrap a list or a scalar in an object property',
  },
  'tools.schemas-valid': {
    title: 'every schema is a valid JSON Schema',
    level: 'MUST',
    source: TOOLS('tool', 'Tools §Tool (inputSchema and outputSchema are JSON Schema)'),
    fix: 'fix the schema so that a JSON Schema validator compiles it (the reason names the keyword)',
  },
  'tools.unknown-tool': {
    title: 'calling an unknown tool returns a protocol error (-32602 in the spec example)',
    // Tools §Error Handling lists unknown tools under protocol errors with no MUST or SHOULD
    // (2025-11-25 and 2026-07-28 alike): a house rule, not a SHOULD the text does not state.
    level: 'HOUSE',
    source: TOOLS('error-handling', 'Tools §Error Handling (unknown tools are protocol errors)'),
    fix: 'answer tools/call of a name you do not serve with a JSON-RPC error (-32602, as the spec shows)',
  },
  'tools.execution-error': {
    title: 'a valid call that fails is reported as a tool execution error (isError), not a JSON-RPC error',
    level: 'HOUSE',
    source: TOOLS('error-handling', 'Tools §Error Handling (API failures are tool execution errors)'),
    fix: "catch failures of the tool's own work (an API or a database that is down) and return them as an isError result with the message, so the model can read them",
  },
  'tools.schema-accepted': {
    title: 'a value the inputSchema allows is not refused as invalid (-32602)',
    level: 'HOUSE',
    source: TOOLS('tool', 'Tools §Tool (inputSchema defines the expected parameters)'),
    fix: 'tighten the inputSchema (pattern, format, enum, bounds) to what the tool accepts, so clients and models send values it takes',
  },
  'tools.structured-content': {
    title: 'structuredContent matches outputSchema',
    level: 'MUST',
    source: TOOLS('output-schema', 'Tools §Output Schema (results MUST conform)'),
    fix: 'return structuredContent that validates against the declared outputSchema',
  },
  'portability.type-union': {
    title: 'no type unions (type: [..]) in tool schemas',
    level: 'HOUSE',
    source: PORTABILITY('type unions'),
    fix: 'give each schema one type; for an optional value leave the property out of required instead of adding "null"',
  },
  'portability.union': {
    title: 'no anyOf/oneOf at the top of a property (or allOf at the root)',
    level: 'HOUSE',
    source: PORTABILITY('anyOf, oneOf'),
    fix: 'flatten the union: one property with one type (an enum for alternatives), or one tool per variant',
  },
  'portability.ref': {
    title: 'no $ref or $defs in tool schemas',
    level: 'HOUSE',
    source: PORTABILITY('$ref, $defs'),
    fix: 'inline the referenced definitions (zod: z.toJSONSchema(schema, { reused: "inline" }), the default)',
  },
  'portability.dollar-schema': {
    title: 'a $schema key in tool schemas is noted (informational: the spec allows it)',
    level: 'HOUSE',
    source: PORTABILITY('$schema'),
    fix: 'nothing required: $schema is allowed; leave it out only if a client you target refuses it',
  },
  'portability.untyped-property': {
    title: 'every property of a tool schema has a type',
    level: 'HOUSE',
    source: PORTABILITY('properties without type'),
    fix: 'add a type to every property, an enum or a const included ({ "type": "string", "enum": [...] })',
  },
  'portability.format': {
    title: 'string formats are ones strict clients accept',
    level: 'HOUSE',
    source: PORTABILITY('formats'),
    fix: 'use date-time, date, time, duration, email, hostname, ipv4, ipv6 or uuid, or drop the format and say it in the description',
  },
  'portability.boolean-schema': {
    title: 'no property whose schema is a bare true or false',
    level: 'HOUSE',
    source: PORTABILITY('boolean schemas'),
    fix: 'give the property an object schema with a type (an open value: { "type": "object" } or a union of types)',
  },
  'portability.required-default': {
    title: 'no required property with a default (a contradictory schema)',
    level: 'HOUSE',
    source: PORTABILITY('required with default'),
    fix: 'leave a property with a default out of required (zod: z.toJSONSchema(schema, { io: "input" }) lists only fields without defaults)',
  },
  'tasks.required-without-task': {
    title: 'a tool that requires a task refuses a call without one (-32601)',
    level: 'MUST',
    source: TASKS('tool-level-negotiation', 'Tasks §Tool-Level Negotiation (taskSupport "required")'),
    fix: 'answer tools/call of a tool with execution.taskSupport "required" sent without params.task with error -32601 (2026: without the tasks extension declared, -32021), not a result',
  },
  ...TASK_CHECKS,
  'resources.list': {
    title: 'resources/list is well-formed',
    level: 'MUST',
    source: { spec: 'server/resources', anchor: 'listing-resources', label: 'Resources §Listing Resources' },
    fix: 'give every resource a uri and a name, every template a uriTemplate and a name',
  },
  'resources.read': {
    title: 'a listed resource is readable',
    level: 'MUST',
    source: { spec: 'server/resources', anchor: 'reading-resources', label: 'Resources §Reading Resources' },
    fix: 'serve resources/read for every URI you list, with contents of uri and text or blob',
  },
  'resources.unknown': {
    title: 'an unknown resource gets resource not found (-32002 in 2025, -32602 in 2026)',
    level: 'SHOULD',
    source: { spec: 'server/resources', anchor: 'error-handling', label: 'Resources §Error Handling' },
    fix: 'answer resources/read of a URI you do not serve with error -32002 (2025 revisions) or -32602 (2026-07-28)',
  },
  'prompts.list': {
    title: 'prompts/list is well-formed',
    level: 'MUST',
    source: { spec: 'server/prompts', anchor: 'listing-prompts', label: 'Prompts §Listing Prompts' },
    fix: 'give every prompt and every prompt argument a name; required is a boolean',
  },
  'prompts.arguments': {
    title: 'prompts declare their required arguments',
    level: 'HOUSE',
    source: { spec: 'server/prompts', anchor: 'getting-a-prompt', label: 'Prompts §Getting a Prompt' },
    fix: 'mark every argument the prompt needs as required: true in prompts/list',
  },
  'utilities.ping': {
    title: 'ping is answered with an empty result',
    level: 'MUST',
    source: {
      spec: 'basic/utilities/ping',
      anchor: 'behavior-requirements',
      label: 'Ping §Behavior Requirements',
    },
    fix: 'answer ping with an empty result {} promptly, at any point of the session',
  },
  'logging.set-level': {
    title: 'logging/setLevel is served (servers that declare logging, deprecated in 2026-07-28)',
    level: 'MUST',
    source: {
      spec: 'server/utilities/logging',
      anchor: 'setting-log-level',
      label: 'Logging §Setting Log Level',
    },
    fix: 'answer logging/setLevel with an empty result, or stop declaring the logging capability',
  },
  'logging.invalid-level': {
    title:
      'an invalid log level is refused with -32602 (servers that declare logging, deprecated in 2026-07-28)',
    level: 'SHOULD',
    source: {
      spec: 'server/utilities/logging',
      anchor: 'error-handling',
      label: 'Logging §Error Handling (invalid log level: -32602)',
    },
    fix: 'check params.level against the eight RFC 5424 levels and answer another value with error -32602 (Invalid params) and a short message, not -32603 with the validator output',
  },
  'completions.complete': {
    title: 'completion/complete returns values (servers that declare completions)',
    level: 'MUST',
    source: {
      spec: 'server/utilities/completion',
      anchor: 'requesting-completions',
      label: 'Completion §Requesting Completions',
    },
    fix: 'answer completion/complete with { completion: { values: [strings, at most 100] } } for every prompt argument and template variable',
  },
  'resources.subscribe': {
    title: 'resources/subscribe and unsubscribe are served (servers that declare subscribe)',
    level: 'MUST',
    source: { spec: 'server/resources', anchor: 'subscriptions', label: 'Resources §Subscriptions' },
    fix: 'answer resources/subscribe and resources/unsubscribe with an empty result, or declare subscribe: false',
  },
  ...TRANSPORT_CHECKS,
  ...DISCOVERY_CHECKS,
} as const satisfies Record<string, CheckInfo>;

export type CheckId = keyof typeof CHECKS;

/** The revision the links point at when no version was negotiated. */
export const DEFAULT_REVISION = '2025-11-25';

/** The address of a rule: the specification page of `revision`, or the source's own URL. */
export function sourceUrl(source: Source, revision: string = DEFAULT_REVISION): string {
  if ('url' in source) return source.url;
  const elsewhere = source.elsewhere?.[source.revision ?? revision];
  if (elsewhere) return elsewhere;
  return `https://modelcontextprotocol.io/specification/${source.revision ?? revision}/${source.spec}${source.anchor ? `#${source.anchor}` : ''}`;
}

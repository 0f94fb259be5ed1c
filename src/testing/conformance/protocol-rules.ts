/**
 * Rules both engines judge the same answer by: `check` (a conformance check) and `test` (a
 * generated test) send the same probe and call these, so one answer gets one grade and one
 * wording, in one place. A judgement is `pass` (with an optional note), `warn` (a SHOULD, or a
 * code the spec only gives as an example: shown, never failing unless strict) or `fail` (the
 * rule's MUST), each with its reason, which names the request it judges (neither command adds
 * words of its own), and, where the catalogue's fix does not say it, a fix of its own.
 */
import { ErrorCode } from '../../base/errors.ts';
import { type Answer, describeAnswer } from '../client/answer.ts';

export interface Judgement {
  status: 'pass' | 'warn' | 'fail';
  /** Why it warned or failed; for a pass, a note. */
  reason?: string;
  /** In place of the catalogue's fix, when this answer needs another one. */
  fix?: string;
}

/** What answers `params: null`, said the same by both commands whatever the wire. */
const INVALID_REQUEST_CODES = '-32600 (on the 2026 wire -32602 too, and over HTTP -32020)';

/**
 * `tools/call` with `params: null` (JSON-RPC 2.0 §4.2, §5): it must be answered, with an error
 * (`id: null` counts: the id of an invalid request may be unreadable). -32600 is the code for
 * it; on the 2026 wire -32602 too (the body also lacks its envelope), and over HTTP -32020
 * (HeaderMismatch: the `Mcp-Name` header a `tools/call` needs has no body value to mirror, and
 * Transports §Server Validation gives a missing or mismatched header 400 and -32020). Another
 * error code is a warning; no error at all (dropped, a result) is the MUST failure.
 */
export function judgeInvalidRequest(
  answer: Answer,
  wire: '2025' | '2026' = '2025',
  transport?: 'stdio' | 'http' | 'in-process',
): Judgement {
  const codes: number[] = [ErrorCode.InvalidRequest];
  if (wire === '2026') codes.push(ErrorCode.InvalidParams);
  if (wire === '2026' && transport === 'http') codes.push(ErrorCode.HeaderMismatch);
  if (answer.kind === 'error' && codes.includes(answer.error.code))
    return answer.response.id === null
      ? { status: 'pass', reason: 'answered with id null' }
      : { status: 'pass' };
  if (answer.kind === 'error')
    return {
      status: 'warn',
      reason: `tools/call with params: null (${wire} wire) was answered, but with ${describeAnswer(answer)}; the code for it is ${INVALID_REQUEST_CODES}`,
      fix: 'answer a request whose params is not an object with error -32600 (Invalid Request)',
    };
  return {
    status: 'fail',
    reason: `tools/call with params: null (${wire} wire): expected error ${INVALID_REQUEST_CODES}, got ${describeAnswer(answer)}`,
  };
}

/**
 * JSON-RPC 2.0 §5 "Response object" items, worded once: `check` lists them over every response
 * of its run (jsonrpc.version, jsonrpc.id-echo, jsonrpc.result-xor-error), `test` says the one
 * its error answer breaks under the same rule.
 */
export const ENVELOPE_WORDS = {
  version: (id: unknown, jsonrpc: unknown) =>
    `id ${JSON.stringify(id)} has jsonrpc ${JSON.stringify(jsonrpc)}`,
  idEcho: (sent: unknown, received: unknown) =>
    `sent id ${JSON.stringify(sent)}, got ${JSON.stringify(received)}`,
  strayId: (id: unknown) => `id ${JSON.stringify(id)} answers no request`,
  both: (id: unknown) => `id ${JSON.stringify(id)} has both`,
} as const;

/** The envelope rules, as `check` names them. */
export type EnvelopeRule = 'jsonrpc.version' | 'jsonrpc.id-echo' | 'jsonrpc.result-xor-error';

/**
 * The first envelope rule one response to `sentId` breaks, worded as `check` words it, or
 * undefined. `nullIdOk`: the request was invalid by design, so `id: null` answers it (JSON-RPC
 * 2.0 §5: the id could not be read).
 */
export function envelopeFinding(
  response: { jsonrpc?: unknown; id?: unknown; result?: unknown },
  sentId: unknown,
  nullIdOk = false,
): { rule: EnvelopeRule; reason: string } | undefined {
  if (response.jsonrpc !== '2.0')
    return { rule: 'jsonrpc.version', reason: ENVELOPE_WORDS.version(response.id, response.jsonrpc) };
  if (response.id !== sentId && !(nullIdOk && response.id === null))
    return { rule: 'jsonrpc.id-echo', reason: ENVELOPE_WORDS.idEcho(sentId, response.id) };
  if ('result' in response)
    return { rule: 'jsonrpc.result-xor-error', reason: ENVELOPE_WORDS.both(response.id) };
  return undefined;
}

/** What a server.stopped finding adds when the kit started the command again (both commands). */
export const RESTARTED = 'the kit started it again for the rest of the run';

/** The method both commands ask for to see -32601: no server serves it. */
export const UNKNOWN_METHOD = 'mcp-toolkit/no-such-method';

/** A method the server does not serve (JSON-RPC 2.0 §5.1): -32601, anything else the MUST failure. */
export function judgeMethodNotFound(answer: Answer, wire: '2025' | '2026' = '2025'): Judgement {
  if (answer.kind === 'error' && answer.error.code === ErrorCode.MethodNotFound) return { status: 'pass' };
  return {
    status: 'fail',
    reason: `${UNKNOWN_METHOD} (${wire} wire): expected error -32601, got ${describeAnswer(answer)}`,
  };
}

/** MCP's "resource not found" code of the 2025 revisions (Resources §Error Handling). */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * `resources/read` of a URI the server does not serve. Every 2025 revision: "Servers SHOULD
 * return standard JSON-RPC errors for common failure cases: Resource not found: -32002"
 * (Resources §Error Handling), so any other answer, -32602 included (the code 2026-07-28 put in
 * its place), is the SHOULD warning there. 2026-07-28: MUST -32602, anything else the MUST
 * failure.
 */
export function judgeUnknownResource(answer: Answer, wire: '2025' | '2026' = '2025'): Judgement {
  const code = answer.kind === 'error' ? answer.error.code : undefined;
  if (wire === '2026') {
    if (code === ErrorCode.InvalidParams) return { status: 'pass' };
    return {
      status: 'fail',
      reason: `got ${describeAnswer(answer)}; 2026-07-28 requires -32602 for an unknown resource`,
      fix: 'answer resources/read of a URI you do not serve with error -32602',
    };
  }
  if (code === RESOURCE_NOT_FOUND) return { status: 'pass' };
  return {
    status: 'warn',
    reason: `got ${describeAnswer(answer)}; on the 2025 revisions an unknown resource SHOULD get -32002 (resource not found)${
      code === ErrorCode.InvalidParams ? ', -32602 is the code of 2026-07-28 only' : ''
    }`,
  };
}

/** The tool both commands call to see an unknown tool's answer: no server serves it. */
export const UNKNOWN_TOOL = 'mcp-toolkit-no-such-tool';

/**
 * `tools/call` of a tool the server does not serve. Tools §Error Handling lists unknown tools
 * under protocol errors and shows -32602 in an example; it puts no MUST or SHOULD on the code.
 * So -32602 passes, another protocol error (-32601 is common) passes with a note, and an
 * `isError` result, a plain result or no answer is a house finding (the rule's level: no
 * keyword of the text makes it a SHOULD), each with its own fix.
 */
export function judgeUnknownTool(answer: Answer): Judgement {
  const call = `tools/call of unknown tool ${UNKNOWN_TOOL}`;
  if (answer.kind === 'error') {
    if (answer.error.code === ErrorCode.InvalidParams) return { status: 'pass' };
    return {
      status: 'pass',
      reason: `note: ${call} answered with error ${answer.error.code}; the spec's example uses -32602 (no MUST or SHOULD names the code)`,
    };
  }
  const reason = `${call} got ${describeAnswer(answer)}; an unknown tool is a protocol error (Tools § Error Handling)`;
  if (answer.kind === 'result' && answer.result.isError === true)
    return {
      status: 'warn',
      reason,
      fix: 'answer tools/call of a name you do not serve with a JSON-RPC error (-32602, as the spec shows), not an isError result',
    };
  return {
    status: 'warn',
    reason,
    fix: 'answer tools/call of a name you do not serve with a JSON-RPC error (-32602, as the spec shows)',
  };
}

/** A tool call as findings name it: `add({"a":1,"b":2})`, the arguments cut at 160 characters. */
export function describeCall(name: string, args: unknown): string {
  const text = JSON.stringify(args) ?? 'undefined';
  return `${name}(${text.length > 160 ? `${text.slice(0, 157)}…` : text})`;
}

/** The rule a JSON-RPC error answer to a schema-valid tool call falls under, and why. */
export interface CallErrorFinding {
  rule: 'tools.execution-error' | 'tools.schema-accepted';
  reason: string;
}

/**
 * A JSON-RPC error answer to a tool call whose arguments satisfy the tool's inputSchema. Tools
 * §Error Handling lists "Server errors" among protocol errors and "API failures" among tool
 * execution errors ("Reported in tool results with isError: true"), with no MUST or SHOULD on
 * either, and no MUST says a server serves every schema-valid value. So neither is a breach of
 * the specification: -32602 (the server is stricter than its schema) is a house finding about
 * the schema, any other code (the tool's backend failed) a house finding that the model never
 * sees the failure. Both carry the server's own message. The output schema says nothing here:
 * it binds results, and there is none.
 */
export function judgeCallError(
  name: string,
  args: unknown,
  error: { code: number; message: string },
): CallErrorFinding {
  const call = describeCall(name, args);
  const said = `error ${error.code} (${error.message})`;
  if (error.code === ErrorCode.InvalidParams)
    return {
      rule: 'tools.schema-accepted',
      reason: `${call}: refused with ${said} although the arguments satisfy the inputSchema: the schema is looser than the code`,
    };
  return {
    rule: 'tools.execution-error',
    reason: `${call}: failed with ${said}: a failure of the tool's work (an API or backend that is down) is a tool execution error, an isError result the model can read`,
  };
}

/**
 * Why a listing or a read answered -32603 cannot be judged: JSON-RPC 2.0 §5.1 gives -32603 to
 * an "Internal JSON-RPC error" and Resources §Error Handling to "Internal errors", so a server
 * whose database is down answers as specified. Nothing about the list's shape can be seen; the
 * check is not run, with the server's message. Undefined for any other answer.
 */
export function internalErrorReason(what: string, answer: Answer | undefined): string | undefined {
  if (answer?.kind !== 'error' || answer.error.code !== ErrorCode.InternalError) return undefined;
  return `${what} answered error -32603 (${answer.error.message}), the code for the server's own failure (JSON-RPC 2.0 §5.1 "Internal error"): nothing to judge`;
}

/** A cursor no server hands out: `!` is outside base64 and base64url, so no decoder takes it. */
export const INVALID_CURSOR = '!!not-a-cursor!!';

/**
 * A list request with a cursor the server never handed out. Pagination §Error Handling:
 * "Invalid cursors SHOULD result in an error with code -32602 (Invalid params)". -32602 passes;
 * the list served as if there were no cursor, another code or no answer is the SHOULD warning.
 * A server with one page is asked too: the rule is about the cursor, not the list's length.
 */
export function judgeInvalidCursor(method: string, wire: '2025' | '2026', answer: Answer): Judgement {
  if (answer.kind === 'error' && answer.error.code === ErrorCode.InvalidParams) return { status: 'pass' };
  const got = answer.kind === 'result' ? 'the list, as if no cursor had been sent' : describeAnswer(answer);
  return {
    status: 'warn',
    reason: `${method} (${wire} wire) with cursor ${JSON.stringify(INVALID_CURSOR)} got ${got}; an invalid cursor SHOULD get -32602`,
  };
}

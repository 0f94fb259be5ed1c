/**
 * What a live tool call must show, as assertions the generated tests share: a result (not a
 * JSON-RPC error) within the per-call timeout, `structuredContent` valid against the
 * `outputSchema`, and the right answer to invalid input. A failure is a LiveTestFailure whose
 * message says what was sent and what came back.
 */
import { ErrorCode } from '../../base/errors.ts';
import { isObject, type JsonObject, type RequestId } from '../../base/jsonrpc.ts';
import { type Answer, describeAnswer, toolText } from '../client/probe-client.ts';
import type { Level } from '../conformance/check-catalog.ts';
import {
  describeCall,
  type EnvelopeRule,
  envelopeFinding,
  judgeCallError,
} from '../conformance/protocol-rules.ts';
import { validateValue } from '../schema/json-schema.ts';
import type { LiveCheckId } from './catalog.ts';

/**
 * A failed generated test: the message is the finding, so the stack is left out. `level`, when
 * set, overrides the level of the test's family (see live/catalog.ts); `check`, the family
 * itself (a task rule broken during a generated call).
 */
export class LiveTestFailure extends Error {
  // Not enumerable: node's reporters print an error's own enumerable properties beside it
  // (`{ level: undefined, check: undefined }` under every failure).
  declare readonly level: Level | undefined;
  declare readonly check: LiveCheckId | undefined;
  /** A fix for this finding in place of its family's (e.g. a Host refusal at the handshake). */
  declare readonly fix: string | undefined;
  /**
   * A warning within its rule (the rule's own level kept: a MUST check answered, but with
   * another code than the one it names), reported as a warning, a failure under `--strict`.
   */
  declare readonly warning: boolean;
  /** What the test saw beside the finding (diagnostics). */
  declare readonly notes: readonly string[];
  constructor(
    message: string,
    level?: Level,
    check?: LiveCheckId,
    fix?: string,
    warning = false,
    notes: readonly string[] = [],
  ) {
    super(message);
    this.name = 'LiveTestFailure';
    this.stack = `${this.name}: ${message}`;
    Object.defineProperties(this, {
      level: { value: level, enumerable: false },
      check: { value: check, enumerable: false },
      fix: { value: fix, enumerable: false },
      warning: { value: warning, enumerable: false },
      notes: { value: notes, enumerable: false },
    });
  }
}

/** What a passing case wants said: notes (diagnostics), warnings (reported, not failed), or why it could not judge. */
export interface CaseOutcome {
  notes?: string[];
  warnings?: string[];
  /** The case could not run to a verdict (reported as skipped), e.g. the tool needs sampling. */
  skipped?: string;
}

export function fail(message: string, level?: Level, check?: LiveCheckId, fix?: string): never {
  throw new LiveTestFailure(message, level, check, fix);
}

/**
 * A shared judgement (protocol-rules.ts) as a generated test's outcome, worded as `check` words
 * it (the judgement's reason names the request): a warning is a finding reported as a warning at
 * the rule's own level (as `check` prints it: `[MUST, warning]`), a failure at the family's
 * level; an error answer is then held to the envelope rules (jsonrpc "2.0", the id echoed),
 * whose findings name the request as `what`.
 */
export function judged(
  what: string,
  sentId: RequestId,
  answer: Answer,
  j: { status: 'pass' | 'warn' | 'fail'; reason?: string; fix?: string },
  options: { nullIdOk?: boolean } = {},
): CaseOutcome {
  if (j.status === 'fail') fail(j.reason ?? `${what}: failed`, undefined, undefined, j.fix);
  if (answer.kind === 'error') expectProtocolError(what, sentId, answer, [answer.error.code], options);
  if (j.status === 'warn')
    throw new LiveTestFailure(j.reason ?? `${what}: a warning`, undefined, undefined, j.fix, true);
  return j.reason !== undefined ? { notes: [j.reason] } : {};
}

/** `--invalid-input`: the spec moved from -32602 (to 2025-06-18) to an isError result (2025-11-25, SEP-1303). */
export type InvalidInputMode = 'error' | 'result' | 'either';

/**
 * A generated call: a result within the timeout; with `mustSucceed` (examples) an isError
 * result fails too, otherwise it is reported. A non-error result is checked against the
 * tool's outputSchema.
 */
export function expectToolResult(
  tool: JsonObject,
  sent: unknown,
  answer: Answer,
  options: { mustSucceed: boolean; timeoutFlag?: string },
): CaseOutcome {
  const call = describeCall(String(tool.name), sent);
  if (answer.kind === 'timeout') {
    // The kit cannot tell slow from hung: a SHOULD-level finding, after the call was cancelled.
    fail(
      `${call}: no result within ${answer.afterMs / 1000} s; the call was cancelled (raise ${options.timeoutFlag ?? '--call-timeout'} for a slow tool)`,
      'SHOULD',
    );
  }
  // The test client declares no sampling, elicitation or roots: a tool that needs them cannot be judged.
  if (answer.kind === 'error' && answer.error.code === ErrorCode.MissingRequiredClientCapability) {
    return {
      skipped: `needs a client capability this test client does not offer: ${answer.error.message} (declare it with --client-capabilities)`,
    };
  }
  if (answer.kind === 'error') {
    // A valid call answered with a JSON-RPC error: a house finding, with the server's message
    // (protocol-rules.ts), never the output schema's MUST (there is no result to conform).
    const found = judgeCallError(String(tool.name), sent, answer.error);
    const family = found.rule === 'tools.schema-accepted' ? 'test.schema-accepted' : 'test.execution-error';
    fail(found.reason, undefined, family);
  }
  // No JSON-RPC response at all: JSON-RPC 2.0 §5, "the Server MUST reply with a Response".
  if (answer.kind !== 'result') fail(`${call}: expected a result, got ${describeAnswer(answer)}`, 'MUST');
  const result = answer.result;
  if (result.resultType === 'input_required') {
    return {
      skipped:
        'asks the client for input (input_required) this test client does not answer (declare it with --client-capabilities)',
    };
  }
  if (!Array.isArray(result.content)) fail(`${call}: the result has no content array`, 'MUST');
  if (result.isError === true) {
    const text = toolText(result);
    if (options.mustSucceed) fail(`${call}: the tool answered isError: ${text}`);
    return { notes: [`the tool answered isError (reported, not failed): ${text}`] };
  }
  if (isObject(tool.outputSchema)) {
    if (!isObject(result.structuredContent)) {
      fail(`${call}: no structuredContent although the tool declares an outputSchema`, 'MUST');
    }
    const issues = validateValue(tool.outputSchema, result.structuredContent);
    if (issues.length > 0) {
      fail(
        `${call}: structuredContent does not match the outputSchema: ${issues.slice(0, 5).join('; ')}`,
        'MUST',
      );
    }
  }
  return {};
}

/** An invalid input must be refused: -32602, or an isError result, as `mode` allows. */
export function expectRefusal(
  tool: JsonObject,
  sent: unknown,
  answer: Answer,
  mode: InvalidInputMode,
): CaseOutcome {
  const call = describeCall(String(tool.name), sent);
  const isRpc = answer.kind === 'error' && answer.error.code === ErrorCode.InvalidParams;
  const isResult = answer.kind === 'result' && answer.result.isError === true;
  if (mode === 'error' && isRpc) return {};
  if (mode === 'result' && isResult) return {};
  if (mode === 'either' && (isRpc || isResult)) return {};
  const wanted =
    mode === 'error'
      ? 'error -32602'
      : mode === 'result'
        ? 'an isError result'
        : 'error -32602 or an isError result';
  if (answer.kind === 'result' && answer.result.isError !== true) {
    fail(`${call}: the invalid input was accepted (expected ${wanted})`);
  }
  fail(`${call}: expected ${wanted}, got ${describeAnswer(answer)}`);
}

/** A protocol probe's answer: one of the codes, and an envelope that holds (JSON-RPC 2.0 §5). */
/** The family of test that applies each envelope rule of check. */
const ENVELOPE_FAMILY: Record<EnvelopeRule, LiveCheckId> = {
  'jsonrpc.version': 'test.jsonrpc-version',
  'jsonrpc.id-echo': 'test.id-echo',
  'jsonrpc.result-xor-error': 'test.result-xor-error',
};

export function expectProtocolError(
  what: string,
  sentId: RequestId,
  answer: Answer,
  codes: readonly number[],
  options: { nullIdOk?: boolean } = {},
): CaseOutcome {
  if (answer.kind !== 'error' || !codes.includes(answer.error.code)) {
    fail(`${what}: expected error ${codes.join(' or ')}, got ${describeAnswer(answer)}`);
  }
  // An invalid request may be answered with id null (JSON-RPC 2.0 §5: its id could not be read).
  // A broken envelope is check's jsonrpc.* rule, in its words and under its family.
  const broken = envelopeFinding(answer.response, sentId, options.nullIdOk === true);
  if (broken !== undefined) fail(broken.reason, undefined, ENVELOPE_FAMILY[broken.rule]);
  return {};
}

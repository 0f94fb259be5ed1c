/**
 * What the upstream's failures become for our clients. A tool call that fails upstream (a
 * JSON-RPC error, the connection lost mid-call, no upstream at all) is an `isError` result the
 * model can read, saying whether a retry may help. For resources, prompts and completion, an
 * upstream error with a standard code (invalid params, resource not found) keeps its code; any
 * other failure is a handler error (-32603) with the upstream's message.
 */
import { ErrorCode, type JsonObject, ProtocolError, type ToolResult } from '@mcp-toolkit/server';
import {
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  ProtocolError as UpstreamProtocolError,
} from '@modelcontextprotocol/client';
import { NoCallerToken } from './caller-token.ts';
import { UNREADABLE } from './line-buffer.ts';
import { UpstreamUnavailable } from './upstream.ts';

/** The codes passed on as they are: the client's request was wrong, or named nothing. */
const KEPT_CODES = new Set<number>([
  ErrorCode.InvalidParams,
  ErrorCode.MethodNotFound,
  // The 2025 revisions' "resource not found" (our own -32002 means a timed-out request).
  ProtocolErrorCode.ResourceNotFound,
]);

/** One line on what went wrong, and whether retrying may help. */
export function describeFailure(err: unknown): { text: string; retryable: boolean } {
  if (err instanceof UpstreamUnavailable) return { text: err.message, retryable: true };
  if (err instanceof NoCallerToken) return { text: err.message, retryable: false };
  if (err instanceof SdkError && err.code === SdkErrorCode.ConnectionClosed) {
    return {
      text: 'The upstream MCP server went away during the call (it is being restarted); the call may or may not have been carried out. Retry shortly.',
      retryable: true,
    };
  }
  if (err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout) {
    return { text: `The upstream MCP server did not answer in time: ${err.message}.`, retryable: true };
  }
  if (
    err instanceof UpstreamProtocolError &&
    (err.data as { reason?: unknown } | undefined)?.reason === UNREADABLE
  ) {
    // The proxy's own stand-in for an answer it could not read (line-buffer.ts): its message says why.
    return { text: err.message.replace(/^MCP error -?\d+: /, ''), retryable: false };
  }
  if (err instanceof UpstreamProtocolError) {
    return {
      text: `The upstream MCP server refused the call: ${err.message} (${err.code}).`,
      retryable: false,
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { text: `The upstream MCP server call failed: ${message}.`, retryable: false };
}

/** A failed upstream tool call as the `isError` result our client gets. */
export function toolFailure(err: unknown): ToolResult<JsonObject> {
  const { text } = describeFailure(err);
  return { kind: 'tool_result', isError: true, content: [{ type: 'text', text }] };
}

/** Rethrows an upstream failure for a resource, prompt or completion handler. */
export function forwardError(err: unknown): never {
  if (err instanceof UpstreamProtocolError && KEPT_CODES.has(err.code)) {
    throw new ProtocolError(err.code, err.message, err.data !== undefined ? { data: err.data } : {});
  }
  throw new Error(describeFailure(err).text);
}

/** How a request to a server ended, and the short texts failure messages are made of. */
import { isObject, type JsonObject } from '../../base/jsonrpc.ts';

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** How one request ended. */
export type Answer =
  | { kind: 'result'; result: JsonObject; response: JsonObject; status?: number }
  | { kind: 'error'; error: RpcError; response: JsonObject; status?: number }
  /** An HTTP reply that carried no JSON-RPC response to the request. */
  | { kind: 'http'; status: number; bodyText?: string }
  | { kind: 'timeout'; afterMs: number }
  /** No response, known without waiting out the timeout (a later request was answered first). */
  | { kind: 'unanswered'; reason: string }
  | { kind: 'closed'; reason: string };

/** Short text of an answer, for failure messages. */
export function describeAnswer(answer: Answer): string {
  switch (answer.kind) {
    case 'result':
      return answer.result.isError === true ? `an isError result: ${toolText(answer.result)}` : 'a result';
    case 'error':
      return `error ${answer.error.code} (${answer.error.message})${answer.status ? ` with HTTP ${answer.status}` : ''}`;
    case 'http':
      return `HTTP ${answer.status} without a JSON-RPC response${answer.bodyText ? `: ${answer.bodyText.slice(0, 120)}` : ''}`;
    case 'timeout':
      return `no answer within ${answer.afterMs / 1000} s`;
    case 'unanswered':
      return `no response (${answer.reason})`;
    case 'closed':
      return `the connection closed (${answer.reason})`;
  }
}

/** The text content of a tool result, joined and shortened. */
export function toolText(result: JsonObject): string {
  const content = Array.isArray(result.content) ? (result.content as JsonObject[]) : [];
  const text = content
    .filter((c) => isObject(c) && c.type === 'text')
    .map((c) => String(c.text))
    .join(' ');
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

const MAX_LISTED = 5;

/** `a; b; c and 4 more`: keeps a finding readable when many items break a rule. */
export function listSome(items: readonly string[]): string {
  if (items.length <= MAX_LISTED) return items.join('; ');
  return `${items.slice(0, MAX_LISTED).join('; ')} and ${items.length - MAX_LISTED} more`;
}

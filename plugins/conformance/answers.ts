/**
 * Reading the client's answers to an input round. An answer that does not have the shape
 * its method promises (an elicitation without `action`, a sampling result without content,
 * roots that are not a list) counts as no answer, so the handler asks again instead of
 * finishing on garbage (SEP-2322: validate inputResponses).
 */
import type { HandlerContext } from '@mcp-toolkit/server';

export interface Elicited {
  action: 'accept' | 'decline' | 'cancel';
  content: Record<string, unknown> | undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `elicitation/create` result under `key`, when well-formed. */
export function elicited(ctx: HandlerContext, key: string): Elicited | undefined {
  const answer = ctx.inputResponses?.[key];
  if (!isRecord(answer)) return undefined;
  const { action, content } = answer;
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') return undefined;
  if (content !== undefined && !isRecord(content)) return undefined;
  return { action, content };
}

/** The text of the `sampling/createMessage` result under `key`, when well-formed. */
export function sampledText(ctx: HandlerContext, key: string): string | undefined {
  const answer = ctx.inputResponses?.[key];
  if (!isRecord(answer)) return undefined;
  // 2025-11-25 allows content to be one block or an array of blocks.
  const blocks = Array.isArray(answer.content) ? answer.content : [answer.content];
  const texts = blocks.filter(isRecord).flatMap((b) => (b.type === 'text' ? [String(b.text)] : []));
  return texts.length > 0 ? texts.join('\n') : undefined;
}

/** The URIs of the `roots/list` result under `key`, when well-formed. */
export function rootUris(ctx: HandlerContext, key: string): string[] | undefined {
  const answer = ctx.inputResponses?.[key];
  if (!isRecord(answer) || !Array.isArray(answer.roots)) return undefined;
  return answer.roots.filter(isRecord).map((r) => String(r.uri));
}

/** A string field of an accepted elicitation, when present. */
export function acceptedText(answer: Elicited | undefined, field: string): string | undefined {
  const value = answer?.action === 'accept' ? answer.content?.[field] : undefined;
  return typeof value === 'string' ? value : undefined;
}

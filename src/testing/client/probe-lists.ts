/** Following a list method's cursors to its end, for the kit's client (Pagination). */
import type { JsonObject } from '../../base/jsonrpc.ts';
import { type Answer, describeAnswer } from './answer.ts';
import { headerParamsOf } from './probe-wire.ts';

/** Every item of every page, how many pages, and what stopped the walk early. */
export interface ListedPages {
  items: JsonObject[];
  pages: number;
  problem?: string;
  answer?: Answer;
}

/** What the walk reads of the kit's client (probe-client.ts, which walks through `listAll`). */
export interface PagingClient {
  /** Tools whose arguments are mirrored into `Mcp-Param-*` headers on 2026, filled from tools/list. */
  readonly headerParams: Map<string, { property: string; header: string }[]>;
  request(method: string, params: JsonObject): Promise<Answer>;
}

/** Every page of a list method; stops at a repeated cursor, an error, or 100 pages. */
export async function listAllPages(
  client: PagingClient,
  method: string,
  field: string,
): Promise<ListedPages> {
  const items: JsonObject[] = [];
  const seen = new Set<string>();
  let cursor: unknown;
  for (let pages = 1; pages <= 100; pages++) {
    const answer = await client.request(method, cursor === undefined ? {} : { cursor: cursor as string });
    if (answer.kind !== 'result') {
      const where = cursor === undefined ? method : `${method} with cursor ${JSON.stringify(cursor)}`;
      return { items, pages, problem: `${where} got ${describeAnswer(answer)}`, answer };
    }
    const list = answer.result[field];
    if (!Array.isArray(list))
      return { items, pages, problem: `${method} result has no ${field} array`, answer };
    items.push(...(list as JsonObject[]));
    // Tools whose arguments are mirrored into Mcp-Param-* headers on 2026 (SEP-2243).
    if (method === 'tools/list')
      for (const [tool, params] of headerParamsOf(list)) client.headerParams.set(tool, params);
    cursor = answer.result.nextCursor;
    if (cursor === undefined || cursor === null) return { items, pages };
    if (typeof cursor !== 'string')
      return { items, pages, problem: `nextCursor is not a string: ${JSON.stringify(cursor)}` };
    if (seen.has(cursor))
      return { items, pages, problem: `nextCursor ${JSON.stringify(cursor)} repeats (a loop)` };
    seen.add(cursor);
  }
  return { items, pages: 100, problem: `${method} still had a nextCursor after 100 pages` };
}

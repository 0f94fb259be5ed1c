/**
 * Invalid cursors on every paginated list the server declares, on each wire it speaks
 * (Pagination §Error Handling: "Invalid cursors SHOULD result in an error with code -32602").
 * The probes of both wires are gathered here and judged as one check, `pagination.invalid-cursor`,
 * which names every list that served an invalid cursor; `test_invalid_cursor` sends the same
 * probes on the wire of its run and is judged and worded by the same `judgement()`. A list that
 * fails on its own (-32603, a database down) says nothing about the cursor and is left out.
 */
import { isObject, type JsonObject } from '../../base/jsonrpc.ts';
import { listSome } from '../client/answer.ts';
import type { ProbeClient, Wire } from '../client/probe-client.ts';
import { INVALID_CURSOR, internalErrorReason, type Judgement, judgeInvalidCursor } from './protocol-rules.ts';
import type { Recorder } from './recorder.ts';

/** The paginated list methods of a capability (Pagination §Operations Supporting Pagination). */
function listsOf(capabilities: JsonObject): string[] {
  return [
    ...(isObject(capabilities.tools) ? ['tools/list'] : []),
    ...(isObject(capabilities.resources) ? ['resources/list', 'resources/templates/list'] : []),
    ...(isObject(capabilities.prompts) ? ['prompts/list'] : []),
  ];
}

export class CursorProbes {
  readonly #judged: Judgement[] = [];
  /** Lists that failed on their own (-32603): nothing said about the cursor. */
  readonly #failed: string[] = [];

  /** Sends each declared list an invalid cursor on `wire` (the client's own connection). */
  async probe(c: ProbeClient, wire: Wire, capabilities: JsonObject): Promise<void> {
    for (const method of listsOf(capabilities)) {
      if (c.link.failure !== undefined) return;
      const answer = await c.request(method, { cursor: INVALID_CURSOR }, { wire });
      const internal = internalErrorReason(`${method} (${wire} wire)`, answer);
      if (internal !== undefined) this.#failed.push(internal);
      else this.#judged.push(judgeInvalidCursor(method, wire, answer));
    }
  }

  /** One verdict for every probe sent: not run when the server declares no list. */
  judgement(): { status: 'pass' | 'warn' | 'not-run'; reason: string } {
    if (this.#judged.length === 0)
      return {
        status: 'not-run',
        reason: this.#failed[0] ?? 'the server declares no tools, resources or prompts',
      };
    const warned = this.#judged.filter((j) => j.status !== 'pass').map((j) => j.reason ?? '');
    if (warned.length === 0) return { status: 'pass', reason: `${this.#judged.length} lists asked` };
    return { status: 'warn', reason: listSome(warned) };
  }

  record(rec: Recorder): void {
    const j = this.judgement();
    if (j.status === 'not-run') rec.notRun('pagination.invalid-cursor', j.reason);
    else if (j.status === 'pass') rec.pass('pagination.invalid-cursor', j.reason);
    else rec.fail('pagination.invalid-cursor', j.reason);
  }
}

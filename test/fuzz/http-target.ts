/**
 * The HTTP fuzz target: `mcp-toolkit run --transport http` on 127.0.0.1 as a child process,
 * with two 2025-wire sessions opened at start (2025-03-26, where batches are served, and
 * 2025-11-25, where POST streams are resumable). Each case is one POST over a keep-alive
 * socket; its answer must be a JSON-RPC body (JSON, or an SSE stream of JSON-RPC events), or
 * 202 with no body when nothing was owed, and never a reset connection.
 */
import http from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import fc from 'fast-check';
import { type SpawnedHttpServer, spawnHttpServer } from '../helpers/spawn-server.ts';
import { type HeaderPlan, type HttpCase, httpCaseArb, payloadBytes } from './generators.ts';
import { idKey, isObject, isResponse, malformed, type Owing, owedFor, parseIds, settle } from './oracle.ts';
import {
  ANSWER_TIMEOUT_MS,
  clip,
  countAnswer,
  describePayload,
  type FuzzTarget,
  fuzzEnv,
  LIMITS,
  newStats,
  ORACLE,
  scanLog,
  type TargetStats,
  tail,
} from './target.ts';

/** How long a POST that owes nothing for sure (a held subscriptions/listen) is left open. */
const HOLD_MS = 1_500;
/**
 * Statuses of refusals made before the body is read as messages (auth, media types, sizes,
 * headers, overload): their one error may carry id null whatever the body held.
 */
// 400 and 404 refuse a POST whose session is missing or unknown, whatever the body holds.
const WHOLE_REFUSALS = new Set([400, 401, 403, 404, 406, 413, 415, 429, 431, 503]);
const PARSE_ERROR = -32700;
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';

interface Answer {
  status: number;
  contentType: string;
  body: string;
  error?: string;
  timedOut?: boolean;
}

/** The data of each SSE event (`data:` lines joined), the empty priming event left out. */
export function sseData(text: string): string[] {
  const out: string[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(l.startsWith('data: ') ? 6 : 5));
    if (data.length > 0 && data.join('') !== '') out.push(data.join('\n'));
  }
  return out;
}

function topLevelId(text: string): unknown {
  try {
    const body = parseIds(text);
    return isObject(body) ? body.id : undefined;
  } catch {
    return undefined;
  }
}

const owesSomething = (o: Owing) =>
  o.singles.some((s) => !s.optional) || o.batches.some((b) => b.members.some((m) => !m.optional));

class HttpTarget implements FuzzTarget<HttpCase> {
  readonly transport = 'http' as const;
  readonly runArb = fc.array(httpCaseArb(LIMITS), { minLength: 1, maxLength: 6 });
  readonly stats: TargetStats = newStats();
  readonly #env: Record<string, string>;
  readonly #agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  #server: SpawnedHttpServer | undefined;
  #sessions = { batching: '', current: '' };
  #logFrom = 0;

  constructor(root: string) {
    this.#env = fuzzEnv(root);
  }

  async start(): Promise<void> {
    this.#server = await spawnHttpServer(this.#env);
    this.#logFrom = 0;
    this.#sessions = { batching: await this.#open('2025-03-26'), current: await this.#open('2025-11-25') };
  }

  async #open(version: string): Promise<string> {
    const init = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
    });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const res = await this.#post(Buffer.from(init), headers, ANSWER_TIMEOUT_MS);
    const sid = res.sessionId;
    if (res.status !== 200 || !sid)
      throw new Error(`initialize ${version} failed: ${res.status} ${res.body}`);
    const note = Buffer.from('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    await this.#post(
      note,
      { ...headers, 'mcp-session-id': sid, 'mcp-protocol-version': version },
      ANSWER_TIMEOUT_MS,
    );
    return sid;
  }

  #post(
    body: Buffer,
    headers: Record<string, string>,
    timeoutMs: number,
  ): Promise<Answer & { sessionId?: string }> {
    const url = new URL(this.#server!.url);
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let head: { status: number; contentType: string; sessionId?: string } | undefined;
      const done = (extra: Partial<Answer> = {}) => {
        clearTimeout(timer);
        resolve({
          status: head?.status ?? 0,
          contentType: head?.contentType ?? '',
          sessionId: head?.sessionId,
          body: Buffer.concat(chunks).toString('utf8'),
          ...extra,
        });
      };
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          agent: this.#agent,
          headers: { ...headers, 'content-length': String(body.length) },
        },
        (res) => {
          const sid = res.headers['mcp-session-id'];
          head = {
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            sessionId: typeof sid === 'string' ? sid : undefined,
          };
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => done());
          res.on('error', (err) => done({ error: `the response broke off: ${err.message}` }));
        },
      );
      const timer = setTimeout(() => {
        done({ error: `no complete answer within ${timeoutMs} ms`, timedOut: true });
        req.destroy();
      }, timeoutMs);
      req.on('error', (err: NodeJS.ErrnoException) =>
        done({ error: `${err.code ?? ''} ${err.message}`.trim() }),
      );
      req.end(body);
    });
  }

  #headers(plan: HeaderPlan, text: string): Record<string, string> {
    const h: Record<string, string> = {};
    if (plan.contentType !== null) h['content-type'] = plan.contentType;
    if (plan.accept !== null) h.accept = plan.accept;
    const sid = {
      batching: this.#sessions.batching,
      current: this.#sessions.current,
      none: undefined,
      unknown: 'no-such-session',
      empty: '',
    }[plan.session];
    if (sid !== undefined) h['mcp-session-id'] = sid;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {}
    const params = isObject(body) && isObject(body.params) ? body.params : {};
    let version = plan.protocolVersion;
    if (version === 'match') {
      const declared = isObject(params._meta) ? params._meta[META_VERSION] : undefined;
      const negotiated = { batching: '2025-03-26', current: '2025-11-25' } as Record<string, string>;
      version = typeof declared === 'string' ? declared : (negotiated[plan.session] ?? null);
    }
    if (version !== null) h['mcp-protocol-version'] = version;
    const method = plan.mcpMethod === 'match' ? (isObject(body) ? body.method : undefined) : plan.mcpMethod;
    if (typeof method === 'string' && method !== 'none') h['mcp-method'] = method;
    const name = plan.mcpName === 'match' ? (params.name ?? params.uri) : plan.mcpName;
    if (typeof name === 'string' && name !== 'none') h['mcp-name'] = name;
    for (const [k, v] of Object.entries(h)) if (!HEADER_VALUE.test(v)) delete h[k];
    if (plan.oversizedHeader) h['x-fuzz-padding'] = 'a'.repeat(20_000);
    return h;
  }

  #alive(): boolean {
    const child = this.#server?.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  #exitProblem(): string {
    const child = this.#server?.child;
    return `the server exited (code ${child?.exitCode}, signal ${child?.signalCode}); its log ends:\n${tail(this.#server?.stderr() ?? '')}`;
  }

  async exchange(cases: readonly HttpCase[]): Promise<string[]> {
    if (!this.#alive()) {
      this.stats.restarts++;
      await this.start();
    }
    const results = await Promise.all(cases.map((c) => this.#one(c)));
    const problems = results.flat();
    // A broken connection is often the server dying: give its exit a moment to be seen.
    if (problems.length > 0) await Promise.race([this.#server?.exited, delay(1_000)]);
    if (!this.#alive()) problems.unshift(this.#exitProblem());
    const log = scanLog(this.#server?.stderr() ?? '', this.#logFrom, this.stats);
    this.#logFrom = log.next;
    problems.push(...log.problems);
    return problems;
  }

  async #one(c: HttpCase): Promise<string[]> {
    const bytes = payloadBytes(c.payload);
    const text = bytes.toString('utf8');
    const owing = owedFor(text, { ...ORACLE, batches: 'either' });
    const owes = owesSomething(owing);
    const res = await this.#post(bytes, this.#headers(c.headers, text), owes ? ANSWER_TIMEOUT_MS : HOLD_MS);
    this.stats.payloads++;
    const where = `POST (${res.status || 'no status'})`;
    if (res.error) {
      if (res.timedOut && !owes) return [];
      return [`${where}: ${res.error}`];
    }
    if (res.status === 500) return [`${where}: the server failed on its own: ${clip(res.body, 300)}`];
    if (res.status === 202) {
      if (res.body !== '') return [`${where}: 202 with a body: ${clip(res.body, 200)}`];
      return owes ? [`${where}: 202 (no answer) for a payload that owes one`] : [];
    }
    const sse = res.contentType.startsWith('text/event-stream');
    let messages: unknown[];
    try {
      messages = sse ? sseData(res.body).map((d) => parseIds(d)) : [parseIds(res.body)];
    } catch {
      return [
        `${where}: the body is not JSON-RPC (${res.contentType || 'no content-type'}): ${clip(res.body, 300)}`,
      ];
    }
    const problems: string[] = [];
    const answers: unknown[] = [];
    for (const m of messages) {
      const wrong = malformed(m);
      if (wrong) problems.push(`${where}: a malformed message (${wrong}): ${clip(JSON.stringify(m), 300)}`);
      else if (!(isObject(m) && typeof m.method === 'string')) answers.push(m);
    }
    if (problems.length > 0) return problems;
    // A batch answered on an SSE stream carries one event per reply (2025-03-26 transports:
    // one response per request, which MAY be batched): together they are the batch's reply.
    if (sse && owing.batches.length > 0 && answers.length > 0 && !answers.some(Array.isArray)) {
      answers.splice(0, answers.length, answers.slice());
    }
    for (const a of answers.flatMap((x) => (Array.isArray(x) ? x : [x]))) countAnswer(this.stats, a);
    const only = answers.length === 1 ? answers[0] : undefined;
    if (res.status >= 400 && isResponse(only) && isObject(only.error)) {
      // The POST refused as a whole: id null; or, for a POST that owed nothing (a response
      // or notification), the id field its body carried.
      if (only.id === null) {
        if (
          WHOLE_REFUSALS.has(res.status) ||
          only.error.code === PARSE_ERROR ||
          owing.batches.length > 0 ||
          !owes
        )
          return [];
      } else if (!owes && idKey(only.id) === idKey(topLevelId(text))) return [];
    }
    const s = settle(owing.singles, owing.batches, answers);
    for (const u of s.unanswered) problems.push(`${where}: unanswered: ${u}`);
    for (const u of s.unexpected)
      problems.push(`${where}: an answer nothing was owed for: ${clip(JSON.stringify(u), 300)}`);
    return problems;
  }

  describe(c: HttpCase): string {
    return `POST headers ${JSON.stringify(c.headers)} body ${describePayload(c.payload)}`;
  }

  async finish(): Promise<string[]> {
    this.#agent.destroy();
    const server = this.#server;
    if (!server) return [];
    if (!this.#alive()) return [this.#exitProblem()];
    const code = await server.stop();
    const problems = scanLog(server.stderr(), this.#logFrom, this.stats).problems;
    if (code !== 0) problems.push(`after SIGTERM the server exited with ${code} (0 expected)`);
    return problems;
  }
}

/** Starts an HTTP server to fuzz (its sandbox root must exist). */
export async function startHttpTarget(root: string): Promise<FuzzTarget<HttpCase>> {
  const target = new HttpTarget(root);
  await target.start();
  return target;
}

/**
 * The stdio fuzz target: `mcp-toolkit run --transport stdio` as a child process, initialised
 * once on 2025-03-26 (so batches are served), fed payloads on stdin. Every stdout line must
 * be JSON-RPC; answers are matched to what each line was owed across the whole session (ids
 * repeat, answers arrive in any order); a request the fuzzer cancelled may stay unanswered.
 * Requests the server sends (for client input) are answered with an error so nothing waits.
 */
import fc from 'fast-check';
import { type SpawnedProcess, spawnCli, spawnNode } from '../helpers/spawn-server.ts';
import { type Payload, payloadArb, payloadBytes } from './generators.ts';
import {
  type BatchOwed,
  isObject,
  malformed,
  markCancelled,
  NULL_ID,
  type Owed,
  owedFor,
  parseIds,
  settle,
} from './oracle.ts';
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

const SETUP_ID = 'fuzz-setup-initialize';
const EXIT_TIMEOUT_MS = 10_000;

/** What each line of a payload is owed, split as the server splits stdin (one message a line). */
export function owedForLines(text: string): { singles: Owed[]; batches: BatchOwed[]; cancels: string[] } {
  const out = { singles: [] as Owed[], batches: [] as BatchOwed[], cancels: [] as string[] };
  for (const raw of text.split('\n')) {
    if (Buffer.byteLength(raw) > LIMITS.maxBodyBytes) {
      out.singles.push({
        ids: [NULL_ID],
        optional: false,
        note: `a line of ${Buffer.byteLength(raw)} bytes`,
      });
      continue;
    }
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') continue;
    const owing = owedFor(line, { ...ORACLE, batches: 'allowed' });
    out.singles.push(...owing.singles);
    out.batches.push(...owing.batches);
    out.cancels.push(...owing.cancels);
  }
  return out;
}

class StdioTarget implements FuzzTarget<Payload> {
  readonly transport = 'stdio' as const;
  readonly runArb = fc.array(payloadArb(LIMITS), { minLength: 1, maxLength: 6 });
  readonly stats: TargetStats = newStats();
  readonly #env: Record<string, string>;
  readonly #command: readonly string[] | undefined;
  #proc: SpawnedProcess | undefined;
  #answers: unknown[] = [];
  /** Answers that may still come (cancelled requests, held listens), and since when. */
  #open: { singles: Owed[]; batches: BatchOwed[] } = { singles: [], batches: [] };
  readonly #openSince = new WeakMap<object, number>();
  #problems: string[] = [];
  #logFrom = 0;
  #wake: (() => void) | undefined;
  #setup: ((m: Record<string, unknown>) => void) | undefined;

  constructor(root: string, command: readonly string[] | undefined) {
    this.#env = fuzzEnv(root);
    this.#command = command;
  }

  async start(): Promise<void> {
    const proc = this.#command
      ? spawnNode(this.#command, this.#env)
      : spawnCli(['run', '--transport', 'stdio'], this.#env);
    this.#proc = proc;
    this.#answers = [];
    this.#open = { singles: [], batches: [] };
    this.#logFrom = 0;
    let rest = '';
    proc.child.stdout.setEncoding('utf8');
    proc.child.stdout.on('data', (chunk: string) => {
      rest += chunk;
      for (let nl = rest.indexOf('\n'); nl !== -1; nl = rest.indexOf('\n')) {
        this.#line(rest.slice(0, nl));
        rest = rest.slice(nl + 1);
      }
      this.#wake?.();
    });
    proc.child.once('exit', () => this.#wake?.());
    proc.child.stdin.on('error', () => {}); // EPIPE once the server is gone: reported as its exit
    let timer: NodeJS.Timeout | undefined;
    const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
      this.#setup = resolve;
      timer = setTimeout(() => reject(new Error(`no initialize answer; stderr:\n${proc.stderr()}`)), 30_000);
      void proc.exited.then(() => reject(new Error(`the server exited at start; stderr:\n${proc.stderr()}`)));
    });
    this.#write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: SETUP_ID,
        method: 'initialize',
        params: {
          protocolVersion: '2025-03-26',
          capabilities: {},
          clientInfo: { name: 'fuzz', version: '1' },
        },
      })}\n`,
    );
    let answer: Record<string, unknown>;
    try {
      answer = await ready;
    } finally {
      clearTimeout(timer);
    }
    if (!isObject(answer.result)) throw new Error(`initialize failed: ${JSON.stringify(answer)}`);
    this.#write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  }

  #write(data: string | Buffer): void {
    this.#proc?.child.stdin.write(data);
  }

  #line(line: string): void {
    let m: unknown;
    try {
      m = parseIds(line);
    } catch {
      this.#problems.push(`stdout carried a line that is not JSON: ${JSON.stringify(clip(line, 300))}`);
      return;
    }
    const wrong = malformed(m);
    if (wrong) {
      this.#problems.push(`stdout carried a malformed message (${wrong}): ${clip(line, 300)}`);
      this.#wake?.();
      // Still an answer to its id (so it is not also reported as missing), unless it cannot be one.
      if (!isObject(m) || typeof m.method === 'string') return;
    }
    if (isObject(m) && m.id === SETUP_ID && this.#setup) {
      this.#setup(m);
      this.#setup = undefined;
      return;
    }
    if (isObject(m) && typeof m.method === 'string') {
      // A request for client input: refuse it, so the call behind it ends now.
      if ('id' in m)
        this.#write(
          `${JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'fuzzer' } })}\n`,
        );
      return;
    }
    for (const r of Array.isArray(m) ? m : [m]) countAnswer(this.stats, r);
    this.#answers.push(m);
  }

  #alive(): boolean {
    const child = this.#proc?.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  #exitProblem(): string {
    const child = this.#proc?.child;
    return `the server exited (code ${child?.exitCode}, signal ${child?.signalCode}); its log ends:\n${tail(this.#proc?.stderr() ?? '')}`;
  }

  async exchange(payloads: readonly Payload[]): Promise<string[]> {
    if (!this.#alive()) {
      this.stats.restarts++;
      await this.start();
    }
    // An answer may come later than its run, but not much later: older debts are written off.
    const now = Date.now();
    const fresh = (o: object) => now - (this.#openSince.get(o) ?? now) < ANSWER_TIMEOUT_MS;
    const singles = this.#open.singles.filter(fresh);
    const batches = this.#open.batches.filter(fresh);
    const carried = new Set<object>([...singles, ...batches]);
    const cancels: string[] = [];
    const bytes = payloads.map((p) => payloadBytes(p));
    for (const b of bytes) {
      const owing = owedForLines(b.toString('utf8'));
      singles.push(...owing.singles);
      batches.push(...owing.batches);
      cancels.push(...owing.cancels);
    }
    markCancelled([...singles, ...batches.flatMap((b) => b.members)], cancels);
    this.#problems = [];
    for (const b of bytes) this.#write(Buffer.concat([b, Buffer.from('\n')]));
    this.stats.payloads += bytes.length;

    const deadline = Date.now() + ANSWER_TIMEOUT_MS;
    const problems: string[] = [];
    for (;;) {
      // While answers may still come, read them strictly; at the deadline, generously.
      const late = Date.now() >= deadline || !this.#alive();
      const s = settle(singles, batches, this.#answers, late ? 'required' : 'exact');
      if (s.unexpected.length === 0 && s.unanswered.length === 0) {
        this.#keepOpen(s.open.singles, s.open.batches, carried);
        this.#answers = [];
        break;
      }
      const extra =
        s.unexpected.length > 0 ? settle(singles, batches, this.#answers, 'required').unexpected : [];
      for (const u of extra) problems.push(`an answer nothing was owed for: ${clip(JSON.stringify(u), 300)}`);
      if (!this.#alive()) problems.push(this.#exitProblem());
      else if (late) problems.push(`unanswered after ${ANSWER_TIMEOUT_MS} ms: ${s.unanswered.join('; ')}`);
      if (problems.length > 0 || this.#problems.length > 0) {
        // This run failed: whatever it was owed may still come, and must not fail the next run.
        for (const o of [...singles, ...batches.flatMap((b) => b.members)]) o.optional = true;
        this.#keepOpen(singles, batches, carried);
        this.#answers = [];
        break;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
    problems.push(...this.#problems);
    const log = scanLog(this.#proc?.stderr() ?? '', this.#logFrom, this.stats);
    this.#logFrom = log.next;
    problems.push(...log.problems);
    return problems;
  }

  #keepOpen(singles: Owed[], batches: BatchOwed[], carried: Set<object>): void {
    const now = Date.now();
    for (const o of [...singles, ...batches]) if (!carried.has(o)) this.#openSince.set(o, now);
    this.#open = { singles, batches };
  }

  describe(p: Payload): string {
    return `stdin line: ${describePayload(p)}`;
  }

  async finish(): Promise<string[]> {
    const proc = this.#proc;
    if (!proc) return [];
    if (!this.#alive()) return [this.#exitProblem()];
    // stdin EOF: the server answers what is pending, then exits 0.
    proc.child.stdin.end();
    const timer = setTimeout(() => proc.child.kill('SIGKILL'), EXIT_TIMEOUT_MS);
    const code = await proc.exited;
    clearTimeout(timer);
    const problems = [...this.#problems, ...scanLog(proc.stderr(), this.#logFrom, this.stats).problems];
    if (code !== 0) problems.push(`after stdin EOF the server exited with ${code} (0 expected)`);
    return problems;
  }
}

/**
 * Starts a stdio server to fuzz (its sandbox root must exist): `mcp-toolkit run`, or
 * `node <command>` when given (the suite's own tests fuzz a deliberately fragile server).
 */
export async function startStdioTarget(
  root: string,
  command?: readonly string[],
): Promise<FuzzTarget<Payload>> {
  const target = new StdioTarget(root, command);
  await target.start();
  return target;
}

/** The verdict of one conformance check, and the recorder the check groups write into. */
import { listSome } from '../client/answer.ts';
import { CHECKS, type CheckId, type Level, type Source, sourceUrl } from './check-catalog.ts';

/**
 * `pass`; `fail` (a MUST rule broken, or any rule under `--strict`: the run fails); `warn` (a
 * SHOULD or house rule broken: shown, never failing); `not-run` (nothing to judge: the server
 * declares no such feature, or the run never got that far). A check that judged nothing is
 * never a pass.
 */
export type CheckStatus = 'pass' | 'fail' | 'warn' | 'not-run';

export interface ConformanceCheck {
  /** Stable id, e.g. `tools.unknown-tool` (baselines, JUnit, --json consumers). */
  id: string;
  /** The line printed in the checklist. */
  title: string;
  level: Level;
  status: CheckStatus;
  /** Why it failed, warned or did not run; for a pass, an optional note. */
  reason?: string;
  /** What to change in the server (shown for failures and warnings). */
  fix: string;
  /** Where the rule is written, e.g. `Tools §Error Handling`. */
  source: string;
  /** The rule's address, in the negotiated revision of the specification. */
  spec: string;
}

export { listSome } from '../client/answer.ts';

export interface RecorderOptions {
  /** SHOULD and house rules fail instead of warning. */
  strict?: boolean;
  /** Called with each verdict as it is recorded (JUnit written as the run goes). */
  onCheck?: (check: ConformanceCheck) => void;
}

export class Recorder {
  readonly checks: ConformanceCheck[] = [];
  readonly #strict: boolean;
  readonly #onCheck: ((check: ConformanceCheck) => void) | undefined;
  /** The revision the spec links point at; set once a version is negotiated. */
  revision: string | undefined;
  readonly #sources = new Map<ConformanceCheck, Source>();

  constructor(options: RecorderOptions = {}) {
    this.#strict = options.strict === true;
    this.#onCheck = options.onCheck;
  }

  /** The server stopped: what is recorded now was not judged (see `stopped`). */
  #halted = false;

  /**
   * The server stopped (its process exited, its endpoint went away, it answers nothing): one MUST
   * failure that says so with the last request sent, the first time; every check recorded after
   * it is not run, until `resume` (a new process took over).
   */
  stopped(reason: string): void {
    this.#halted = false;
    if (!this.checks.some((c) => c.id === 'server.stopped')) this.fail('server.stopped', reason);
    this.#halted = true;
  }

  /** A new process took over after a stop: checks are judged again; `note` is added to the stop's finding. */
  resume(note?: string): void {
    this.#halted = false;
    const stop = this.checks.find((c) => c.id === 'server.stopped');
    if (stop !== undefined && note !== undefined) stop.reason = `${stop.reason ?? ''}\n${note}`;
  }

  /** Whether checks are being recorded as not run because the server stopped. */
  get halted(): boolean {
    return this.#halted;
  }

  /** Runs checks that judge what was seen before the stop (every response, stdout) as usual. */
  lookBack(record: () => void): void {
    const was = this.#halted;
    this.#halted = false;
    try {
      record();
    } finally {
      this.#halted = was;
    }
  }

  #add(id: CheckId, given: CheckStatus, why: string | undefined, fix?: string): void {
    const info = CHECKS[id];
    const halted = this.#halted && id !== 'server.stopped';
    const status: CheckStatus = halted ? 'not-run' : given;
    const reason = halted ? 'the server stopped (see server.stopped)' : why;
    const check: ConformanceCheck = {
      id,
      title: info.title,
      level: info.level,
      status,
      ...(reason ? { reason } : {}),
      fix: fix ?? info.fix,
      source: info.source.label,
      spec: sourceUrl(info.source, this.revision),
    };
    this.#sources.set(check, info.source);
    this.checks.push(check);
    this.#onCheck?.(check);
  }

  pass(id: CheckId, note?: string): void {
    this.#add(id, 'pass', note);
  }

  /** A broken rule: a failure for MUST (or under --strict), a warning for SHOULD and house rules. */
  fail(id: CheckId, reason: string, options: { fix?: string; must?: boolean } = {}): void {
    const must = options.must === true || CHECKS[id].level === 'MUST';
    this.#add(id, must || this.#strict ? 'fail' : 'warn', reason, options.fix);
    if (options.must === true) (this.checks.at(-1) as ConformanceCheck).level = 'MUST';
  }

  /** A finding that is at most a warning whatever the check's level (a SHOULD inside a MUST check). */
  warn(id: CheckId, reason: string, options: { fix?: string } = {}): void {
    this.#add(id, this.#strict ? 'fail' : 'warn', reason, options.fix);
  }

  /** Nothing to judge: the feature is not declared, not applicable, or was never reached. */
  notRun(id: CheckId, reason: string): void {
    this.#add(id, 'not-run', reason);
  }

  /** Records a shared judgement (protocol-rules.ts): a pass with its note, a warning, or the rule's failure. */
  judge(
    id: CheckId,
    j: { status: 'pass' | 'warn' | 'fail'; reason?: string; fix?: string },
    options: { mustOnFail?: boolean } = {},
  ): void {
    const fix = j.fix !== undefined ? { fix: j.fix } : {};
    if (j.status === 'pass') this.pass(id, j.reason);
    else if (j.status === 'warn') this.warn(id, j.reason ?? 'a warning', fix);
    else this.fail(id, j.reason ?? 'failed', { ...fix, ...(options.mustOnFail ? { must: true } : {}) });
  }

  /** A rule worded by a function both commands call (tool-list-rules.ts): passes when it found nothing. */
  found(id: CheckId, finding: string | undefined, note?: string): void {
    if (finding === undefined) this.pass(id, note);
    else this.fail(id, finding);
  }

  /** Passes when `problems` is empty, else fails listing them. */
  expect(id: CheckId, problems: readonly string[], note?: string): void {
    if (problems.length === 0) this.pass(id, note);
    else this.fail(id, listSome(problems));
  }

  /** Points every spec link at `revision` (the one negotiated), including checks already recorded. */
  setRevision(revision: string): void {
    this.revision = revision;
    for (const [check, source] of this.#sources) check.spec = sourceUrl(source, revision);
  }
}

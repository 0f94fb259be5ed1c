/**
 * What a plan of generated live tests is made of: its cases, and the options that shape them.
 * Below the plan (plan.ts) and the per-tool cases (tool-cases.ts), which both build them;
 * plan.ts re-exports them.
 */
import type { ConnectOptions } from '../client/targets.ts';
import type { CaseOutcome, InvalidInputMode } from './calls.ts';
import type { LiveCheckId } from './catalog.ts';

export interface LiveTestOptions extends ConnectOptions {
  /** `--strict`: every tool must have examples and an outputSchema. */
  strict?: boolean;
  /**
   * Call tools that are not annotated `readOnlyHint: true` too (`--allow-writes`). Off by
   * default: generated inputs (injection strings, odd names) sent to a tool that writes leave
   * files, rows or messages behind, so only a disposable target should get them.
   */
  allowWrites?: boolean;
  /** Never call a tool that could write, whatever `allowWrites` says (`--read-only`, `--production`). */
  readOnly?: boolean;
  /** How to include the skipped tools, said in each skip reason (the CLI names its flag and the target). */
  allowWritesHint?: string;
  /** What invalid input must get (default `either`). */
  invalidInput?: InvalidInputMode;
  /** Also send huge and extreme values (1e15, 10 000-character strings): `--fuzz`. */
  fuzz?: boolean;
  /**
   * Send the generated values (injection strings, odd names, extremes with `fuzz`) to tools
   * that may reach the outside world too (`openWorldHint` true or not annotated false): their
   * calls go on to a real API. Off by default: such a tool gets its basic schema-valid call only
   * (`--fuzz-open-world`).
   */
  fuzzOpenWorld?: boolean;
  /** At most this many schema-generated calls per tool (default 50). */
  maxCallsPerTool?: number;
  /** How many generated tests run at once (default 1). */
  concurrency?: number;
}

export interface LiveCase {
  name: string;
  /** The family it belongs to: level, rule and fix (live/catalog.ts). */
  check: LiveCheckId;
  /** Registered but not run, with this reason (read-only mode, nothing to generate). */
  skip?: string;
  run(): Promise<CaseOutcome>;
}

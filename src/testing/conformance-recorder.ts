/** The result of one conformance check and the recorder the check groups write into. */

export type CheckStatus = 'pass' | 'fail' | 'skip';

export interface ConformanceCheck {
  /** Stable id, e.g. `tools.unknown-tool` (for --json consumers and tests). */
  id: string;
  /** The line printed in the checklist. */
  title: string;
  status: CheckStatus;
  /** Why it failed or was skipped; for a pass, an optional note. */
  reason?: string;
}

const MAX_LISTED = 5;

/** `a, b, c and 4 more`: keeps a failure line readable when many items fail. */
export function listSome(items: readonly string[]): string {
  if (items.length <= MAX_LISTED) return items.join('; ');
  return `${items.slice(0, MAX_LISTED).join('; ')} and ${items.length - MAX_LISTED} more`;
}

export class Recorder {
  readonly checks: ConformanceCheck[] = [];

  pass(id: string, title: string, note?: string): void {
    this.checks.push({ id, title, status: 'pass', ...(note ? { reason: note } : {}) });
  }

  fail(id: string, title: string, reason: string): void {
    this.checks.push({ id, title, status: 'fail', reason });
  }

  skip(id: string, title: string, reason: string): void {
    this.checks.push({ id, title, status: 'skip', reason });
  }

  /** Passes when `problems` is empty, else fails listing them. */
  expect(id: string, title: string, problems: readonly string[], note?: string): void {
    if (problems.length === 0) this.pass(id, title, note);
    else this.fail(id, title, listSome(problems));
  }
}

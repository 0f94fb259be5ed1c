/**
 * The test kit's public API (`@mcp-toolkit/server/testing`): drive a server in-process,
 * produce the conformance report, and generate live tests for node's test runner. Explicit
 * exports only, and only types a user can build: a server in-process is reached through the
 * handle `createServer()` gives, as any program would.
 */

export type {
  CommandTarget,
  ConnectOptions,
  StreamsTarget,
  Target,
  UrlTarget,
  WireChoice,
} from './client/targets.ts';
export type { TestClientOptions } from './client/test-client.ts';
export { TestClient, TestClientError } from './client/test-client.ts';
export type { DeprecatedUse } from './conformance/deprecations.ts';
export type { ConformanceCheck, ConformanceOptions, ConformanceReport } from './conformance/report.ts';
export { conformanceReport, formatReport } from './conformance/report.ts';
export type { CaseOutcome, InvalidInputMode } from './live/calls.ts';
export { LiveTestFailure } from './live/calls.ts';
export type { LiveCase, LivePlan, LiveTestOptions } from './live/plan.ts';
export { planLiveTests } from './live/plan.ts';
export type { LiveRunSummary, ReporterName, RunLiveTestsOptions } from './live/tests.ts';
export { registerLiveTests, runLiveTests } from './live/tests.ts';

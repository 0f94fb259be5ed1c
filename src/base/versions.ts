/** Protocol revisions of the stateful 2025 wire, oldest first. */
export const VERSIONS_2025 = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
/** The stateless revision. */
export const VERSION_2026 = '2026-07-28';
export const LATEST_2025 = '2025-11-25';
/** Every revision we speak, oldest first (server/discover's `supportedVersions`). */
export const SUPPORTED_VERSIONS: readonly string[] = [...VERSIONS_2025, VERSION_2026];

/**
 * The official SDK treats any version string that sorts at or after 2026-07-28 as the
 * stateless wire (a plain string comparison); the conformance suite relies on that when it
 * probes unsupported versions such as `v999.0.0`.
 */
export function isModernVersion(version: string): boolean {
  return version >= VERSION_2026;
}

/** Batches exist in 2025-03-26 and earlier only (added in 2025-03-26, removed in 2025-06-18). */
export function allowsBatches(version: string): boolean {
  return version <= '2025-03-26';
}

/** SEP-1303: from 2025-11-25 invalid tool arguments are a tool execution error, not -32602. */
export function invalidArgsAsToolError(version: string): boolean {
  return version >= '2025-11-25';
}

/** Negotiation (lifecycle spec): echo a supported requested version, else offer our latest. */
export function negotiateVersion(requested: unknown): string {
  return typeof requested === 'string' && (VERSIONS_2025 as readonly string[]).includes(requested)
    ? requested
    : LATEST_2025;
}

/** Revisions are dated: `version` is `revision` or a later one. */
export function revisionAtLeast(version: string, revision: string): boolean {
  return version >= revision;
}

/** 2025-11-25 (SEP-1699): a reply stream may be closed early and resumed with Last-Event-ID. */
export function resumesStreams(version: string): boolean {
  return version >= '2025-11-25';
}

/** SEP-1686: the core tasks (`params.task`, `tasks/get|result|list|cancel`) exist from 2025-11-25. */
export function hasCoreTasks(version: string): boolean {
  return version >= '2025-11-25';
}

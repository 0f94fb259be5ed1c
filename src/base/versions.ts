/**
 * The protocol revisions we speak, as names. Which rules each revision follows is its wire
 * profile's to say (src/protocol/wires/): nothing here decides anything.
 */

/** Protocol revisions of the stateful 2025 wire, oldest first. */
export const VERSIONS_2025 = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
/** The stateless revision. */
export const VERSION_2026 = '2026-07-28';
/** The newest revision of the 2025 wire, what `initialize` offers a client asking for another. */
export const LATEST_2025 = '2025-11-25';
/** Every revision we speak, oldest first (server/discover's `supportedVersions`). */
export const SUPPORTED_VERSIONS: readonly string[] = [...VERSIONS_2025, VERSION_2026];

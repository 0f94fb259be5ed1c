/** The `MCP_*` settings of this area, merged into the one settings schema (src/config/settings.ts). */
export const telemetrySettingsShape = {};

/** The `MCP_*` settings of skills, merged into the one settings schema (src/config/settings.ts). */
import { envString } from '../base/env.ts';

export const skillSettingsShape = {
  MCP_SKILLS_DIR: envString().describe(
    'A folder of agent skills (each a folder with a SKILL.md) to serve with the `io.modelcontextprotocol/skills` extension: `skills/list`, `skills/get`, `resources/directory/read` and `skill://` resources. Read at start-up. Unset: no skills.',
  ),
};

/** The `MCP_*` settings of tasks, merged into the one settings schema (src/config/settings.ts). */
import { envInt } from '../base/env.ts';

export const taskSettingsShape = {
  MCP_TASK_TTL_MS: envInt(3_600_000, 1000, 604_800_000).describe(
    'How long a task (status, then result) is kept from its creation; the `ttlMs` clients see, and the longest a 2025 client may ask for. A running task also stops at this deadline unless its tool sets `timeoutMs`.',
  ),
  MCP_TASK_POLL_INTERVAL_MS: envInt(1000, 50, 3_600_000).describe(
    'The `pollIntervalMs` hint tasks carry: how often clients should poll `tasks/get`.',
  ),
  MCP_TASK_LEASE_MS: envInt(15_000, 1000, 3_600_000).describe(
    'With MCP_REDIS_URL: the longest Redis outage a running replica outlasts. A replica writes its lease every third of this (retrying a failed write every 250 ms) and the lease lasts 5/3 of it: a replica that stopped is judged stopped within 5/3 of this, its `working` tasks failed and its cut-off calls answered as lost.',
  ),
};

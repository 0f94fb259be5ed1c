/** The `MCP_*` settings of what people and hosts see before they connect: card, catalog, landing page. */
import { z } from 'zod';
import { envBool, envText } from '../base/env.ts';

export const discoverySettingsShape = {
  MCP_SERVER_DESCRIPTION: envText('An MCP server built with mcp-toolkit.')
    .pipe(z.string().max(100, { error: 'expected at most 100 characters (the server card limit)' }))
    .describe('One-line description of the server, shown on the landing page and in the server card.'),
  MCP_PUBLIC_CARD: envBool(false).describe(
    'With auth on, also list tools, resources, prompts and instructions in the server card and on the landing page (always listed when MCP_AUTH=none).',
  ),
  MCP_LANDING_PAGE: envBool(true).describe(
    'Serve the HTML landing page at `/` and to browsers on the MCP path.',
  ),
};

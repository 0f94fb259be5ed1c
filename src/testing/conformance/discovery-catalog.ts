/**
 * The catalogue entries of the checks in discovery-checks.ts (MCP Apps views, the server card
 * and the catalogs), merged into CHECKS (check-catalog.ts) like every other group.
 */
import type { CheckInfo, Source } from './check-sources.ts';

const APPS: Source = {
  url: 'https://github.com/modelcontextprotocol/ext-apps/blob/main/specification/2026-01-26/apps.mdx',
  label: 'SEP-1865 MCP Apps',
};
const CARDS: Source = {
  url: 'https://github.com/modelcontextprotocol/experimental-ext-server-card/blob/main/docs/discovery.md',
  label: 'SEP-2127 Server Cards (draft)',
};

export const DISCOVERY_CHECKS = {
  'apps.extension': {
    title: 'a server with views advertises io.modelcontextprotocol/ui under capabilities.extensions',
    level: 'SHOULD',
    source: APPS,
    fix: 'add capabilities.extensions["io.modelcontextprotocol/ui"] to initialize and server/discover',
  },
  'apps.views': {
    title:
      'views are ui:// resources of type text/html;profile=mcp-app that read as HTML with a valid _meta.ui',
    level: 'MUST',
    source: APPS,
    fix: 'serve each view as a ui:// resource with mimeType text/html;profile=mcp-app, one HTML document, and _meta.ui as the extension defines it',
  },
  'apps.tool-links': {
    title: 'tools link to views that exist',
    level: 'MUST',
    source: APPS,
    fix: 'point _meta.ui.resourceUri at a ui:// resource the server serves; visibility lists "model" and/or "app"',
  },
  card: {
    title: 'the server card is well-formed and agrees with the server',
    level: 'SHOULD',
    source: CARDS,
    fix: 'serve <endpoint>/server-card as application/mcp-server-card+json with the draft fields, the same version as serverInfo',
  },
  'catalog.mcp': {
    title: '/.well-known/mcp/catalog.json is a well-formed catalog',
    level: 'SHOULD',
    source: CARDS,
    fix: 'serve { specVersion, entries: [{ identifier, type: "application/mcp-server-card+json", url }] }',
  },
  'catalog.ai': {
    title: '/.well-known/ai-catalog.json is a well-formed catalog',
    level: 'SHOULD',
    source: CARDS,
    fix: 'serve { specVersion, entries: [{ identifier, type: "application/mcp-server-card+json", url }] }',
  },
} as const satisfies Record<string, CheckInfo>;

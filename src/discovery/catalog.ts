/**
 * The catalogs that point at the server card. `/.well-known/mcp/catalog.json` is the MCP
 * Catalog of the SEP-2127 draft (`specVersion`, `entries` of identifier, displayName, type,
 * url); later drafts moved domain discovery to the AI Catalog at
 * `/.well-known/ai-catalog.json`, whose entries are the same minus displayName. We serve both,
 * built here from the same description.
 */
import { SERVER_CARD_MEDIA_TYPE, serverCardUrl } from '../base/card-check.ts';
import type { JsonObject } from '../base/jsonrpc.ts';
import { cardName } from './server-card.ts';
import type { ServerDescription } from './server-description.ts';

export const AI_CATALOG_MEDIA_TYPE = 'application/ai-catalog+json';

/**
 * The AI Catalog identifier, `urn:air:{publisher}:mcp:{name}`: the publisher is the
 * endpoint's host, the name the part of the card name after its slash.
 */
function catalogIdentifier(d: ServerDescription): string {
  const host = new URL(d.endpoint).hostname.replace(/^\[|\]$/g, '');
  const name = cardName(d.endpoint, d.name).split('/')[1] ?? 'server';
  return `urn:air:${host}:mcp:${name}`;
}

function entry(d: ServerDescription): JsonObject {
  return { identifier: catalogIdentifier(d), type: SERVER_CARD_MEDIA_TYPE, url: serverCardUrl(d.endpoint) };
}

/** `/.well-known/mcp/catalog.json` (MCP Catalog, specVersion "draft"). */
export function buildMcpCatalog(d: ServerDescription): JsonObject {
  return { specVersion: 'draft', entries: [{ ...entry(d), displayName: d.title ?? d.name }] };
}

/** `/.well-known/ai-catalog.json` (AI Catalog 1.0). */
export function buildAiCatalog(d: ServerDescription): JsonObject {
  return { specVersion: '1.0', entries: [entry(d)] };
}

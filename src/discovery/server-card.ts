/**
 * The MCP server card (SEP-2127, draft, `experimental-ext-server-card`): a static JSON
 * description of the server served at `<MCP endpoint>/server-card` as
 * `application/mcp-server-card+json`, for registries and gateways that index servers
 * without speaking the protocol. The draft's fields carry identity and how to connect; the
 * draft leaves primitives to the protocol's list methods, so ours travel in `_meta` under
 * our own key, only where the auth mode allows (see ServerDescription.listed).
 */
import { SERVER_CARD_SCHEMA } from '../base/card-check.ts';
import type { JsonObject } from '../base/jsonrpc.ts';
import type { ServerDescription } from './server-description.ts';

/** Our `_meta` key on the card: a vendor prefix, outside the reserved `mcp`/`modelcontextprotocol` labels. */
export const CARD_META_KEY = 'mcp-toolkit/server';

/**
 * The card's reverse-DNS `name`, from the endpoint's host and the server name:
 * `https://files.example.com/mcp` and `mcp-toolkit` give `com.example.files/mcp-toolkit`.
 * A host without dots (localhost) or an IP address is kept as it is.
 */
export function cardName(endpoint: string, serverName: string): string {
  const host = new URL(endpoint).hostname.replace(/^\[|\]$/g, '').replaceAll(':', '-');
  const dnsName = host.includes('.') && !/^[\d.]+$/.test(host);
  const namespace = dnsName ? host.split('.').reverse().join('.') : host;
  const slug = serverName.replace(/[^a-zA-Z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'server';
  return `${namespace}/${slug}`.slice(0, 200);
}

/** Connection headers a client must supply, as the draft's KeyValueInput entries (never a value). */
function authHeaders(d: ServerDescription): JsonObject[] | undefined {
  if (d.auth.mode !== 'api_key') return undefined;
  return [
    {
      name: 'Authorization',
      description:
        'An API key issued by the operator of this server, as a bearer token (X-API-Key also works).',
      isRequired: true,
      isSecret: true,
      value: 'Bearer {api_key}',
      variables: { api_key: { description: 'Your API key', isRequired: true, isSecret: true } },
    },
  ];
}

/**
 * Builds the card.
 *
 * @example
 * buildServerCard(describeServer(server, 'https://files.example.com')).remotes[0].url;
 * // 'https://files.example.com/mcp'
 */
export function buildServerCard(d: ServerDescription): JsonObject {
  const remote: JsonObject = {
    type: 'streamable-http',
    url: d.endpoint,
    supportedProtocolVersions: [...d.supportedVersions],
  };
  const headers = authHeaders(d);
  if (headers) remote.headers = headers;
  const meta: JsonObject = {
    serverInfo: { name: d.name, version: d.version, ...(d.title ? { title: d.title } : {}) },
    auth: { ...d.auth },
    capabilities: d.capabilities,
    listed: d.listed,
  };
  if (d.listed) {
    if (d.instructions !== undefined) meta.instructions = d.instructions;
    meta.tools = [...(d.tools ?? [])];
    meta.resources = [...(d.resources ?? [])];
    meta.resourceTemplates = [...(d.resourceTemplates ?? [])];
    meta.prompts = [...(d.prompts ?? [])];
  }
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: cardName(d.endpoint, d.name),
    version: d.version,
    description: d.description,
    title: (d.title ?? d.name).slice(0, 100),
    remotes: [remote],
    _meta: { [CARD_META_KEY]: meta },
  };
}

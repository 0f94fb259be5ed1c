/**
 * Well-formedness of a server card and of the catalogs that point at it, by the rules of the
 * SEP-2127 draft (`experimental-ext-server-card` schema.ts and docs/discovery.md): required
 * fields, patterns and lengths, the remote's URL, the catalog entry's type. Each problem is a
 * sentence naming the field; an empty list means well-formed.
 */

/** The card's media type, as its route serves it and a catalog entry names it. */
export const SERVER_CARD_MEDIA_TYPE = 'application/mcp-server-card+json';
/** The card's `$schema`. */
export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';

/** `<MCP endpoint>/server-card`, without a doubled slash when the endpoint is the root. */
export function serverCardUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/server-card`;
}

const CARD_NAME_RE = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
const REMOTE_URL_RE = /^(https?:\/\/[^\s]+|\{[a-zA-Z_][a-zA-Z0-9_]*\}[^\s]*)$/;
/** The draft rejects version ranges as a server's version. */
const VERSION_RANGE_RE = /^[\^~<>=]|(^|\.)[x*](\.|$)/i;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function text(
  problems: string[],
  where: string,
  value: unknown,
  min: number,
  max: number,
  required: boolean,
) {
  if (value === undefined) {
    if (required) problems.push(`${where} is missing`);
    return;
  }
  if (typeof value !== 'string') problems.push(`${where} must be a string`);
  else if (value.length < min || value.length > max)
    problems.push(`${where} must be ${min}-${max} characters (has ${value.length})`);
}

function checkRemote(p: string[], where: string, remote: unknown): void {
  if (!isObject(remote)) {
    p.push(`${where} must be an object`);
    return;
  }
  if (remote.type !== 'streamable-http' && remote.type !== 'sse')
    p.push(`${where}.type must be "streamable-http" or "sse"`);
  if (typeof remote.url !== 'string' || !REMOTE_URL_RE.test(remote.url))
    p.push(`${where}.url must be an http(s) URL or start with a {variable}`);
  const versions = remote.supportedProtocolVersions;
  if (versions !== undefined && !(Array.isArray(versions) && versions.every((v) => typeof v === 'string')))
    p.push(`${where}.supportedProtocolVersions must be an array of strings`);
  if (remote.headers === undefined) return;
  if (!Array.isArray(remote.headers)) {
    p.push(`${where}.headers must be an array`);
    return;
  }
  for (const [j, h] of remote.headers.entries()) {
    if (!isObject(h) || typeof h.name !== 'string' || h.name === '')
      p.push(`${where}.headers[${j}].name must be a non-empty string`);
  }
}

/** Problems of a server card document (empty when well-formed). */
export function checkServerCard(card: unknown): string[] {
  const p: string[] = [];
  if (!isObject(card)) return ['the server card is not a JSON object'];
  if (card.$schema !== SERVER_CARD_SCHEMA) p.push(`$schema must be ${SERVER_CARD_SCHEMA}`);
  text(p, 'name', card.name, 3, 200, true);
  if (typeof card.name === 'string' && !CARD_NAME_RE.test(card.name))
    p.push('name must be reverse-DNS with one slash (e.g. com.example/weather)');
  text(p, 'version', card.version, 1, 255, true);
  if (typeof card.version === 'string' && VERSION_RANGE_RE.test(card.version))
    p.push(`version must be one version, not a range (${card.version})`);
  text(p, 'description', card.description, 1, 100, true);
  text(p, 'title', card.title, 1, 100, false);
  if (
    card.websiteUrl !== undefined &&
    (typeof card.websiteUrl !== 'string' || !URL.canParse(card.websiteUrl))
  )
    p.push('websiteUrl must be a URL');
  if (card.remotes !== undefined) {
    if (!Array.isArray(card.remotes)) p.push('remotes must be an array');
    else for (const [i, remote] of card.remotes.entries()) checkRemote(p, `remotes[${i}]`, remote);
  }
  if (card._meta !== undefined && !isObject(card._meta)) p.push('_meta must be an object');
  return p;
}

/** Problems of a catalog (MCP Catalog or AI Catalog) document (empty when well-formed). */
export function checkCatalog(catalog: unknown): string[] {
  const p: string[] = [];
  if (!isObject(catalog)) return ['the catalog is not a JSON object'];
  if (typeof catalog.specVersion !== 'string' || catalog.specVersion === '') p.push('specVersion is missing');
  if (!Array.isArray(catalog.entries)) return [...p, 'entries must be an array'];
  for (const [i, entry] of catalog.entries.entries()) {
    const where = `entries[${i}]`;
    if (!isObject(entry)) {
      p.push(`${where} must be an object`);
      continue;
    }
    if (typeof entry.identifier !== 'string' || entry.identifier === '')
      p.push(`${where}.identifier is missing`);
    if (entry.type !== SERVER_CARD_MEDIA_TYPE) continue; // other artefacts are not ours to judge
    const hasUrl = typeof entry.url === 'string';
    if (hasUrl === (entry.data !== undefined)) p.push(`${where} must have exactly one of url and data`);
    if (hasUrl && !URL.canParse(entry.url as string)) p.push(`${where}.url must be a URL`);
  }
  return p;
}

/**
 * Which client `mcp-toolkit login` signs in as, in the order the MCP authorization spec gives
 * clients ("Client Registration", 2025-11-25 and 2026-07-28):
 * 1. a pre-registered client (`--client-id`);
 * 2. a Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document): an https URL
 *    the user hosts (`--client-metadata-url`) as the `client_id`, when the authorisation server
 *    advertises `client_id_metadata_document_supported`;
 * 3. dynamic client registration (RFC 7591, deprecated from 2026-07-28) at its
 *    `registration_endpoint`;
 * 4. else the user is asked for one of the first two.
 *
 * The CLI's document names loopback redirect URIs (RFC 8252 §7.3). Without a port
 * (`http://127.0.0.1/callback`) the authorisation server must accept any port, and login
 * listens on one the system picks; with a port it listens on that port, for servers that
 * compare redirect URIs exactly.
 */
/** How the client was chosen, reported by `login`. */
export type Registration = 'client-id' | 'cimd' | 'dcr';

/** Where the loopback receiver listens, and the redirect URI it answers to. */
export interface RedirectPlan {
  /** `127.0.0.1` or `::1`. */
  host: string;
  /** 0: a port the system picks (the document names the URI without one). */
  port: number;
  path: string;
  /** The URI as the document lists it (sent as is when it has a port). */
  listed?: string;
}

/** Without a document: the loopback callback on a port the system picks. */
export const DEFAULT_REDIRECT: RedirectPlan = { host: '127.0.0.1', port: 0, path: '/callback' };

/** The largest document login reads back (authorisation servers allow about 5 KiB). */
const MAX_DOCUMENT_BYTES = 65_536;
const DOCUMENT_TIMEOUT_MS = 10_000;

/**
 * The Client ID Metadata Document of the CLI for `url`, to host there: a public native client
 * (no secret; PKCE) whose redirect is the loopback callback on any port.
 *
 * @example
 * JSON.stringify(cliClientMetadata('https://example.com/mcp-toolkit/client.json'), null, 2);
 */
export function cliClientMetadata(url: string): Record<string, unknown> {
  return {
    client_id: url,
    client_name: 'mcp-toolkit',
    redirect_uris: ['http://127.0.0.1/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: 'native',
  };
}

/**
 * Refuses a `--client-metadata-url` no authorisation server would accept as a `client_id`: the
 * draft wants https, a path, no fragment, no credentials, no `.` or `..` segments.
 */
export function checkClientMetadataUrl(url: string): void {
  const bad = (why: string): never => {
    throw new Error(`--client-metadata-url ${url}: ${why}`);
  };
  if (!URL.canParse(url)) bad('not a URL');
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:') bad('a client id URL must be https');
  if (url.includes('#')) bad('a client id URL may not have a fragment');
  if (parsed.username !== '' || parsed.password !== '') bad('a client id URL may not carry credentials');
  const path = url.slice(url.indexOf('//') + 2).replace(/^[^/?]*/, '');
  if (path === '' || path.startsWith('?') || path === '/')
    bad('a client id URL needs a path (e.g. /mcp-toolkit/client.json)');
  if (/(^|\/)(\.|%2e){1,2}(\/|\?|$)/i.test(path)) bad('a client id URL may not have . or .. segments');
}

/** The loopback redirect of a document's `redirect_uris`: one with a port first, then one without. */
function redirectPlan(uris: readonly unknown[]): RedirectPlan | undefined {
  const plans: RedirectPlan[] = [];
  for (const uri of uris) {
    if (typeof uri !== 'string' || !URL.canParse(uri)) continue;
    const u = new URL(uri);
    // RFC 8252 §7.3: IP literals; `localhost` is NOT RECOMMENDED (§8.3) and may not resolve to us.
    if (u.protocol !== 'http:' || (u.hostname !== '127.0.0.1' && u.hostname !== '[::1]')) continue;
    if (u.search !== '' || u.hash !== '') continue;
    plans.push({
      host: u.hostname === '[::1]' ? '::1' : '127.0.0.1',
      port: u.port === '' ? 0 : Number(u.port),
      path: u.pathname,
      listed: uri,
    });
  }
  return plans.find((p) => p.port !== 0) ?? plans[0];
}

/**
 * Reads the document at `url` back, as the authorisation server will, and checks it before the
 * browser opens: a JSON object whose `client_id` is `url`, a public client, and a loopback
 * redirect login can listen on. Returns where to listen.
 */
export async function readClientMetadata(url: string, doFetch: typeof fetch = fetch): Promise<RedirectPlan> {
  const where = `the Client ID Metadata Document at ${url}`;
  let res: Response;
  try {
    res = await doFetch(url, {
      headers: { accept: 'application/json' },
      redirect: 'manual',
      signal: AbortSignal.timeout(DOCUMENT_TIMEOUT_MS),
    });
  } catch (err) {
    throw new Error(
      `${where} could not be fetched (${(err as Error).message}); the authorisation server must fetch it too`,
      {
        cause: err,
      },
    );
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new Error(
      `${where} answered HTTP ${res.status}; serve the document there with status 200 (no redirect)`,
    );
  }
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > MAX_DOCUMENT_BYTES) {
    await res.body?.cancel();
    throw new Error(`${where} is ${declared} bytes; keep it small (authorisation servers read about 5 KiB)`);
  }
  const text = await readCapped(res, where);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Error(
      `${where} is not JSON; print one with mcp-toolkit login --print-client-metadata --client-metadata-url ${url}`,
    );
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new Error(`${where} is not a JSON object`);
  const record = doc as Record<string, unknown>;
  if (record.client_id !== url)
    throw new Error(
      `${where} names client_id ${JSON.stringify(record.client_id)}; it must be exactly ${url}`,
    );
  const method = record.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none')
    throw new Error(
      `${where} asks for token_endpoint_auth_method ${JSON.stringify(method)}; login is a public client: use "none"`,
    );
  const plan = Array.isArray(record.redirect_uris) ? redirectPlan(record.redirect_uris) : undefined;
  if (plan === undefined)
    throw new Error(
      `${where} lists no loopback redirect login can receive: add "http://127.0.0.1/callback" to redirect_uris (RFC 8252 §7.3)`,
    );
  return plan;
}

async function readCapped(res: Response, where: string): Promise<string> {
  const reader = res.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_DOCUMENT_BYTES) {
      await reader.cancel();
      throw new Error(
        `${where} is more than ${MAX_DOCUMENT_BYTES} bytes; keep it small (authorisation servers read about 5 KiB)`,
      );
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export interface RegistrationChoice {
  registration: Registration;
  /** Something the user should know (a fallback taken), for stderr. */
  notice?: string;
}

/**
 * Chooses how to get a client id from what the authorisation server's metadata advertises.
 * Throws with what to pass when none of the ways is open.
 */
export function chooseRegistration(
  as: { issuer: string; registration_endpoint?: string; client_id_metadata_document_supported?: unknown },
  options: { clientId?: string; clientMetadataUrl?: string },
): RegistrationChoice {
  if (options.clientId !== undefined) return { registration: 'client-id' };
  const cimd = as.client_id_metadata_document_supported === true;
  const dcr = typeof as.registration_endpoint === 'string';
  if (cimd && options.clientMetadataUrl !== undefined) return { registration: 'cimd' };
  if (dcr) {
    if (options.clientMetadataUrl !== undefined)
      return {
        registration: 'dcr',
        notice: `${as.issuer} does not accept Client ID Metadata Documents (no client_id_metadata_document_supported); registering a client dynamically instead`,
      };
    if (cimd)
      return {
        registration: 'dcr',
        notice: `${as.issuer} accepts Client ID Metadata Documents, which replace dynamic registration from MCP 2026-07-28; registering dynamically now. Host the document \`mcp-toolkit login --print-client-metadata --client-metadata-url <https URL>\` prints and pass --client-metadata-url`,
      };
    return { registration: 'dcr' };
  }
  if (cimd)
    throw new Error(
      `${as.issuer} identifies clients by Client ID Metadata Documents only: host the document \`mcp-toolkit login --print-client-metadata --client-metadata-url <https URL>\` prints at that URL and pass --client-metadata-url, or pass a registered client with --client-id`,
    );
  throw new Error(
    `${as.issuer} offers neither Client ID Metadata Documents nor dynamic client registration: pass a registered client with --client-id`,
  );
}

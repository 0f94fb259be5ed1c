/**
 * Auth readiness for remote connectors (`mcp-toolkit check --auth <url>`): what the hosted
 * connectors of Claude and ChatGPT do before their first call, replayed against the target:
 * an unauthenticated POST (a 401 with a `WWW-Authenticate` challenge naming
 * `resource_metadata`, no redirect), the protected resource metadata (RFC 9728) at the
 * path-aware and the root well-known URLs, its `resource` (the audience tokens must carry), the
 * authorisation server's metadata (RFC 8414 and OpenID Connect Discovery), PKCE S256, Client ID
 * Metadata Documents (which replace dynamic registration from 2026-07-28), dynamic client
 * registration (RFC 7591, twice, as connectors sometimes do) where there are none, and what the
 * server does with an authorisation request before anyone signs in (auth-consent.ts). Rules: MCP
 * 2025-11-25 "Authorization" and "Security Best Practices".
 */

import { isObject, type JsonObject } from '../../base/jsonrpc.ts';
import { discoveryUrls, RESOURCE_METADATA_WELL_KNOWN, resourceMetadataUrl } from '../../base/oauth-urls.ts';
import { PACKAGE_VERSION } from '../../base/package-version.ts';
import { LATEST_2025 } from '../../base/versions.ts';
import { endpointUrl } from '../client/connect.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../client/targets.ts';
import { checkConsent } from './auth-consent.ts';
import type { CheckId } from './check-catalog.ts';
import { type ConformanceCheck, Recorder } from './recorder.ts';
import type { ConformanceOptions, ConformanceReport } from './report.ts';

export const AUTH_CHECKS = [
  'auth.challenge',
  'auth.no-redirect',
  'auth.resource-metadata',
  'auth.resource-metadata-root',
  'auth.audience',
  'auth.as-metadata',
  'auth.pkce-s256',
  'auth.client-registration',
  'auth.cimd',
  'auth.consent',
] as const satisfies readonly CheckId[];

/** The loopback callback the registration probe registers (never used: no authorisation runs). */
const PROBE_REDIRECT = 'http://127.0.0.1:33418/callback';

interface Fetched {
  status: number;
  headers: Headers;
  json: JsonObject | undefined;
  error?: string;
}

async function get(url: string, timeoutMs: number, init: RequestInit = {}): Promise<Fetched> {
  try {
    const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(timeoutMs), ...init });
    const text = await res.text();
    let json: JsonObject | undefined;
    try {
      const parsed: unknown = JSON.parse(text);
      if (isObject(parsed)) json = parsed;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, json };
  } catch (err) {
    return { status: 0, headers: new Headers(), json: undefined, error: (err as Error).message };
  }
}

function said(f: Fetched): string {
  return f.status === 0 ? `no answer (${f.error ?? 'failed'})` : `HTTP ${f.status}`;
}

/** `resource_metadata="..."` of a Bearer challenge (RFC 9728 §5.1). */
export function challengeMetadataUrl(challenge: string): string | undefined {
  return /resource_metadata="([^"]+)"/i.exec(challenge)?.[1];
}

function sameUrl(a: string, b: string): boolean {
  return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}

function validMetadata(doc: JsonObject | undefined): string | undefined {
  if (doc === undefined) return 'not a JSON object';
  if (typeof doc.resource !== 'string') return 'no resource';
  if (!Array.isArray(doc.authorization_servers) || doc.authorization_servers.length === 0)
    return 'no authorization_servers';
  return undefined;
}

/** `authReadinessReport`'s options: the conformance report's, and a client to ask consent with. */
export interface AuthReadinessOptions extends ConformanceOptions {
  /**
   * The https URL of a Client ID Metadata Document listing `http://127.0.0.1/callback` (the one
   * `mcp-toolkit login --print-client-metadata` prints): with it, `auth.consent` runs against a
   * server that takes such documents instead of registering a client.
   */
  clientMetadataUrl?: string;
}

/**
 * Runs the auth-readiness checks against an MCP URL and returns a report of them (the same
 * shape as the conformance report). Nothing needs a token: it sees what a connector sees first.
 *
 * @example
 * const report = await authReadinessReport('https://mcp.example.com/mcp');
 */
export async function authReadinessReport(
  target: string,
  options: AuthReadinessOptions = {},
): Promise<ConformanceReport> {
  const url = endpointUrl(target);
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const rec = new Recorder({
    ...(options.strict !== undefined ? { strict: options.strict } : {}),
    ...(options.onCheck ? { onCheck: options.onCheck } : {}),
  });
  const rest = (from: number, reason: string) => {
    for (const id of AUTH_CHECKS.slice(from))
      if (!rec.checks.some((c) => c.id === id)) rec.notRun(id, reason);
  };
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: LATEST_2025,
      capabilities: {},
      clientInfo: { name: 'mcp-toolkit-auth-check', version: PACKAGE_VERSION },
    },
  });
  const first = await get(url, timeoutMs, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: initialize,
  });
  let connected = first.status !== 0;
  if (first.status === 0) rec.fail('auth.challenge', `POST ${url} got ${said(first)}`);
  else if (first.status >= 300 && first.status < 400) {
    rec.fail(
      'auth.no-redirect',
      `POST ${url} got HTTP ${first.status} to ${first.headers.get('location') ?? '?'}`,
    );
  } else rec.pass('auth.no-redirect', `HTTP ${first.status}`);
  const challenge = first.headers.get('www-authenticate') ?? '';
  if (first.status === 0) {
    rest(1, 'nothing answered');
  } else if (first.status >= 200 && first.status < 300) {
    rec.notRun(
      'auth.challenge',
      'the server served an unauthenticated initialize: it asks for no credentials',
    );
    rest(2, 'the server asks for no credentials');
  } else {
    const challengeUrl = challengeMetadataUrl(challenge);
    const problems: string[] = [];
    if (first.status !== 401) problems.push(`an unauthenticated POST got HTTP ${first.status}, not 401`);
    if (!/^\s*bearer\b/i.test(challenge))
      problems.push(`no Bearer challenge (WWW-Authenticate: ${challenge || 'absent'})`);
    else if (challengeUrl === undefined)
      problems.push(`the challenge has no resource_metadata: ${challenge}`);
    if (!rec.checks.some((c) => c.id === 'auth.no-redirect' && c.status !== 'pass'))
      rec.expect('auth.challenge', problems, challenge);
    else rec.notRun('auth.challenge', 'the MCP URL redirects');
    await checkMetadata(rec, url, challengeUrl, timeoutMs, options.clientMetadataUrl);
  }
  connected &&= rec.checks.some((c) => c.status !== 'not-run');
  const checks = rec.checks;
  const count = (s: ConformanceCheck['status']) => checks.filter((c) => c.status === s).length;
  const passed = count('pass');
  const failed = count('fail');
  const warnings = count('warn');
  return {
    target: url,
    transport: 'http',
    wires: [],
    connected,
    checks,
    passed,
    failed,
    warnings,
    notRun: count('not-run'),
    total: checks.length,
    ok: failed === 0,
    deprecated: [],
  };
}

async function checkMetadata(
  rec: Recorder,
  url: string,
  challengeUrl: string | undefined,
  timeoutMs: number,
  clientMetadataUrl: string | undefined,
): Promise<void> {
  // Path-aware first (RFC 9728 §3.1, as MCP clients try it), then the root, as connectors probe both.
  const pathAware = resourceMetadataUrl(url);
  const root = `${new URL(url).origin}${RESOURCE_METADATA_WELL_KNOWN}`;
  const tried: string[] = [];
  let doc: JsonObject | undefined;
  let where: string | undefined;
  for (const candidate of [
    ...new Set([challengeUrl, pathAware].filter((u): u is string => u !== undefined)),
  ]) {
    const got = await get(candidate, timeoutMs);
    const bad = got.status === 200 ? validMetadata(got.json) : said(got);
    if (bad === undefined) {
      doc = got.json;
      where = candidate;
      break;
    }
    tried.push(`${candidate}: ${bad}`);
  }
  if (doc === undefined) {
    rec.fail('auth.resource-metadata', `no protected resource metadata: ${tried.join('; ')}`);
    for (const id of AUTH_CHECKS.slice(3)) rec.notRun(id, 'no protected resource metadata to follow');
    return;
  }
  rec.pass('auth.resource-metadata', where);
  if (root === pathAware) rec.notRun('auth.resource-metadata-root', 'the MCP endpoint is the origin root');
  else {
    const atRoot = await get(root, timeoutMs);
    const bad = atRoot.status === 200 ? validMetadata(atRoot.json) : said(atRoot);
    rec.expect('auth.resource-metadata-root', bad === undefined ? [] : [`GET ${root} got ${bad}`], root);
  }
  const resource = String(doc.resource);
  rec.expect(
    'auth.audience',
    sameUrl(resource, url)
      ? []
      : [
          `the metadata names resource ${resource}, but the client connects to ${url}: tokens requested for ${url} will not match`,
        ],
    `tokens must carry aud ${resource}`,
  );
  const issuer = String((doc.authorization_servers as unknown[])[0]);
  await checkAuthorizationServer(rec, issuer, url, timeoutMs, clientMetadataUrl);
}

async function checkAuthorizationServer(
  rec: Recorder,
  issuer: string,
  resource: string,
  timeoutMs: number,
  clientMetadataUrl: string | undefined,
): Promise<void> {
  let meta: JsonObject | undefined;
  const found: string[] = [];
  const tried: string[] = [];
  for (const candidate of URL.canParse(issuer) ? discoveryUrls(issuer) : []) {
    const got = await get(candidate, timeoutMs);
    if (got.status === 200 && got.json !== undefined && typeof got.json.issuer === 'string') {
      if (!sameUrl(got.json.issuer, issuer)) {
        tried.push(`${candidate}: issuer ${got.json.issuer} is not ${issuer}`);
        continue;
      }
      meta ??= got.json;
      found.push(candidate.includes('openid-configuration') ? 'OpenID discovery' : 'RFC 8414');
    } else tried.push(`${candidate}: ${got.status === 200 ? 'not metadata' : said(got)}`);
  }
  if (meta === undefined) {
    rec.fail(
      'auth.as-metadata',
      `no authorisation server metadata for ${issuer}: ${tried.join('; ') || 'not a URL'}`,
    );
    for (const id of ['auth.pkce-s256', 'auth.client-registration', 'auth.cimd', 'auth.consent'] as const)
      rec.notRun(id, 'no authorisation server metadata');
    return;
  }
  const missing = ['authorization_endpoint', 'token_endpoint'].filter((k) => typeof meta[k] !== 'string');
  rec.expect(
    'auth.as-metadata',
    missing.map((k) => `the metadata of ${issuer} has no ${k}`),
    `${issuer} (${found.join(' and ')})`,
  );
  const methods = Array.isArray(meta.code_challenge_methods_supported)
    ? meta.code_challenge_methods_supported
    : [];
  rec.expect(
    'auth.pkce-s256',
    methods.includes('S256')
      ? []
      : [
          `code_challenge_methods_supported is ${JSON.stringify(meta.code_challenge_methods_supported ?? null)}: clients refuse to proceed without S256`,
        ],
  );
  const cimd = meta.client_id_metadata_document_supported === true;
  if (cimd) rec.pass('auth.cimd', 'client_id_metadata_document_supported');
  else
    rec.fail(
      'auth.cimd',
      typeof meta.registration_endpoint === 'string'
        ? 'no client_id_metadata_document_supported: clients can only register dynamically, which MCP deprecates from 2026-07-28'
        : 'no client_id_metadata_document_supported',
    );
  if (cimd) {
    rec.pass('auth.client-registration', 'Client ID Metadata Documents');
    if (clientMetadataUrl !== undefined && typeof meta.authorization_endpoint === 'string') {
      await checkConsent(rec, {
        authorizationEndpoint: meta.authorization_endpoint,
        clientId: clientMetadataUrl,
        redirectUri: PROBE_REDIRECT,
        resource,
        timeoutMs,
      });
    } else {
      rec.notRun(
        'auth.consent',
        'clients identify themselves by Client ID Metadata Documents: give one with --client-metadata-url to ask with, or sign in (mcp-toolkit login) and look for a consent page naming the client',
      );
    }
    return;
  }
  if (typeof meta.registration_endpoint !== 'string') {
    rec.fail(
      'auth.client-registration',
      'neither a registration_endpoint (RFC 7591) nor client_id_metadata_document_supported: a connector has no way to get a client id',
    );
    rec.notRun('auth.consent', 'no client id to start an authorisation request with');
    return;
  }
  const body = JSON.stringify({
    client_name: 'mcp-toolkit check --auth',
    redirect_uris: [PROBE_REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: 'native',
  });
  const problems: string[] = [];
  const ids: string[] = [];
  for (const attempt of ['first', 'second']) {
    const got = await get(meta.registration_endpoint, timeoutMs, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body,
    });
    if ((got.status === 201 || got.status === 200) && typeof got.json?.client_id === 'string')
      ids.push(got.json.client_id);
    else
      problems.push(
        `the ${attempt} registration at ${meta.registration_endpoint} got ${said(got)}${got.json?.error ? ` (${String(got.json.error)}: ${String(got.json.error_description ?? '')})` : ''}`,
      );
  }
  rec.expect(
    'auth.client-registration',
    problems,
    `dynamic client registration, twice: ${ids.length} client ids`,
  );
  const [clientId] = ids;
  if (clientId === undefined || typeof meta.authorization_endpoint !== 'string') {
    rec.notRun(
      'auth.consent',
      'no client id and authorization_endpoint to start an authorisation request with',
    );
    return;
  }
  await checkConsent(rec, {
    authorizationEndpoint: meta.authorization_endpoint,
    clientId,
    redirectUri: PROBE_REDIRECT,
    resource,
    timeoutMs,
  });
}

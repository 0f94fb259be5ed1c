/**
 * The catalogue entries of the transport checks (stdio, the 2026 wire, streamable HTTP) and
 * of the authorization checks, merged into CHECKS (check-catalog.ts) like every other group.
 */
import type { CheckInfo } from './check-sources.ts';
import { AUTHZ, JSONRPC, TRANSPORTS, WIRE_2026 } from './check-sources.ts';

/** Base Protocol §_meta (2026-07-28): the per-request fields and what a request missing one gets. */
const META_2026 = {
  spec: 'basic',
  anchor: 'meta',
  label: 'Base Protocol §_meta (2026-07-28 per-request fields: -32602, HTTP 400)',
  revision: '2026-07-28',
} as const;

export const TRANSPORT_CHECKS = {
  'stdio.stdout': {
    title: 'every byte on stdout is a JSON-RPC message',
    level: 'MUST',
    source: TRANSPORTS('stdio', 'Transports §stdio'),
    fix: 'write logs and banners to stderr; stdout carries protocol messages only',
  },
  '2026.discover': {
    title: '2026: server/discover answers with supportedVersions and capabilities',
    level: 'MUST',
    source: {
      spec: 'basic/lifecycle',
      anchor: 'discovery',
      label: 'Lifecycle §Discovery (2026-07-28)',
      revision: '2026-07-28',
    },
    fix: 'answer server/discover with supportedVersions (including 2026-07-28) and capabilities',
  },
  '2026.result-type': {
    title: '2026: every result carries resultType',
    level: 'MUST',
    source: {
      spec: 'basic',
      anchor: 'responses',
      label: 'Base Protocol §Responses (2026-07-28 Result.resultType)',
    },
    fix: 'add resultType: "complete" to every result on the 2026 wire',
  },
  '2026.method-not-found': {
    title: '2026: unknown methods return -32601 (HTTP 404)',
    level: 'MUST',
    source: WIRE_2026('streamable-http', 'Transports §Streamable HTTP (2026-07-28)'),
    fix: 'answer an unknown method with -32601, with HTTP status 404 over HTTP',
  },
  '2026.missing-envelope': {
    title:
      '2026: a request without its _meta envelope is rejected with -32602 (HTTP 400; over HTTP -32020 HeaderMismatch also passes)',
    level: 'MUST',
    source: META_2026,
    fix: 'reject a 2026 request whose _meta lacks protocolVersion or clientCapabilities with -32602 (HTTP 400; over HTTP, with a 2026-07-28 MCP-Protocol-Version header, HeaderMismatch -32020 is the more specific answer)',
  },
  '2026.missing-capabilities': {
    title: '2026: an envelope without clientCapabilities is rejected (HTTP 400, -32602)',
    level: 'MUST',
    source: META_2026,
    fix: 'require io.modelcontextprotocol/clientCapabilities in every 2026 envelope; answer its absence with HTTP 400 and -32602',
  },
  '2026.header-mismatch': {
    title: '2026: Mcp-Method and Mcp-Name must match the body (HTTP 400)',
    level: 'MUST',
    source: WIRE_2026(
      'streamable-http',
      'Transports §Streamable HTTP (2026-07-28 routing headers, SEP-2243)',
    ),
    fix: 'compare Mcp-Method (case-sensitive) and Mcp-Name with the body and answer a mismatch with HTTP 400, -32020',
  },
  '2026.batch-rejected': {
    title: '2026: a JSON-RPC batch is refused (HTTP 400)',
    level: 'MUST',
    source: WIRE_2026('streamable-http', 'Transports §Streamable HTTP (2026-07-28: one message per request)'),
    fix: 'answer a JSON array body on the 2026 wire with HTTP 400 (-32600), never serve it',
  },
  'http.origin': {
    title: 'a foreign Origin is refused with 403',
    level: 'MUST',
    source: TRANSPORTS('security-warning', 'Transports §Security Warning (DNS rebinding)'),
    fix: 'validate the Origin header on every request and answer one not on your allow-list with HTTP 403',
  },
  'http.host': {
    title: 'a foreign Host is refused (local servers)',
    level: 'HOUSE',
    source: TRANSPORTS(
      'security-warning',
      'Transports §Security Warning (DNS rebinding; the official SDKs check Host)',
    ),
    fix: 'on a localhost server, answer a Host header other than localhost/127.0.0.1/[::1] with HTTP 403',
  },
  'http.session-terminated': {
    title: 'a terminated session is answered with 404',
    level: 'MUST',
    source: TRANSPORTS('session-management', 'Transports §Session Management'),
    fix: 'after a DELETE (or expiry), answer every request with that Mcp-Session-Id with HTTP 404',
  },
  'http.delete': {
    title: 'DELETE ends the session (2xx) or is refused with 405',
    level: 'SHOULD',
    source: TRANSPORTS('session-management', 'Transports §Session Management'),
    fix: 'answer DELETE with Mcp-Session-Id with 2xx and end the session, or 405 if clients may not end sessions',
  },
  'http.get': {
    title: 'GET opens an SSE stream or is refused with 405',
    level: 'MUST',
    source: TRANSPORTS(
      'listening-for-messages-from-the-server',
      'Transports §Listening for Messages from the Server',
    ),
    fix: 'answer GET with Content-Type: text/event-stream, or with HTTP 405 Method Not Allowed',
  },
  'http.protocol-version-header': {
    title: 'an unsupported MCP-Protocol-Version header is refused with 400',
    level: 'MUST',
    source: TRANSPORTS('protocol-version-header', 'Transports §Protocol Version Header'),
    fix: 'answer a request whose MCP-Protocol-Version you do not support with HTTP 400',
  },
  'http.accept': {
    title: 'a POST that accepts neither JSON nor SSE is refused with 406',
    level: 'HOUSE',
    source: TRANSPORTS(
      'sending-messages-to-the-server',
      'Transports §Sending Messages to the Server (Accept)',
    ),
    fix: 'answer a POST whose Accept allows neither application/json nor text/event-stream with HTTP 406',
  },
  'http.parse-error': {
    title: 'a body that is not JSON gets -32700 with id null',
    level: 'MUST',
    source: JSONRPC('error_object', 'JSON-RPC 2.0 §5.1 (Parse error, id null)'),
    fix: 'answer an unparsable body with a JSON-RPC error -32700 and "id": null (HTTP 400), not an HTML or framework error',
  },
  'http.batch': {
    title: 'batches follow the negotiated version (none after 2025-03-26)',
    level: 'HOUSE',
    source: { spec: 'basic', anchor: 'messages', label: 'Base Protocol (batching removed in 2025-06-18)' },
    fix: 'refuse a JSON array body (-32600) on sessions that negotiated 2025-06-18 or later',
  },
  'auth.challenge': {
    title: 'a request without a token gets 401 with a Bearer challenge naming resource_metadata',
    level: 'MUST',
    source: AUTHZ(
      'protected-resource-metadata-discovery-requirements',
      'Authorization §Protected Resource Metadata Discovery',
    ),
    fix: 'answer a request without a token with HTTP 401 and WWW-Authenticate: Bearer resource_metadata="<metadata URL>"',
  },
  'auth.no-redirect': {
    title: 'the MCP URL answers without a redirect',
    level: 'HOUSE',
    source: AUTHZ(
      'authorization-flow-steps',
      'Authorization §Authorization Flow (hosted connectors do not follow redirects)',
    ),
    fix: 'serve the MCP endpoint at the exact URL clients are given (no trailing-slash or http→https 3xx)',
  },
  'auth.resource-metadata': {
    title: 'protected resource metadata is served (from the challenge or the path-aware well-known URL)',
    level: 'MUST',
    source: AUTHZ('authorization-server-location', 'Authorization §Authorization Server Location (RFC 9728)'),
    fix: 'serve { resource, authorization_servers } at /.well-known/oauth-protected-resource<MCP path> and name it in the challenge',
  },
  'auth.resource-metadata-root': {
    title: 'protected resource metadata is also served at the root well-known URL',
    level: 'HOUSE',
    source: AUTHZ(
      'authorization-server-location',
      'Authorization §Authorization Server Location (connectors probe both URLs)',
    ),
    fix: 'serve the same document at /.well-known/oauth-protected-resource as well',
  },
  'auth.audience': {
    title: 'the metadata names the MCP URL as its resource (the token audience)',
    level: 'MUST',
    source: AUTHZ(
      'token-audience-binding-and-validation',
      'Authorization §Token Audience Binding and Validation (RFC 8707)',
    ),
    fix: 'make resource the public URL clients use (MCP_PUBLIC_URL plus the path), and accept tokens with that aud',
  },
  'auth.as-metadata': {
    title: 'the authorisation server publishes its metadata (RFC 8414 or OpenID discovery)',
    level: 'MUST',
    source: AUTHZ(
      'authorization-server-metadata-discovery',
      'Authorization §Authorization Server Metadata Discovery',
    ),
    fix: 'point authorization_servers at an issuer whose /.well-known/oauth-authorization-server or openid-configuration answers',
  },
  'auth.pkce-s256': {
    title: 'the authorisation server supports PKCE S256',
    level: 'MUST',
    source: AUTHZ('authorization-code-protection', 'Authorization §Authorization Code Protection (PKCE)'),
    fix: 'enable PKCE with S256 and list it in code_challenge_methods_supported',
  },
  'auth.client-registration': {
    title: 'a connector can get a client id (dynamic registration, twice, or Client ID Metadata Documents)',
    level: 'SHOULD',
    source: AUTHZ('client-registration-approaches', 'Authorization §Client Registration Approaches'),
    fix: 'enable RFC 7591 registration (registering the same client twice must work) or client_id_metadata_document_supported',
  },
  'auth.cimd': {
    title:
      'the authorisation server accepts Client ID Metadata Documents (dynamic registration is deprecated from 2026-07-28)',
    level: 'SHOULD',
    source: AUTHZ('client-id-metadata-documents', 'Authorization §Client ID Metadata Documents'),
    fix: 'accept https client ids whose document names the client and its redirect URIs, and advertise client_id_metadata_document_supported: true',
  },
  'auth.consent': {
    title:
      'the authorisation server issues no code before the user signs in and consents (per client, in front of another identity provider)',
    level: 'MUST',
    source: {
      spec: 'basic/security_best_practices',
      anchor: 'confused-deputy-problem',
      label: 'Security Best Practices §Confused Deputy Problem',
    },
    fix: 'ask the user before issuing a code, and when one upstream client id serves every MCP client, show a consent page naming the client (its client_name and redirect host) for each one',
  },
} as const satisfies Record<string, CheckInfo>;

/**
 * The openapi plugin's settings, `MCP_OPENAPI_*`, parsed by the core with this zod schema.
 * Every value arrives as a string from the environment; a bad one stops start-up with a
 * message naming the variable and what it accepts. The secrets (`MCP_OPENAPI_BEARER_TOKEN`,
 * `MCP_OPENAPI_API_KEY`) carry names the core masks wherever settings are printed.
 */
import { setting } from '@mcp-toolkit/server';
import { z } from 'zod';

const NEVER_SENT = 'never logged, printed masked';

// RFC 9110 field-name (token) characters.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `MCP_OPENAPI_SPEC`: a local path, or an http(s) URL; any other scheme is refused. */
const spec = setting
  .text()
  .refine((v) => v === undefined || !/^[a-z][a-z0-9+.-]*:\/\//i.test(v) || /^https?:\/\//i.test(v), {
    error: 'expected a file path or an http(s) URL of an OpenAPI 3.0 or 3.1 document (JSON or YAML)',
  });

const baseUrl = setting.url({ example: 'https://api.example.com/v1' });

export const openapiSettings = z
  .object({
    spec: spec.describe(
      'The OpenAPI 3.0 or 3.1 document (JSON or YAML): a file path or an http(s) URL. Required when the plugin is loaded.',
    ),
    baseUrl: baseUrl.describe(
      "Base URL the API calls go to; overrides the document's `servers`. Required when the document has no absolute server URL.",
    ),
    bearerToken: setting
      .text()
      .describe(
        `Sent as \`Authorization: Bearer <token>\` to operations whose security accepts a bearer token (http bearer, OAuth 2, OpenID Connect), or to every operation when the document declares no security (${NEVER_SENT}).`,
      ),
    forwardUpstreamToken: setting
      .list()
      .describe(
        "Operations whose calls carry the caller's own token at the identity provider they signed in with (`MCP_AUTH=oauth-proxy`, `ctx.upstreamToken()`) as `Authorization: Bearer`, in place of MCP_OPENAPI_BEARER_TOKEN: `*` for every operation, or operation ids, tags and path globs as in MCP_OPENAPI_INCLUDE. A call with no upstream token answers an error.",
      ),
    apiKey: setting
      .text()
      .describe(
        `API key sent where the document's apiKey security scheme says (header, query or cookie), or where MCP_OPENAPI_API_KEY_HEADER / MCP_OPENAPI_API_KEY_QUERY say (${NEVER_SENT}).`,
      ),
    apiKeyHeader: setting
      .text()
      .refine((v) => v === undefined || HEADER_NAME.test(v), { error: 'expected an HTTP header name' })
      .describe('Header that carries MCP_OPENAPI_API_KEY, overriding the document (e.g. `X-API-Key`).'),
    apiKeyQuery: setting
      .text()
      .describe(
        'Query parameter that carries MCP_OPENAPI_API_KEY, overriding the document (e.g. `api_key`).',
      ),
    include: setting
      .list()
      .describe(
        'Operations to offer as tools (default all): operation ids, tags, or path globs starting with `/` (`*` within a segment, `**` across), optionally after a method (`GET /pets/**` is GET of `/pets` and everything under it).',
      ),
    exclude: setting
      .list()
      .describe('Operations not to offer, in the same forms as MCP_OPENAPI_INCLUDE; wins over it.'),
    allowRefs: setting
      .list()
      .describe(
        "Hosts (`schemas.example.com`) or origins (`https://schemas.example.com:8443`) that the document's `$ref`s may name beyond its own origin; `$ref`s to local files are allowed only from a local document, inside its folder.",
      ),
    readOnly: setting.bool(false).describe('When true, only GET and HEAD operations become tools.'),
    timeoutMs: setting
      .int(30_000, 1, 600_000)
      .describe('Timeout of one HTTP request to the API (and of loading the document from a URL).'),
    retries: setting
      .int(2, 0, 5)
      .describe(
        'Retries, with back-off, of an idempotent request (GET, HEAD, PUT, DELETE, OPTIONS) that got 502, 503 or 504 or could not connect.',
      ),
    maxResponseBytes: setting
      .int(262_144, 1024, 104_857_600)
      .describe('Largest response body passed to the model; a longer one is cut, with a note saying so.'),
    healthOperation: setting
      .text()
      .describe(
        'Operation id that doctor and /readyz call to see the API answers. Default: a GET operation without required parameters at a path ending in health, healthz, ready, readyz, livez, ping or status; else a HEAD of the base URL.',
      ),
    userAgent: setting.text().describe('User-Agent of the API calls. Default: `mcp-toolkit-openapi`.'),
  })
  .refine((s) => s.apiKeyHeader === undefined || s.apiKeyQuery === undefined, {
    error: 'set MCP_OPENAPI_API_KEY_HEADER or MCP_OPENAPI_API_KEY_QUERY, not both',
    path: ['apiKeyQuery'],
  });

export type OpenapiSettings = z.output<typeof openapiSettings>;

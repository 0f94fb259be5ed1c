/**
 * The openapi plugin: every operation of an OpenAPI 3.0 or 3.1 document becomes a tool that
 * calls the API. Built with the public API only (`src/index.ts`), so it doubles as the example
 * of a plugin for an external service: settings with secrets, a doctor check that feeds
 * /readyz, an HTTP client with timeouts, cancellation and retries, and a fixed error mapping.
 */
import { definePlugin, InternalCode, ToolkitError } from '../../src/index.ts';
import { type OpenapiSettings, openapiSettings } from './settings.ts';

export type { OpenapiSettings };
export { openapiSettings };

/**
 * The plugin definition; `MCP_PLUGINS=openapi` loads it.
 *
 * @example
 * const client = await TestClient.start({ plugins: [openapiPlugin], env: { MCP_OPENAPI_SPEC: './petstore.yaml' } });
 */
export const openapiPlugin = definePlugin<OpenapiSettings>({
  name: 'openapi',
  description:
    "Tools from an OpenAPI 3.0 or 3.1 document (MCP_OPENAPI_SPEC): one per operation, calling the API at MCP_OPENAPI_BASE_URL or the document's server.",
  settings: openapiSettings,
  register(_app, settings) {
    if (settings.spec === undefined) {
      throw new ToolkitError(
        InternalCode.InvalidSetting,
        'MCP_OPENAPI_SPEC is required by the openapi plugin: set it to the file path or http(s) URL of an OpenAPI 3.0 or 3.1 document',
      );
    }
  },
});

export default openapiPlugin;

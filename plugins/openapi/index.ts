/**
 * The openapi plugin: every operation of an OpenAPI 3.0 or 3.1 document becomes a tool that
 * calls the API. Built with the public API only (`src/index.ts`), so it doubles as the example
 * of a plugin for an external service: settings with secrets, a doctor check that feeds
 * /readyz, an HTTP client with timeouts, cancellation and retries, and a fixed error mapping.
 */
import { definePlugin } from '@mcp-toolkit/server';
import { unmatchedForwards } from './caller-token.ts';
import { checkApi, missingCredentials } from './doctor.ts';
import { prepare } from './prepare.ts';
import { type OpenapiSettings, openapiSettings } from './settings.ts';

export type { OpenapiSettings };
export { openapiSettings };

/**
 * The plugin definition; `MCP_PLUGINS=openapi` loads it.
 *
 * @example
 * const client = await TestClient.start({ plugins: [openapiPlugin], env: { MCP_OPENAPI_SPEC: './petstore.yaml' } });
 */
export const openapiPlugin = definePlugin({
  name: 'openapi',
  description:
    "Tools from an OpenAPI 3.0 or 3.1 document (MCP_OPENAPI_SPEC): one per operation, calling the API at MCP_OPENAPI_BASE_URL or the document's server.",
  settings: openapiSettings,
  async register(app, settings) {
    const prepared = await prepare(settings);
    for (const entry of prepared.unmatched) {
      app.logger.warn({ entry }, 'MCP_OPENAPI_INCLUDE entry matches no operation');
    }
    for (const entry of unmatchedForwards(prepared.selected, settings.forwardUpstreamToken)) {
      app.logger.warn({ entry }, 'MCP_OPENAPI_FORWARD_UPSTREAM_TOKEN entry matches no offered operation');
    }
    for (const { label, reason } of prepared.skipped) {
      app.logger.warn({ operation: label, reason }, 'operation not offered as a tool');
    }
    const leftOut = missingCredentials(prepared);
    if (leftOut !== undefined) {
      app.logger.warn(
        { operations: prepared.uncredentialed.map((u) => u.label) },
        `operations left out, their security needs credentials that are not set: ${leftOut}; set them to offer these tools`,
      );
    }
    app.add(...prepared.tools);
    const { info } = prepared.loaded.api;
    app.logger.info(
      { api: `${info.title} ${info.version}`, tools: prepared.tools.map((t) => t.name) },
      'openapi plugin ready',
    );
  },
  doctor: (settings) => checkApi(settings),
  // `mcp-toolkit dev` re-reads a local document when it changes (and clients get list_changed).
  devWatch: (settings) => (settings.spec && !/^https?:\/\//i.test(settings.spec) ? [settings.spec] : []),
});

export default openapiPlugin;

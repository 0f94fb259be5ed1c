/** Shared set-up of the openapi plugin tests: the fake petstore and clients of the plugin on it. */
import { fileURLToPath } from 'node:url';
import { openapiPlugin } from '../../../plugins/openapi/index.ts';
import type { JsonObject, PluginDefinition } from '../../../src/index.ts';
import { TestClient } from '../../../src/testing/client/test-client.ts';
import { type FakeApi, PETSTORE, startFakeApi } from './fake-api.ts';

export const API_KEY = 'key-5b2f9c41e7d0';
export const BEARER_TOKEN = 'tok-8e13a7f2c6b9';
export const PETSTORE_PATH = fileURLToPath(PETSTORE);

export { type FakeApi, startFakeApi };

export function startFake(): Promise<FakeApi> {
  return startFakeApi({ apiKey: API_KEY, bearerToken: BEARER_TOKEN });
}

/** A TestClient of a server with only the openapi plugin, on the petstore document. */
export function startPlugin(
  api: FakeApi,
  env: Record<string, string> = {},
  wire: '2025' | '2026' = '2025',
): Promise<TestClient> {
  return TestClient.start({
    plugins: [openapiPlugin as PluginDefinition<never>],
    env: {
      MCP_OPENAPI_SPEC: PETSTORE_PATH,
      MCP_OPENAPI_BASE_URL: api.baseUrl,
      MCP_OPENAPI_RETRIES: '2',
      ...env,
    },
    wire,
  });
}

export interface CallResult {
  content: { type: string; text?: string; data?: string; mimeType?: string }[];
  structuredContent?: JsonObject;
  isError?: boolean;
}

export async function call(client: TestClient, name: string, args: JsonObject = {}): Promise<CallResult> {
  return (await client.callTool(name, args)) as unknown as CallResult;
}

export const textOf = (r: CallResult): string => r.content.map((c) => c.text ?? '').join('');

/** Awaits a rejection and returns the error, failing when the promise resolves. */
export async function rejection(promise: Promise<unknown>): Promise<Error & { code?: unknown }> {
  try {
    await promise;
  } catch (err) {
    return err as Error & { code?: unknown };
  }
  throw new Error('expected a rejection');
}

/**
 * Starts a TestClient whose every received message is validated against the specification's
 * JSON Schema for the negotiated revision; `close()` fails the test on any violation.
 */
import assert from 'node:assert/strict';
import { TestClient, type TestClientOptions } from '../../src/testing/test-client.ts';
import { validateServerMessage } from './spec-schema.ts';

export interface CheckedClient extends TestClient {
  readonly violations: string[];
}

export async function startClient(options: TestClientOptions = {}): Promise<CheckedClient> {
  const violations: string[] = [];
  const client = (await TestClient.start({
    ...options,
    onServerMessage: (message, info) => {
      for (const v of validateServerMessage(info.protocolVersion, message, info.requestMethod)) {
        violations.push(`${info.requestMethod ?? (message as { method?: string }).method ?? '?'}: ${v}`);
      }
      options.onServerMessage?.(message, info);
    },
  })) as CheckedClient;
  Object.defineProperty(client, 'violations', { value: violations });
  const close = client.close.bind(client);
  client.close = async () => {
    await close();
    assert.deepEqual(violations, [], 'every message the server sent matches the spec schema');
  };
  return client;
}

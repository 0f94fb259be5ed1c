/**
 * Starts a TestClient whose every received message is validated against the specification's
 * JSON Schema for the negotiated revision; `close()` fails the test on any violation. And the
 * servers such clients share.
 */
import assert from 'node:assert/strict';
import { inProcessConnector } from '../../src/assembly/serve.ts';
import type { McpServer } from '../../src/assembly/server.ts';
import { createServer, type RunningServer, type ServerOptions } from '../../src/index.ts';
import { TestClient, type TestClientOptions } from '../../src/testing/client/test-client.ts';
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

/**
 * A server that several clients share, started with the public `createServer()` and no
 * transport (clients reach it through `connect()`); close it after its clients.
 */
export function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  return createServer({
    ...options,
    settings: { MCP_LOG_LEVEL: 'silent', ...options.settings },
    transport: 'none',
  });
}

/**
 * The public handle over a server assembled by hand (`src/assembly/server.ts` with a fake clock, a
 * task store of the test's own): what TestClient and the kit's targets take.
 */
export function handleOf(server: McpServer): RunningServer {
  let ended!: () => void;
  const closed = new Promise<void>((resolve) => {
    ended = resolve;
  });
  const close = () => server.close().then(ended);
  return {
    server,
    settings: server.settings,
    url: undefined,
    close,
    stop: close,
    closed,
    connect: inProcessConnector(server),
  };
}

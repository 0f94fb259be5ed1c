/**
 * Interop with the official clients, over real processes and sockets: the v1
 * `@modelcontextprotocol/sdk` Client over streamable HTTP and stdio, and the v2
 * `@modelcontextprotocol/client` over HTTP on the 2025 wire and pinned to 2026-07-28, and
 * over stdio with version negotiation on `auto`. Each lists the tools and calls the
 * filesystem plugin's tools on a temp root. Every message the client receives is captured on
 * its transport and validated against the spec schema of the negotiated revision; on HTTP a
 * wrapping `fetch` records each exchange's status and headers.
 */
import assert from 'node:assert/strict';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CLI,
  childEnv,
  REPO_ROOT,
  type SpawnedHttpServer,
  spawnHttpServer,
} from '../helpers/spawn-server.ts';
import { validateServerMessage } from '../helpers/spec-schema.ts';

const V2025 = '2025-11-25';
const V2026 = '2026-07-28';
const FILE_TEXT = 'hello from the e2e test\n';

type Message = Record<string, unknown>;

interface TransportLike {
  onmessage?: (message: never, extra?: never) => void;
  send(message: never, options?: never): Promise<void>;
}

/** What a client's transport carried: requests sent (id → method) and every message received. */
interface Tap {
  readonly methods: Map<unknown, string>;
  readonly received: Message[];
}

/**
 * Records what passes through a transport without changing it: `send` is wrapped, and the
 * `onmessage` the client installs is wrapped when the transport reads it (clients may chain
 * handlers, so a message object is recorded once).
 */
function tapTransport(transport: TransportLike): Tap {
  const tap: Tap = { methods: new Map(), received: [] };
  const seen = new WeakSet<object>();
  const send = transport.send.bind(transport) as (m: Message, o?: unknown) => Promise<void>;
  (transport as { send: unknown }).send = (m: Message, o?: unknown) => {
    if (typeof m.method === 'string' && 'id' in m) tap.methods.set(m.id, m.method);
    return send(m, o);
  };
  let handler: ((m: Message, extra?: unknown) => void) | undefined;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () =>
      handler &&
      ((m: Message, extra?: unknown) => {
        if (!seen.has(m)) {
          seen.add(m);
          tap.received.push(m);
        }
        handler?.(m, extra);
      }),
    set: (h: typeof handler) => {
      handler = h;
    },
  });
  return tap;
}

/** Validates every captured message against `revision` (answers against their request's method). */
function assertSchemaValid(tap: Tap, revision: string): void {
  assert.ok(tap.received.length > 0, 'messages were captured');
  const violations = tap.received.flatMap((m) => {
    const method = 'method' in m ? undefined : tap.methods.get(m.id);
    return validateServerMessage(revision, m, 'error' in m ? undefined : method);
  });
  assert.deepEqual(violations, [], 'every message from our server matches the spec schema');
}

interface Exchange {
  method: string;
  status: number;
  contentType: string;
  requestVersion: string | null;
  requestMethod: string | null;
  sessionId: string | null;
}

/** A fetch that records each HTTP exchange (statuses and headers; bodies are left to the client). */
function recordingFetch(log: Exchange[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    const headers = new Headers(init?.headers);
    log.push({
      method: init?.method ?? 'GET',
      status: res.status,
      contentType: res.headers.get('content-type') ?? '',
      requestVersion: headers.get('mcp-protocol-version'),
      requestMethod: headers.get('mcp-method'),
      sessionId: res.headers.get('mcp-session-id'),
    });
    return res;
  };
}

/** Lists the tools and calls list_files and read_file through any official client. */
async function exercise(client: {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments: Message }): Promise<unknown>;
}): Promise<void> {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tl) => tl.name).sort(), ['list_files', 'read_file', 'write_file']);
  const listed = (await client.callTool({ name: 'list_files', arguments: { path: '.' } })) as Message;
  assert.notEqual(listed.isError, true);
  const entries = (listed.structuredContent as { entries: { name: string; type: string }[] }).entries;
  assert.ok(entries.some((e) => e.name === 'hello.txt' && e.type === 'file'));
  const read = (await client.callTool({ name: 'read_file', arguments: { path: 'hello.txt' } })) as Message;
  assert.notEqual(read.isError, true);
  assert.equal((read.structuredContent as { content: string }).content, FILE_TEXT);
  assert.ok(
    (read.content as { type: string; text?: string }[]).some(
      (c) => c.type === 'text' && c.text?.includes('hello from'),
    ),
  );
}

let root: string;
let serverReady: Promise<SpawnedHttpServer>;
const INFO = { name: 'e2e-official-client', version: '1.0.0' };

function serverEnv(): Record<string, string> {
  return { MCP_PLUGINS: 'filesystem', MCP_FILESYSTEM_ROOT: root, MCP_LOG_LEVEL: 'warn' };
}

function stdioParams(): {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  stderr: 'pipe';
} {
  return {
    command: process.execPath,
    args: [CLI, 'run', '--transport', 'stdio'],
    env: childEnv(serverEnv()),
    cwd: REPO_ROOT,
    stderr: 'pipe',
  };
}

before(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'mcp-e2e-')));
  await writeFile(path.join(root, 'hello.txt'), FILE_TEXT);
  // Not awaited: the stdio tests start their own processes meanwhile.
  serverReady = spawnHttpServer(serverEnv());
  serverReady.catch(() => {});
});

after(async () => {
  await serverReady.then((s) => s.stop()).catch(() => {});
  await rm(root, { recursive: true, force: true });
});

describe('official clients against mcp-toolkit', { concurrency: true }, () => {
  test('SDK v1 Client over streamable HTTP', async () => {
    const server = await serverReady;
    const log: Exchange[] = [];
    const transport = new HttpV1(new URL(server.url), { fetch: recordingFetch(log) });
    const tap = tapTransport(transport as unknown as TransportLike);
    const client = new ClientV1(INFO);
    await client.connect(transport);
    let sessionId: string | undefined;
    try {
      await exercise(client);
      sessionId = transport.sessionId;
      assert.match(sessionId ?? '', /^[\x21-\x7E]+$/);
      await transport.terminateSession();
    } finally {
      await client.close();
    }
    assertSchemaValid(tap, V2025);
    const posts = log.filter((e) => e.method === 'POST');
    assert.ok(
      posts.every((e) => e.status >= 200 && e.status < 300),
      JSON.stringify(log),
    );
    assert.equal(posts[0]!.sessionId, sessionId, 'initialize issued the session the client used');
    assert.equal(log.find((e) => e.method === 'DELETE')?.status, 200);
  });

  test('SDK v1 Client over stdio', async () => {
    const transport = new StdioV1(stdioParams());
    const tap = tapTransport(transport as unknown as TransportLike);
    const client = new ClientV1(INFO);
    await client.connect(transport);
    try {
      await exercise(client);
    } finally {
      await client.close();
    }
    assertSchemaValid(tap, V2025);
  });

  test('SDK v2 Client over streamable HTTP, 2025 wire', async () => {
    const server = await serverReady;
    const log: Exchange[] = [];
    const transport = new HttpV2(new URL(server.url), { fetch: recordingFetch(log) });
    const tap = tapTransport(transport as unknown as TransportLike);
    const client = new ClientV2(INFO);
    await client.connect(transport);
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), V2025);
      await exercise(client);
    } finally {
      await client.close();
    }
    assertSchemaValid(tap, V2025);
    assert.ok(log.length >= 5);
    assert.ok(
      log.every((e) => e.status >= 200 && e.status < 300),
      JSON.stringify(log),
    );
  });

  test('SDK v2 Client over streamable HTTP, pinned to 2026-07-28', async () => {
    const server = await serverReady;
    const log: Exchange[] = [];
    const transport = new HttpV2(new URL(server.url), { fetch: recordingFetch(log) });
    const tap = tapTransport(transport as unknown as TransportLike);
    const client = new ClientV2(INFO, { versionNegotiation: { mode: { pin: V2026 } } });
    await client.connect(transport);
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), V2026);
      await exercise(client);
    } finally {
      await client.close();
    }
    assertSchemaValid(tap, V2026);
    assert.ok(tap.methods.size >= 4, 'discover, tools/list and two calls went out');
    assert.ok(![...tap.methods.values()].includes('initialize'), 'no handshake on the 2026 wire');
    const posts = log.filter((e) => e.method === 'POST');
    assert.ok(posts.length >= 4);
    for (const e of posts) {
      assert.equal(e.status, 200, JSON.stringify(e));
      assert.equal(e.requestVersion, V2026);
      assert.ok(e.requestMethod, 'Mcp-Method was sent');
      assert.equal(e.sessionId, null, 'no session on the stateless wire');
    }
  });

  test('SDK v2 Client over stdio, version negotiation auto', async () => {
    const transport = new StdioV2(stdioParams());
    const tap = tapTransport(transport as unknown as TransportLike);
    const client = new ClientV2(INFO, { versionNegotiation: { mode: 'auto' } });
    await client.connect(transport);
    try {
      // Our server answers the server/discover probe, so auto settles on the 2026 wire.
      assert.equal(client.getNegotiatedProtocolVersion(), V2026);
      await exercise(client);
    } finally {
      await client.close();
    }
    assertSchemaValid(tap, V2026);
  });
});

describe('shutdown', () => {
  test('SIGTERM stops the HTTP server process with exit code 0', async () => {
    const server = await serverReady;
    assert.equal(await server.stop(), 0, server.stderr());
  });
});

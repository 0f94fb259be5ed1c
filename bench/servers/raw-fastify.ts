/**
 * Baseline, the practical limit: a Fastify route that does by hand the JSON-RPC work a
 * `tools/call` of `add` needs on the 2026 wire and nothing more: Fastify parses the body,
 * the route checks the envelope (`jsonrpc`, method, `Mcp-Method` header, the protocol
 * version in `params._meta`), the tool name and the argument types, and answers with the
 * same result shape our server sends (text content, `structuredContent`, `resultType`).
 * Usage: `node bench/servers/raw-fastify.ts [--port N]`.
 */
import Fastify from 'fastify';
import { ErrorCode } from '../../src/base/errors.ts';
import { announce, portArg } from './port-arg.ts';

interface Body {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: { name?: unknown; arguments?: { a?: unknown; b?: unknown }; _meta?: Record<string, unknown> };
}

const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const SERVER_META = { 'io.modelcontextprotocol/serverInfo': { name: 'bench-raw', version: '1.0.0' } };

const app = Fastify({ logger: false });
app.post('/mcp', async (req, reply) => {
  const body = req.body as Body;
  const params = body.params;
  const args = params?.arguments;
  if (
    body.jsonrpc !== '2.0' ||
    body.method !== 'tools/call' ||
    req.headers['mcp-method'] !== 'tools/call' ||
    typeof params?._meta?.[VERSION_KEY] !== 'string' ||
    params.name !== 'add' ||
    typeof args?.a !== 'number' ||
    typeof args.b !== 'number'
  ) {
    return reply.code(400).send({
      jsonrpc: '2.0',
      id: body.id ?? null,
      error: { code: ErrorCode.InvalidParams, message: 'bad request' },
    });
  }
  const structuredContent = { sum: args.a + args.b };
  return reply.header('content-type', 'application/json').send({
    jsonrpc: '2.0',
    id: body.id,
    result: {
      content: [{ type: 'text', text: JSON.stringify(structuredContent) }],
      structuredContent,
      resultType: 'complete',
      _meta: SERVER_META,
    },
  });
});
announce(await app.listen({ host: '127.0.0.1', port: portArg() }));
// Exit on SIGTERM rather than die of it, so that `--cpu-prof` (bench/per-request.ts --profile) writes its profile.
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));

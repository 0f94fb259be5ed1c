/**
 * Mounts a web-standard `(Request) => Response` handler on a Fastify route, the way the SDK's
 * optional Fastify adapter does (`@modelcontextprotocol/fastify` is not a dependency here):
 * Fastify parses the JSON body once and hands it over as `parsedBody`, so the SDK does not
 * read the body a second time.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { FastifyReply, FastifyRequest } from 'fastify';

export type FetchHandler = (request: Request, options: { parsedBody?: unknown }) => Promise<Response>;

function toHeaders(raw: FastifyRequest['headers']): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  return headers;
}

/** A Fastify handler that serves the request through `handler` and copies the response back. */
export function bridge(handler: FetchHandler) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const origin = `http://${req.headers.host ?? '127.0.0.1'}`;
    const request = new Request(origin + req.url, { method: req.method, headers: toHeaders(req.headers) });
    const response = await handler(request, req.body === undefined ? {} : { parsedBody: req.body });
    reply.code(response.status);
    response.headers.forEach((value, name) => {
      reply.header(name, value);
    });
    if (response.body === null) return reply.send();
    if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
      return reply.send(Readable.fromWeb(response.body as NodeReadableStream));
    }
    return reply.send(Buffer.from(await response.arrayBuffer()));
  };
}

/**
 * Request bodies on the MCP endpoint, stage 4 of the edge (src/transports/edge/pipeline.ts) in
 * Fastify's content parser: JSON only, within the body limit, parsed with prototype-poisoning
 * protection; every failure answers a JSON-RPC error (MCP clients expect -32700 for bad JSON,
 * not Fastify's own error shape).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProtocolError } from '../../base/errors.ts';
import { Refusal } from '../../base/refusals.ts';
import type { HttpDeps } from '../deps.ts';
import type { Edge } from '../edge/pipeline.ts';

export function installBodyHandling(
  app: FastifyInstance,
  server: HttpDeps,
  edge: Edge<FastifyRequest, FastifyReply>,
): void {
  const maxBody = edge.maxBodyBytes;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: maxBody },
    (req, body: string | Buffer, done) => {
      try {
        done(null, edge.readJson(req.headers['content-type'], body.toString()));
      } catch (err) {
        done(err as Error, undefined);
      }
    },
  );
  // Any other media type is refused before its body is read, as the fetch handler does.
  app.addContentTypeParser('*', (_req, _payload, done) => done(Refusal.unsupportedMediaType(), undefined));

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    if (err instanceof ProtocolError) return edge.refuse(req, reply, err, null);
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return edge.refuse(req, reply, Refusal.unsupportedMediaType(), null);
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || err.statusCode === 413) {
      return edge.refuse(req, reply, Refusal.bodyTooLarge(maxBody), null);
    }
    if (err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
      return edge.refuse(req, reply, Refusal.bodyParseError('the body is not valid JSON'), null);
    }
    server.logger.error({ err }, 'http error');
    return edge.refuse(req, reply, Refusal.internal(), null);
  });
}

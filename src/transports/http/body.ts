/**
 * Request bodies on the MCP routes: JSON only, within MCP_MAX_BODY_BYTES, parsed with
 * prototype-poisoning protection; every failure answers a JSON-RPC error (MCP clients expect
 * -32700 for bad JSON, not Fastify's own error shape).
 */
import type { FastifyInstance } from 'fastify';
import { Refusal } from '../../base/refusals.ts';
import type { HttpDeps } from '../deps.ts';
import { refuse } from './refuse.ts';
import { parseBody, parseRefusal } from './rules.ts';

export function installBodyHandling(app: FastifyInstance, server: HttpDeps, maxBody: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: maxBody },
    (_req, body: string | Buffer, done) => {
      try {
        done(null, parseBody(body.toString()));
      } catch (err) {
        done(err as Error, undefined);
      }
    },
  );
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: maxBody }, (_req, _body, done) => {
    done(
      Object.assign(new Error('unsupported media type'), { statusCode: 415, code: 'MCP_UNSUPPORTED_MEDIA' }),
      undefined,
    );
  });

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    if (err.code === 'MCP_UNSUPPORTED_MEDIA' || err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return refuse(server, req, reply, Refusal.unsupportedMediaType(), null);
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || err.statusCode === 413) {
      return refuse(server, req, reply, Refusal.bodyTooLarge(maxBody), null);
    }
    if (
      err instanceof SyntaxError ||
      err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
      err.code === 'MCP_POISON'
    ) {
      return refuse(server, req, reply, parseRefusal(err), null);
    }
    server.logger.error({ err }, 'http error');
    return refuse(server, req, reply, Refusal.internal(), null);
  });
}

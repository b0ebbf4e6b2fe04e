// The error envelope for everything thrown, and the plain 404 of every unopened path.
import type { FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { MAX_ROWS } from '../config.js';
import { type ApiError, envelopeJson, envelopePieces, isFramingRefusal, toApiError } from '../errors.js';
import { joinBytes } from '../native.js';

/** The contract's error envelope as the response (headers such as Retry-After set by the caller). */
export function sendEnvelope(reply: FastifyReply, api: ApiError, requestId: string, body: string | Buffer = envelopeJson(api, requestId)): FastifyReply {
  return reply.code(api.status).type('application/json; charset=utf-8').send(body);
}

/** The envelope's bytes, an engine error's details (a report can be hundreds of megabytes) joined on the thread pool. */
async function envelopeBody(api: ApiError, requestId: string): Promise<string | Buffer> {
  const pieces = envelopePieces(api, requestId);
  return typeof pieces === 'string' ? pieces : joinBytes(pieces);
}

/** The plain 404 of every path the service does not open. */
export function sendNotFound(reply: FastifyReply): FastifyReply {
  return reply.code(404).type('text/plain; charset=utf-8').send('Not Found');
}

export default fp(
  async (app) => {
    const limits = { bodyLimitBytes: app.config.bodyLimitBytes, maxRows: MAX_ROWS };
    app.setErrorHandler(async (err, req, reply) => {
      // An unopened path is the plain 404 whatever was found wrong on the way to it (QUERY
      // without a Content-Type, a compressed body); only the Host refusal keeps its answer.
      if (req.is404 && !isFramingRefusal(err)) return sendNotFound(reply);
      let api = toApiError(err, limits);
      // A chunked body cut at the size limit counts toward the per-minute limit first (step 2).
      if ((err as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        try {
          await app.countRefusedBody(req);
        } catch (limited) {
          api = toApiError(limited, limits);
        }
      }
      if (api.status >= 500 && api.code === 'INTERNAL_SERVER_ERROR') req.log.error({ err }, 'unexpected error');
      // The model failing is the operator's to see too: ONNX Runtime's own log is off (one sentence
      // at start-up), so its reason, which the 503 carries, goes to the log here.
      else if (api.code === 'SERVICE_UNAVAILABLE' && api.details?.stage === 'inference') req.log.error({ reason: api.message }, 'inference failed');
      // A success refused while it was being sent (its outcome or bill not written) set its stages.
      reply.removeHeader('Server-Timing');
      for (const [name, value] of Object.entries(api.headers)) reply.header(name, value);
      return sendEnvelope(reply, api, req.id, await envelopeBody(api, req.id));
    });
    // Planned paths, /cn/v1/... and everything else unopened: 404 without the envelope.
    app.setNotFoundHandler((_req, reply) => sendNotFound(reply));
  },
  { name: 'hora-errors', fastify: '5.x' },
);

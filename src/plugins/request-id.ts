// Request ids: the server's own `req_` id (body field and X-Request-Id header) and the caller's
// X-Request-Id echoed as X-Client-Request-Id when it matches the contract's pattern (else empty).
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/** The contract's pattern for a client X-Request-Id; the OpenAPI document states it from here. */
export const CLIENT_REQUEST_ID_PATTERN = '^[A-Za-z0-9_-]{8,64}$';
const CLIENT_ID_RE = new RegExp(CLIENT_REQUEST_ID_PATTERN);

export function newRequestId(): string {
  return `req_${randomBytes(12).toString('hex')}`;
}

/**
 * The X-Client-Request-Id value: the caller's X-Request-Id when it matches the contract's
 * pattern, else empty rather than an id the caller never sent.
 */
export function clientRequestId(sent: string | string[] | undefined): string {
  return typeof sent === 'string' && CLIENT_ID_RE.test(sent) ? sent : '';
}

/**
 * `X-Request-Id` and `X-Client-Request-Id` on `reply`: every response carries both (the contract
 * lists them on successes), including those answered before this plugin's hook runs.
 */
export function setRequestIds(req: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply.header('X-Request-Id', req.id).header('X-Client-Request-Id', clientRequestId(req.headers['x-request-id']));
}

export default fp(
  async (app) => {
    app.decorateRequest('receivedAt', 0);
    app.addHook('onRequest', async (req, reply) => {
      req.receivedAt = performance.now();
      setRequestIds(req, reply);
    });
    // Where a route reports its stages, the whole time in the server (from the first byte read to
    // the response handed to the socket) goes beside them, so a benchmark can tell the server's
    // share from the client's and the network's.
    app.addHook('onSend', async (req, reply) => {
      const stages = reply.getHeader('Server-Timing');
      if (typeof stages === 'string') reply.header('Server-Timing', `${stages}, total;dur=${(performance.now() - req.receivedAt).toFixed(2)}`);
    });
  },
  { name: 'hora-request-id', fastify: '5.x' },
);

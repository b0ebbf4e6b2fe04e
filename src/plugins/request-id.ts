// Request ids: the server's own `req_` id (body field and X-Request-Id header) and the caller's
// X-Request-Id echoed as X-Client-Request-Id when it matches the contract's pattern (else empty).
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import fp from 'fastify-plugin';

const CLIENT_ID_RE = /^[A-Za-z0-9_-]{8,64}$/;

export function newRequestId(): string {
  return `req_${randomBytes(12).toString('hex')}`;
}

export default fp(
  async (app) => {
    app.decorateRequest('receivedAt', 0);
    app.addHook('onRequest', async (req, reply) => {
      req.receivedAt = performance.now();
      reply.header('X-Request-Id', req.id);
      // Every response carries the header (contract: success responses carry it); with no valid
      // client id to echo, its value is empty rather than an id the caller never sent.
      const client = req.headers['x-request-id'];
      reply.header('X-Client-Request-Id', typeof client === 'string' && CLIENT_ID_RE.test(client) ? client : '');
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

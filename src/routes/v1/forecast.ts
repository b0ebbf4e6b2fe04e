// POST /v1/forecast. Steps 1 and 2 of the validation order ran in the plugins' hooks; the handler
// does steps 3 to 10 (src/forecast/handle.ts).
import type { FastifyInstance } from 'fastify';
import { handleForecast, serverTiming } from '../../forecast/handle.js';
import { requireTenant } from '../../plugins/route-policy.js';

export default async function forecastRoute(app: FastifyInstance): Promise<void> {
  app.post('/v1/forecast', async (req, reply) => {
    const tenant = requireTenant(req);
    const result = await handleForecast(
      {
        raw: req.rawBody,
        requestId: req.id,
        defaults: tenant.defaults,
        elapsedMs: () => performance.now() - req.receivedAt,
      },
      {
        reserveQuota: (points) => app.limits.reserve(req, points),
        runInference: (task) => app.capacity.runInference(task),
      },
    );
    reply.header('Server-Timing', serverTiming(result.timings));
    return reply.code(200).type('application/json; charset=utf-8').send(result.body);
  });
}

// POST /v1/clean (beta): the cleaning stage as a dry run. Not billed, its own rpm limit, a shared
// cleaning capacity that never queues.
import type { FastifyInstance } from 'fastify';
import { fromEngineError } from '../../errors.js';
import { serverTiming } from '../../forecast/handle.js';
import { checkForecastModel, forecastParams } from '../../forecast/params.js';
import { loadModel, runClean } from '../../native.js';
import { requireTenant } from '../../plugins/route-policy.js';
import { spliceObject, type JsonMember } from '../../serialize.js';
import { validateRequest } from '../../validation/request.js';

export default async function cleanRoute(app: FastifyInstance): Promise<void> {
  app.post('/v1/clean', async (req, reply) => {
    const tenant = requireTenant(req);
    const { parsed, top, policy, cleaning, parseMs: parse } = await validateRequest(req.rawBody, { endpoint: 'clean', defaults: tenant.defaults });
    // With a model, the forecast's model checks (step 6) apply exactly as on the forecast:
    // model id, horizon, strict quantiles, length.
    const model = top.model !== undefined ? loadModel() : undefined;
    if (model) await checkForecastModel(top, forecastParams(top, cleaning), parsed, model, policy);

    const slot = app.capacity.acquireCleaning(req);
    try {
      const outcome = await runClean(parsed, {
        freq: top.freq,
        h: top.h ?? 0,
        withModel: model !== undefined,
        cleaning,
      });
      if (outcome.error) throw fromEngineError(outcome.error);
      const parts = outcome.parts!;
      const assembling = performance.now();
      // "returns only the cleaning report and the effective policy": nothing else, not even the
      // request id (it is in X-Request-Id); the report carries the frequencies and the warnings.
      const members: JsonMember[] = [
        ['effective_policy', JSON.stringify(policy)],
        ['cleaning_report', parts.reportJson],
      ];
      const body = await spliceObject(members);
      reply.header('Server-Timing', serverTiming({ parse, clean: parts.cleanMs, serialize: parts.serializeMs + performance.now() - assembling }));
      return reply.code(200).type('application/json; charset=utf-8').send(body);
    } finally {
      slot.release();
    }
  });
}

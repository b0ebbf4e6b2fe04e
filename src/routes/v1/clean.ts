// POST /v1/clean (beta): the cleaning stage as a dry run. Not billed, its own rpm limit, a shared
// cleaning capacity that never queues.
import type { FastifyInstance } from 'fastify';
import { ApiError, fromEngineError } from '../../errors.js';
import { serverTiming } from '../../forecast/handle.js';
import { checkForecastModel, checkModelId, forecastParams } from '../../forecast/params.js';
import { H_FIELD_MAX } from '../../schemas/request.js';
import { loadModel, runClean } from '../../native.js';
import { requireTenant } from '../../plugins/types.js';
import { isEmptyJsonArray, spliceObject, type JsonMember } from '../../serialize.js';
import { validateRequest } from '../../validation/request.js';

export default async function cleanRoute(app: FastifyInstance): Promise<void> {
  app.post('/v1/clean', async (req, reply) => {
    const tenant = requireTenant(req);
    const { parsed, top, policy, cleaning, parseMs: parse } = await validateRequest(req.rawBody, { endpoint: 'clean', defaults: tenant.defaults });
    // With a model, the forecast's model checks (step 6) apply exactly as on the forecast:
    // horizon, strict quantiles, length. Without one, `h` is held to its field range.
    const model = top.model !== undefined ? (checkModelId(top), loadModel()) : undefined;
    if (model) await checkForecastModel(top, forecastParams(top, cleaning), parsed, model, policy);
    else if (top.h !== undefined && top.h > H_FIELD_MAX) {
      throw new ApiError('VALIDATION_ERROR', `The request body is invalid: h must be at most ${H_FIELD_MAX}.`, { errors: [{ field: 'h', message: `must be at most ${H_FIELD_MAX}` }] });
    }

    const slot = app.capacity.acquireCleaning(req);
    try {
      const outcome = await runClean(parsed, {
        freq: top.freq,
        h: top.h ?? 0,
        minContext: model?.minContext,
        maxContext: model?.maxContext,
        cleaning,
      });
      if (outcome.error) throw fromEngineError(outcome.error);
      const parts = outcome.parts!;
      const members: JsonMember[] = [
        ['request_id', JSON.stringify(req.id)],
        ['freq', JSON.stringify(parts.freq)],
        ['effective_policy', JSON.stringify(policy)],
        ['data_quality', parts.dataQualityJson],
      ];
      if (!isEmptyJsonArray(parts.warningsJson)) members.push(['warnings', parts.warningsJson]);
      members.push(['cleaning_report', parts.reportJson]);
      reply.header('Server-Timing', serverTiming({ parse, clean: parts.cleanMs }));
      return reply.code(200).type('application/json; charset=utf-8').send(spliceObject(members));
    } finally {
      slot.release();
    }
  });
}

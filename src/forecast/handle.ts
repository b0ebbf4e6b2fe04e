// POST /v1/forecast after authentication, idempotency and the rpm check: validation order steps
// 3 to 10. The service frame is reached only through ForecastDeps.
import { fromEngineError } from '../errors.js';
import { loadModel, runForecast, runForecastCleaning, type ForecastParts } from '../native.js';
import type { CleaningDefaultsByLevel, EffectivePolicy } from '../policy/effective.js';
import { validateRequest } from '../validation/request.js';
import { checkForecastModel, forecastParams } from './params.js';
import { forecastBody } from './response.js';

export interface QuotaSettlement {
  /** Records the points the model handled; the frame bills them and frees the rest on a 2xx. */
  settle(points: { inputDataPoints: number; forecastDataPoints: number }): void;
}

export interface ForecastDeps {
  /** Step 7: reserves points of the daily quota, or throws 429 (forecast-daily-points). */
  reserveQuota(points: number): Promise<QuotaSettlement>;
  /** Step 9: runs the model call in a model slot within the request budget (MODEL_BUSY, GATEWAY_TIMEOUT). */
  runInference<T>(task: (budgetMs: number) => Promise<T>): Promise<T>;
}

export interface ForecastInput {
  raw: Buffer;
  requestId: string;
  defaults: CleaningDefaultsByLevel;
  /** Milliseconds since receipt, for usage.latency_ms. */
  elapsedMs(): number;
}

export interface ForecastResult {
  body: Buffer;
  parts: ForecastParts;
  policy: EffectivePolicy;
  /** Milliseconds per stage, for the Server-Timing header. */
  timings: StageTimings;
}

export interface StageTimings {
  parse: number;
  clean: number;
  inference: number;
  serialize: number;
}

/** `Server-Timing` (RFC: W3C Server Timing) value of the stages. */
export function serverTiming(t: Partial<StageTimings>): string {
  return Object.entries(t)
    .map(([name, ms]) => `${name};dur=${(ms as number).toFixed(2)}`)
    .join(', ');
}

export async function handleForecast(input: ForecastInput, deps: ForecastDeps): Promise<ForecastResult> {
  const { parsed, top, policy, cleaning, parseMs: parse } = await validateRequest(input.raw, { endpoint: 'forecast', defaults: input.defaults });
  const params = forecastParams(top, cleaning);
  const model = loadModel();
  await checkForecastModel(top, params, parsed, model, policy);

  const settlement = await deps.reserveQuota(parsed.rowCount + params.h * parsed.entityCount);
  // Cleaning before the model slot: data the cleaning refuses never waits for the model or gets
  // its MODEL_BUSY / GATEWAY_TIMEOUT (step 8 before step 9).
  const cleaned = await runForecastCleaning(parsed, params);
  const refused = cleaned.error;
  if (refused) throw fromEngineError(refused);
  // The engine's error is thrown inside the task, so the model's own stop at the budget reaches
  // runInference as the same GATEWAY_TIMEOUT its timer gives, whichever comes first.
  const parts = await deps.runInference(async (budgetMs) => {
    const outcome = await runForecast(cleaned, { ...params, budgetMs });
    if (outcome.error) throw fromEngineError(outcome.error);
    return outcome.parts!;
  });
  settlement.settle({ inputDataPoints: parts.inputDataPoints, forecastDataPoints: parts.forecastDataPoints });
  const assembling = performance.now();
  const body = await forecastBody(parts, { requestId: input.requestId, modelUsed: model.name, policy, latencyMs: input.elapsedMs() });
  const { cleanMs, inferenceMs, serializeMs } = parts.timings;
  const timings = { parse, clean: cleanMs, inference: inferenceMs, serialize: serializeMs + performance.now() - assembling };
  return { body, parts, policy, timings };
}

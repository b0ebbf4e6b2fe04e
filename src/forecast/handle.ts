// POST /v1/forecast after authentication, idempotency and the rpm check: validation order steps
// 3 to 10. The service frame is reached only through ForecastDeps.
import { fromEngineError } from '../errors.js';
import { loadModel, runForecast, type ForecastParts } from '../native.js';
import { checkCleaningOptions, resolvePolicy, type CleaningDefaultsByLevel, type EffectivePolicy } from '../policy/effective.js';
import { parseAndValidate } from '../validation/body.js';
import { checkForecastModel, forecastParams } from './params.js';
import { forecastBody } from './response.js';

export interface QuotaHold {
  /** Records the points the model handled; the frame bills them and frees the rest on a 2xx. */
  settle(points: { inputDataPoints: number; forecastDataPoints: number }): void;
}

export interface ForecastDeps {
  /** Step 7: reserves points of the daily quota, or throws 429 (forecast-daily-points). */
  reserveQuota(points: number): Promise<QuotaHold>;
  /** Step 9: runs the task in a model slot within the request budget (MODEL_BUSY, GATEWAY_TIMEOUT). */
  runInference<T>(task: () => Promise<T>): Promise<T>;
}

export interface ForecastInput {
  raw: Buffer;
  requestId: string;
  defaults: CleaningDefaultsByLevel;
  /** Milliseconds since receipt, for usage.latency_ms. */
  elapsedMs(): number;
}

export interface ForecastResult {
  body: string;
  parts: ForecastParts;
  policy: EffectivePolicy;
}

export async function handleForecast(input: ForecastInput, deps: ForecastDeps): Promise<ForecastResult> {
  const { parsed, top } = await parseAndValidate(input.raw, true);
  const policy = resolvePolicy(top.options?.cleaning, input.defaults);
  const params = forecastParams(top, policy);
  checkCleaningOptions(top, policy, params.cleaning as Record<string, unknown>, 'forecast');
  const model = loadModel();
  checkForecastModel(top, params, parsed, model, policy);

  const hold = await deps.reserveQuota(parsed.rowCount + params.h * parsed.entityCount);
  const outcome = await deps.runInference(() => runForecast(parsed, params));
  if (outcome.error) throw fromEngineError(outcome.error as Parameters<typeof fromEngineError>[0]);
  const parts = outcome.parts!;
  hold.settle({ inputDataPoints: parts.inputDataPoints, forecastDataPoints: parts.forecastDataPoints });
  const body = forecastBody(parts, { requestId: input.requestId, policy, latencyMs: input.elapsedMs() });
  return { body, parts, policy };
}

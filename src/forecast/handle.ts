// POST /v1/forecast after authentication, idempotency and the rpm check: validation order steps
// 3 to 10. The service frame is reached only through ForecastDeps.
import { ApiError, fromEngineError } from '../errors.js';
import { loadModel, runForecast, type ForecastParts } from '../native.js';
import { checkCleaningOptions, resolvePolicy, type CleaningDefaultsByLevel, type EffectivePolicy } from '../policy/effective.js';
import { parseAndValidate } from '../validation/body.js';
import { checkForecastModel, forecastParams } from './params.js';
import { forecastBody } from './response.js';

export interface QuotaHold {
  /** Settles on the points actually handled; the rest of the reservation is freed. */
  settle(points: number): Promise<void> | void;
  /** Frees the whole reservation (the request failed). */
  release(): Promise<void> | void;
}

export interface ForecastDeps {
  /** Step 7: reserves points of the daily quota or throws 429. */
  reserveQuota(points: number): Promise<QuotaHold>;
  /** Step 9: a model-run slot, or 503 MODEL_BUSY; the returned function frees it. */
  acquireInference(): Promise<() => void>;
  /** Billing: one ledger row per billed success. */
  recordUsage(inputPoints: number, forecastPoints: number): Promise<void> | void;
  requestBudgetMs: number;
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

/** Runs the engine within the budget; the slot stays held until the engine really finishes. */
async function inferWithinBudget(deps: ForecastDeps, run: () => ReturnType<typeof runForecast>) {
  const free = await deps.acquireInference();
  const task = run().finally(free);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ApiError('GATEWAY_TIMEOUT', `Inference did not finish within ${deps.requestBudgetMs} ms.`)),
      deps.requestBudgetMs,
    );
  });
  try {
    return await Promise.race([task, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function handleForecast(input: ForecastInput, deps: ForecastDeps): Promise<ForecastResult> {
  const { parsed, top } = await parseAndValidate(input.raw, true);
  const policy = resolvePolicy(top.options?.cleaning, input.defaults);
  checkCleaningOptions(top, policy, 'forecast');
  const model = loadModel();
  const params = forecastParams(top, policy);
  checkForecastModel(top, params, parsed, model, policy);

  const hold = await deps.reserveQuota(parsed.rowCount + params.h * parsed.entityCount);
  try {
    const outcome = await inferWithinBudget(deps, () => runForecast(parsed, params));
    if (outcome.error) throw fromEngineError(outcome.error as Parameters<typeof fromEngineError>[0]);
    const parts = outcome.parts!;
    await hold.settle(parts.inputDataPoints + parts.forecastDataPoints);
    await deps.recordUsage(parts.inputDataPoints, parts.forecastDataPoints);
    const body = forecastBody(parts, { requestId: input.requestId, policy, latencyMs: input.elapsedMs() });
    return { body, parts, policy };
  } catch (err) {
    await hold.release();
    throw err;
  }
}

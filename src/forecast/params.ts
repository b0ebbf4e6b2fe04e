// Validation order step 6 (model checks) and the engine parameters of a forecast.
import { ApiError, fromEngineError, quotedForMessage } from '../errors.js';
import { checkQuantiles, runLengthCheck, type CleaningParams, type ForecastParams, type ModelInfo, type ParsedRequest } from '../native.js';
import type { EffectivePolicy } from '../policy/effective.js';
import { cleans } from '../policy/table.js';
import { DEFAULTS, H_FIELD_MAX, MODEL_IDS, type TopLevelFields } from '../schemas/request.js';

/** The cleaning options handed to the engine: the request's, with the resolved preset and version. */
export function cleaningOptions(top: TopLevelFields, policy: EffectivePolicy): CleaningParams {
  const options = top.options ?? {};
  const cleaning = options.cleaning ?? {};
  return {
    preset: policy.preset,
    version: policy.version,
    timezone: options.timezone,
    dsFormat: options.ds_format,
    gapSplitMinSteps: splitSteps(options.gap_split_min_steps),
    cleanSeries: top.clean_series ?? DEFAULTS.clean_series,
    cleanExog: top.clean_exog ?? DEFAULTS.clean_exog,
    imputeMethod: cleaning.impute_method,
    seasonalPeriod: cleaning.seasonal_period,
    nonnegative: cleaning.nonnegative === undefined ? undefined : String(cleaning.nonnegative),
    bounds: cleaning.bounds,
    structuralZero: cleaning.structural_zero,
    businessDays: cleaning.business_days,
    longGap: cleaning.long_gap,
    accept: cleaning.accept,
    decline: cleaning.decline,
  };
}

/**
 * The contract bounds `gap_split_min_steps` only below. No grid has a gap of 2^32 steps (the grid
 * cap is 10^6 slots), so every larger value means the same as 2^32 - 1, which the engine takes
 * whole (a double such as 1e30 would not fit its integer).
 */
function splitSteps(steps: number | undefined): number | undefined {
  return steps === undefined ? undefined : Math.min(steps, 4_294_967_295);
}

/** The engine parameters of a forecast; `cleaning` from `cleaningOptions`. */
export function forecastParams(top: TopLevelFields, cleaning: CleaningParams): ForecastParams {
  const nonnegative = top.model_options?.nonnegative ?? DEFAULTS.nonnegative;
  return {
    h: top.h ?? 0,
    freq: top.freq,
    level: top.level ?? [],
    pointQuantile: top.point_quantile,
    quantilePolicy: top.quantile_policy ?? DEFAULTS.quantile_policy,
    flipAverage: top.model_options?.flip_average ?? DEFAULTS.flip_average,
    nonnegative: String(nonnegative),
    cleaning,
  };
}

/** `model`: hora-1.0 or hora, else MODEL_NOT_AVAILABLE (for /clean too, through checkForecastModel). */
function checkModelId(top: TopLevelFields): void {
  const model = top.model ?? DEFAULTS.model;
  if (!(MODEL_IDS as readonly string[]).includes(model)) {
    // The details hold the model as sent; the message, cut (a 50 MB value was echoed twice).
    throw new ApiError('MODEL_NOT_AVAILABLE', `Model ${quotedForMessage(model)} is not available.`, { details: { model, available: [...MODEL_IDS] } });
  }
}

export interface LengthCheck {
  freq: string | undefined;
  h: number;
  cleaning: CleaningParams;
}

/**
 * SERIES_TOO_LONG before cleaning (validation order step 6): more distinct timestamps (rows under
 * raw) than the maximum context. Counting is cheap; only when an entity is over does the engine
 * decide, cleaning just those entities, because one whose long gap the cleaning will cut skips
 * this check. Every other finding waits for the cleaning step.
 */
async function checkSeriesLength(parsed: ParsedRequest, model: ModelInfo, raw: boolean, check: LengthCheck): Promise<void> {
  if (!parsed.hasEntityLongerThan(model.maxContext, raw)) return;
  const error = await runLengthCheck(parsed, { ...check, withModel: true });
  if (error) throw fromEngineError(error);
}

/** Step 6 of the forecast: model id, horizon, strict quantiles, pre-cleaning length. */
export async function checkForecastModel(
  top: TopLevelFields,
  params: ForecastParams,
  parsed: ParsedRequest,
  model: ModelInfo,
  policy: EffectivePolicy,
): Promise<void> {
  checkModelId(top);
  // h passed step 3 as an integer of at least 1; the field's 2048 and the model's maximum are one
  // rule here (contract: "1 to 2048 and at most the model's maximum horizon, else
  // HORIZON_EXCEEDS_MODEL").
  const maxHorizon = Math.min(H_FIELD_MAX, model.maxHorizon);
  if (params.h > maxHorizon) {
    throw new ApiError('HORIZON_EXCEEDS_MODEL', `h = ${params.h} exceeds the maximum horizon of ${maxHorizon} for ${model.name}.`, {
      details: { model: model.name, h: params.h, max_horizon: maxHorizon },
    });
  }
  const quantileError = checkQuantiles(params);
  if (quantileError) throw fromEngineError(quantileError);
  await checkSeriesLength(parsed, model, !cleans(policy.preset), { freq: params.freq ?? undefined, h: params.h, cleaning: params.cleaning });
}

// Validation order step 6 (model checks) and the engine parameters of a forecast.
import { ApiError, fromEngineError } from '../errors.js';
import { checkQuantiles, type ForecastParams, type ModelInfo, type ParsedRequest } from '../native.js';
import type { EffectivePolicy } from '../policy/effective.js';
import type { TopLevelFields } from '../schemas/request.js';

/** The public model ids: the concrete one and its floating alias. */
export const MODEL_IDS = ['hora-1.0', 'hora'] as const;
const TOO_LONG_LISTED = 10;

/** The cleaning options handed to the engine: the request's, with the resolved preset and version. */
export function cleaningOptions(top: TopLevelFields, policy: EffectivePolicy): Record<string, unknown> {
  const options = top.options ?? {};
  return {
    ...options.cleaning,
    preset: policy.preset,
    version: policy.version,
    timezone: options.timezone,
    ds_format: options.ds_format,
    gap_split_min_steps: options.gap_split_min_steps,
    clean_series: top.clean_series ?? true,
    clean_exog: top.clean_exog ?? true,
  };
}

export function forecastParams(top: TopLevelFields, policy: EffectivePolicy): ForecastParams {
  const nonnegative = top.model_options?.nonnegative ?? 'auto';
  return {
    h: top.h ?? 0,
    freq: top.freq,
    level: top.level ?? [],
    pointQuantile: top.point_quantile,
    quantilePolicy: top.quantile_policy ?? 'nearest',
    flipAverage: top.model_options?.flip_average ?? true,
    nonnegative: String(nonnegative),
    cleaning: cleaningOptions(top, policy),
  };
}

/** `model`: hora-1.0 or hora, else MODEL_NOT_AVAILABLE (also used by /clean). */
export function checkModelId(top: TopLevelFields): void {
  const model = top.model ?? 'hora-1.0';
  if (!(MODEL_IDS as readonly string[]).includes(model)) {
    throw new ApiError('MODEL_NOT_AVAILABLE', `Model "${model}" is not available.`, { model, available: [...MODEL_IDS] });
  }
}

/**
 * SERIES_TOO_LONG before cleaning: distinct timestamps per entity (rows under raw) above the
 * model's maximum context.
 */
export function checkSeriesLength(parsed: ParsedRequest, model: ModelInfo, raw: boolean): void {
  const measured = raw ? 'rows' : 'timestamps';
  const over = parsed
    .entitySizes()
    .map((s) => ({ unique_id: s.uniqueId, length: raw ? s.rows : s.timestamps }))
    .filter((s) => s.length > model.maxContext)
    .sort((a, b) => b.length - a.length);
  if (over.length === 0) return;
  throw new ApiError('SERIES_TOO_LONG', `${over.length} series exceed the model's maximum context of ${model.maxContext} points.`, {
    max_context: model.maxContext,
    measured,
    series: over.slice(0, TOO_LONG_LISTED).map((s) => ({ unique_id: s.unique_id, [measured]: s.length })),
    series_count: over.length,
  });
}

/** Step 6 of the forecast: model id, horizon, strict quantiles, pre-cleaning length. */
export function checkForecastModel(top: TopLevelFields, params: ForecastParams, parsed: ParsedRequest, model: ModelInfo, policy: EffectivePolicy): void {
  checkModelId(top);
  if (params.h > model.maxHorizon) {
    throw new ApiError('HORIZON_EXCEEDS_MODEL', `h = ${params.h} exceeds the model's maximum horizon of ${model.maxHorizon}.`, {
      model: model.name,
      h: params.h,
      max_horizon: model.maxHorizon,
    });
  }
  const quantileError = checkQuantiles(params);
  if (quantileError) throw fromEngineError(quantileError as Parameters<typeof fromEngineError>[0]);
  checkSeriesLength(parsed, model, policy.preset === 'raw');
}

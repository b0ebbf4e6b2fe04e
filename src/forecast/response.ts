// The forecast response body, spliced from the engine's pre-serialised parts: the forecast rows
// are never turned into JavaScript objects or strings.
import type { ForecastParts } from '../native.js';
import type { EffectivePolicy } from '../policy/effective.js';
import { isEmptyJson } from '../json-bytes.js';
import { spliceObject, type JsonMember } from '../serialize.js';

export interface ResponseContext {
  requestId: string;
  /** The loaded model's `hora.name` (the engine refuses a file named otherwise). */
  modelUsed: string;
  policy: EffectivePolicy;
  latencyMs: number;
}

export function forecastBody(parts: ForecastParts, ctx: ResponseContext): Promise<Buffer> {
  const usage = {
    series_count: parts.seriesCount,
    input_data_points: parts.inputDataPoints,
    forecast_data_points: parts.forecastDataPoints,
    latency_ms: Math.round(ctx.latencyMs * 100) / 100,
  };
  const members: JsonMember[] = [
    ['request_id', JSON.stringify(ctx.requestId)],
    ['model_used', JSON.stringify(ctx.modelUsed)],
    ['freq', JSON.stringify(parts.freq)],
  ];
  if (parts.pointQuantile != null) members.push(['point_quantile', JSON.stringify(parts.pointQuantile)]);
  members.push(
    ['forecast', parts.forecastJson],
    ['data_quality', parts.dataQualityJson],
    ['usage', JSON.stringify(usage)],
    ['effective_policy', JSON.stringify(ctx.policy)],
    ['model_input', parts.modelInputJson],
    ['quantile_report', parts.quantileReportJson],
  );
  // warnings[] is omitted when empty (contract: Forecast response).
  if (!isEmptyJson(parts.warningsJson, '[]')) members.push(['warnings', parts.warningsJson]);
  if (parts.cleaningReportJson != null) members.push(['cleaning_report', parts.cleaningReportJson]);
  return spliceObject(members);
}

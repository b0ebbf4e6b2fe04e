// Response bodies as typebox schemas: the OpenAPI document and the tests' response checks.
import { Type } from 'typebox';
import { REPORT_SHAPE, REQUEST_SHAPE } from '../native.js';
import { MODEL_IDS } from './request.js';
import { POLICY_SOURCES } from '../policy/effective.js';
import { PRESETS } from '../policy/table.js';
import { CleaningReport } from './cleaning-report.js';
import { ERROR_CATEGORIES } from '../errors.js';

export const ErrorEnvelope = Type.Object({
  error: Type.Object({
    code: Type.String(),
    // The contract: new categories may be added, so clients must not close the set.
    category: Type.String({ description: `${ERROR_CATEGORIES.slice(0, -1).join(', ')} or ${ERROR_CATEGORIES.at(-1)}; new values may be added.` }),
    retryable: Type.Boolean(),
    message: Type.String(),
    request_id: Type.String({ pattern: '^req_' }),
    details: Type.Optional(Type.Object({}, { additionalProperties: true })),
  }),
});

/** A response value list: open, since the contract lets responses gain values ("clients should
 * tolerate new values"), as the report's lists are in the OpenAPI document. */
const known = (values: readonly string[]) => Type.String({ description: `Known values: ${values.join(', ')}; new ones may be added.` });

const Interval = Type.Object({ lo: Type.Number(), hi: Type.Number() });

export const ForecastRow = Type.Object({
  unique_id: Type.String(),
  ds: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$' }),
  y_hat: Type.Number(),
  // Keyed by the central width of the quantiles used, in percent ("80"; fractional if the
  // model's quantiles make it so), which may differ from the level asked for.
  intervals: Type.Optional(
    Type.Record(Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' }), Interval, {
      additionalProperties: false,
      description: 'Present only with a non-empty level; keyed by the interval width actually served.',
    }),
  ),
});

/** Outside `raw` the contract lists every field, and the engine always sends all seven. */
export const DataQualityFull = Type.Object({
  status: known(REPORT_SHAPE.qualityStatuses),
  inferred_freq: Type.Union([Type.String(), Type.Null()], { description: 'null when freq was sent.' }),
  missing_ratio: Type.Number({ minimum: 0, maximum: 1 }),
  imputed_points: Type.Integer({ minimum: 0 }),
  outlier_points_suppressed: Type.Literal(0),
  timezone_normalized: Type.Boolean(),
  notes: Type.Array(Type.String()),
});

/** The contract: "Raw responses … data_quality is always {status: ok, missing_ratio: 0.0}". */
export const DataQualityRaw = Type.Object(
  { status: Type.Literal('ok'), missing_ratio: Type.Literal(0) },
  { additionalProperties: false, description: 'Under the raw preset.' },
);

export const DataQuality = Type.Union([DataQualityFull, DataQualityRaw]);

export const Usage = Type.Object({
  series_count: Type.Integer({ minimum: 0 }),
  input_data_points: Type.Integer({ minimum: 0 }),
  forecast_data_points: Type.Integer({ minimum: 0 }),
  latency_ms: Type.Number({ minimum: 0 }),
});

export const EffectivePolicy = Type.Object({
  id: Type.String(),
  preset: known(PRESETS),
  version: Type.String(),
  source: known(POLICY_SOURCES),
});

export const CovariateUse = Type.Object({
  name: Type.String(),
  role: Type.String(),
  used: Type.Boolean(),
  reason: Type.Optional(Type.String()),
});

export const ModelInput = Type.Object(
  {
    unique_id: Type.String(),
    context_points: Type.Integer({ minimum: 0 }),
    fed_points: Type.Integer({ minimum: 0 }),
    truncated: Type.Literal(0),
    missing_mode: Type.String(),
    covariates_used: Type.Boolean(),
    covariates: Type.Optional(Type.Array(CovariateUse)),
    // Only when they apply (contract: model_input[]).
    masked_tail: Type.Optional(Type.Integer({ minimum: 1, description: 'Trailing empty steps kept, masked (policy 2026-12 and later).' })),
    tail_handling: Type.Optional(known(['mask'])),
    long_gap_points: Type.Optional(Type.Integer({ minimum: 0, description: 'Only with options.cleaning.long_gap: mask.' })),
    long_gap_handling: Type.Optional(known(['mask'])),
    long_gap_reason: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

export const QuantileReport = Type.Object({
  policy: known(REQUEST_SHAPE.quantilePolicies),
  requested: Type.Array(Type.Number()),
  used: Type.Array(Type.Number()),
  substitutions: Type.Array(Type.Object({ requested: Type.Number(), used: Type.Number() })),
  point_forecast: Type.Optional(
    Type.Object({ requested: Type.Number(), used: Type.Number(), method: known(REPORT_SHAPE.pointMethods) }),
  ),
});

// Open: the contract lets new warning codes (and their fields) appear.
export const Warning = Type.Object(
  {
    code: Type.String({
      description: `Known codes: ${REPORT_SHAPE.responseWarningCodes.join(', ')} (forecast_value_capped on a forecast only: a served value past the largest double, written as that double). New codes may be added.`,
    }),
    unique_id: Type.Optional(Type.String()),
    count: Type.Optional(Type.Integer({ minimum: 1, description: 'future_rows_unused: how many future rows were not used.' })),
    stamps: Type.Optional(
      Type.Array(Type.String(), { maxItems: REQUEST_SHAPE.maxListedStamps, description: `future_rows_unused: the first ${REQUEST_SHAPE.maxListedStamps} of them.` }),
    ),
  },
  { additionalProperties: true },
);


export const ForecastResponse = Type.Object({
  request_id: Type.String({ pattern: '^req_' }),
  model_used: Type.Literal(MODEL_IDS[0]),
  freq: Type.String(),
  point_quantile: Type.Optional(Type.Number()),
  forecast: Type.Array(ForecastRow),
  data_quality: DataQuality,
  usage: Usage,
  effective_policy: EffectivePolicy,
  model_input: Type.Array(ModelInput),
  quantile_report: QuantileReport,
  warnings: Type.Optional(Type.Array(Warning, { description: 'Omitted when empty.' })),
  cleaning_report: Type.Optional(CleaningReport),
});

// The contract: /clean "returns only the cleaning report and the effective policy".
export const CleanResponse = Type.Object(
  {
    effective_policy: EffectivePolicy,
    cleaning_report: CleaningReport,
  },
  { additionalProperties: false },
);

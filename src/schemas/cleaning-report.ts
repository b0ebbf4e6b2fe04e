// cleaning_report/1 (docs/cleaning-report.md) as a typebox schema: the one description of the
// report, from which the OpenAPI document and docs/cleaning-report.schema.json are generated
// (`npm run openapi`). Objects are closed: a field the engine adds must be added here, and the
// tests that check real reports against this schema fail until it is.
import { Type } from 'typebox';
import { CLEAN_PRESETS, POLICY_VERSIONS } from '../policy/table.js';

export const CLEANING_REPORT_SCHEMA_ID = 'https://hora.example/schemas/cleaning_report-1.json';

const Policy = Type.Object(
  {
    id: Type.String(),
    preset: Type.Enum([...CLEAN_PRESETS]),
    version: Type.Enum([...POLICY_VERSIONS]),
    deprecated: Type.Boolean(),
  },
  { additionalProperties: false },
);

const FreqEntry = Type.Object(
  {
    value: Type.Union([Type.String(), Type.Null()]),
    source: Type.Enum(['request', 'inferred', 'unresolved']),
    canonical: Type.Union([Type.String(), Type.Null()]),
    inferred: Type.Union([Type.String(), Type.Null()]),
    confidence: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()]),
  },
  { additionalProperties: false },
);

const TimezoneEntry = Type.Object(
  {
    used: Type.String(),
    source: Type.Enum(['explicit_offset', 'option', 'default_utc']),
    naive_rows: Type.Integer({ minimum: 0 }),
    explicit_rows: Type.Integer({ minimum: 0 }),
    explicit_offsets: Type.Array(Type.String()),
  },
  { additionalProperties: false },
);

const SeriesIssue = Type.Object(
  {
    code: Type.Enum(['timestamp_format', 'naive_timestamps_assumed_utc', 'outliers_flagged', 'values_out_of_bounds', 'negative_values']),
    level: Type.Enum(['info', 'warning']),
    format: Type.Optional(Type.String()),
    count: Type.Optional(Type.Integer({ minimum: 0 })),
    stamps: Type.Optional(Type.Array(Type.String(), { maxItems: 20 })),
  },
  { additionalProperties: false },
);

const ReportWarning = Type.Object(
  {
    code: Type.Enum(['trailing_values_missing', 'long_gap_mask_unavailable', 'cleaning_version_deprecated', 'accept_id_unknown', 'decline_id_unknown', 'decline_not_reversible', 'future_rows_unused']),
    unique_id: Type.Optional(Type.String()),
    id: Type.Optional(Type.String()),
    count: Type.Optional(Type.Integer({ minimum: 1 })),
    stamps: Type.Optional(Type.Array(Type.String(), { maxItems: 20 })),
  },
  { additionalProperties: false },
);

const Block = Type.Object(
  {
    unique_id: Type.String(),
    code: Type.Enum(['SERIES_DISCONTINUOUS', 'TIMESTAMP_IRREGULAR', 'SERIES_EMPTY', 'SERIES_TOO_SHORT', 'SERIES_TOO_LONG', 'FREQ_INFERENCE_FAILED', 'FREQ_AMBIGUOUS', 'FREQ_UNSUPPORTED', 'AMBIGUOUS_DATE_FORMAT']),
    kind: Type.Enum(['health_critical', 'cleaning_required', 'trailing_gap_too_long', 'limit', 'frequency', 'timestamps']),
    reason: Type.Enum(['gap_near_origin_too_long', 'missing_share_too_high', 'series_discontinuous', 'timestamp_irregular', 'trailing_gap_too_long', 'no_numeric_values', 'too_short', 'too_long', 'freq_inference_failed', 'freq_ambiguous', 'too_few_stamps', 'freq_unsupported', 'ambiguous_date_format']),
    caused_by: Type.Optional(Type.Array(Type.String())),
    status: Type.Optional(Type.Enum(['proposed', 'declined'])),
    count: Type.Optional(Type.Integer({ minimum: 0 })),
    max_steps: Type.Optional(Type.Integer({ minimum: 0 })),
    missing_share: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    threshold: Type.Optional(Type.Number()),
    gap_steps: Type.Optional(Type.Integer({ minimum: 0 })),
    threshold_steps: Type.Optional(Type.Number()),
    points: Type.Optional(Type.Integer({ minimum: 0 })),
    min_context: Type.Optional(Type.Integer()),
    max_context: Type.Optional(Type.Integer()),
    measured: Type.Optional(Type.Enum(['timestamps', 'model_input'])),
    off_grid_share: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    max_share: Type.Optional(Type.Number()),
    freq: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const Decision = Type.Object(
  {
    id: Type.Enum(['ds.sort', 'ds.dedupe', 'grid.drop_off_grid', 'gap.trim_head', 'gap.trim_tail', 'grid.regrid', 'gap.split', 'gap.mask_long', 'gap.impute', 'gap.masked_tail', 'exog.impute']),
    unique_id: Type.String(),
    kind: Type.Enum(['reorder_rows', 'drop_rows', 'insert_slots', 'drop_history', 'mask_slots', 'fill_values']),
    status: Type.Enum(['applied', 'proposed', 'declined']),
    reversible: Type.Boolean(),
    count: Type.Integer({ minimum: 0 }),
    stamps: Type.Optional(Type.Array(Type.String(), { maxItems: 20 })),
    ranges: Type.Optional(Type.Array(Type.Object({ from: Type.String(), to: Type.String() }, { additionalProperties: false }), { maxItems: 20 })),
    method: Type.Optional(Type.Enum(['linear', 'seasonal', 'locf', 'structural_zero'])),
    column: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const Overall = Type.Object(
  {
    series_count: Type.Integer({ minimum: 0 }),
    input_points: Type.Integer({ minimum: 0 }),
    output_points: Type.Integer({ minimum: 0 }),
    decisions_applied: Type.Integer({ minimum: 0 }),
    decisions_proposed: Type.Integer({ minimum: 0 }),
    decisions_declined: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);

const SeriesEntry = Type.Object(
  {
    unique_id: Type.String(),
    freq: FreqEntry,
    timezone: TimezoneEntry,
    input_rows: Type.Integer({ minimum: 0 }),
    // After cleaning, counting only the decisions that applied; absent when an error stopped
    // before the grid.
    output_points: Type.Optional(Type.Integer({ minimum: 0 })),
    fed_points: Type.Optional(Type.Integer({ minimum: 0 })),
    imputed_points: Type.Optional(Type.Integer({ minimum: 0 })),
    missing_ratio: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    issues: Type.Array(SeriesIssue),
  },
  { additionalProperties: false },
);

export const CleaningReport = Type.Object(
  {
    schema_version: Type.Literal('cleaning_report/1'),
    policy: Policy,
    overall: Overall,
    series: Type.Array(SeriesEntry),
    warnings: Type.Array(ReportWarning),
    blocking: Type.Array(Block),
    decisions: Type.Array(Decision),
  },
  { additionalProperties: false, title: 'cleaning_report/1' },
);

/** docs/cleaning-report.schema.json: the same schema as a standalone JSON Schema document. */
export function cleaningReportJsonSchema(): Record<string, unknown> {
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: CLEANING_REPORT_SCHEMA_ID, ...JSON.parse(JSON.stringify(CleaningReport)) };
}

// cleaning_report/1 (docs/cleaning-report.md) as a typebox schema: the one description of the
// report, in two forms from the same fields. The exact form (closed objects, closed value lists)
// is docs/cleaning-report.schema.json: the tests check real reports against it, so a field the
// engine adds must be added here first. The tolerant form (open objects, value lists as strings)
// is what the OpenAPI document embeds: the contract lets responses gain fields and values, and
// a client validating with it must not break when they do. `npm run openapi` writes both.
import { Type, type TObject, type TProperties, type TSchema } from 'typebox';
import { REPORT_SHAPE, REQUEST_SHAPE } from '../native.js';
import { CLEAN_PRESETS, POLICY_VERSIONS } from '../policy/table.js';

/** Stamps or ranges one entry lists at most (the engine's cap). */
const LISTED_MAX = REQUEST_SHAPE.maxListedStamps;

export const CLEANING_REPORT_SCHEMA_ID = 'https://hora.example/schemas/cleaning_report-1.json';

/** The report's schema: `exact` closes its objects and value lists (see the file comment). */
function reportSchema(exact: boolean): TObject {
  const obj = <T extends TProperties>(properties: T, options: { title?: string } = {}) =>
    Type.Object(properties, { ...options, additionalProperties: !exact });
  const codes = (values: readonly string[]): TSchema =>
    exact ? Type.Enum([...values]) : Type.String({ description: `Known values: ${values.join(', ')}; new ones may be added.` });

  const Policy = obj(
    {
      id: Type.String(),
      preset: codes([...CLEAN_PRESETS]),
      version: codes([...POLICY_VERSIONS]),
      deprecated: Type.Boolean(),
    },
  );

  const FreqEntry = obj(
    {
      value: Type.Union([Type.String(), Type.Null()]),
      source: codes(REPORT_SHAPE.freqSources),
      canonical: Type.Union([Type.String(), Type.Null()]),
      inferred: Type.Union([Type.String(), Type.Null()]),
      confidence: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()]),
    },
  );

  const TimezoneEntry = obj(
    {
      used: Type.String(),
      source: codes(REPORT_SHAPE.zoneSources),
      naive_rows: Type.Integer({ minimum: 0 }),
      explicit_rows: Type.Integer({ minimum: 0 }),
      explicit_offsets: Type.Array(Type.String()),
    },
  );

  const SeriesIssue = obj(
    {
      code: codes(REPORT_SHAPE.issueCodes),
      level: codes(REPORT_SHAPE.issueLevels),
      format: Type.Optional(Type.String()),
      count: Type.Optional(Type.Integer({ minimum: 0 })),
      stamps: Type.Optional(Type.Array(Type.String(), { maxItems: LISTED_MAX })),
    },
  );

  const ReportWarning = obj(
    {
      // The report's warnings are the response's cleaning warnings: never the model's.
      code: codes(REPORT_SHAPE.warningCodes.filter((c) => c !== 'forecast_value_capped')),
      unique_id: Type.Optional(Type.String()),
      id: Type.Optional(Type.String()),
      count: Type.Optional(Type.Integer({ minimum: 1 })),
      stamps: Type.Optional(Type.Array(Type.String(), { maxItems: LISTED_MAX })),
    },
  );

  const Block = obj(
    {
      unique_id: Type.String(),
      code: codes(REPORT_SHAPE.blockingCodes),
      kind: codes(REPORT_SHAPE.blockingKinds),
      reason: codes(REPORT_SHAPE.blockingReasons),
      caused_by: Type.Optional(Type.Array(codes([...REQUEST_SHAPE.decisionIds]))),
      status: Type.Optional(codes(REPORT_SHAPE.blockingStatuses)),
      count: Type.Optional(Type.Integer({ minimum: 0 })),
      max_steps: Type.Optional(Type.Integer({ minimum: 0 })),
      missing_share: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
      threshold: Type.Optional(Type.Number()),
      gap_steps: Type.Optional(Type.Integer({ minimum: 0 })),
      threshold_steps: Type.Optional(Type.Number()),
      points: Type.Optional(Type.Integer({ minimum: 0 })),
      min_context: Type.Optional(Type.Integer()),
      max_context: Type.Optional(Type.Integer()),
      measured: Type.Optional(codes(REPORT_SHAPE.measured)),
      off_grid_share: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
      max_share: Type.Optional(Type.Number()),
      freq: Type.Optional(Type.String()),
    },
  );

  const Decision = obj(
    {
      id: codes([...REQUEST_SHAPE.decisionIds]),
      unique_id: Type.String(),
      kind: codes([...REQUEST_SHAPE.decisionKinds]),
      status: codes([...REQUEST_SHAPE.decisionStatuses]),
      reversible: Type.Boolean(),
      count: Type.Integer({ minimum: 0 }),
      stamps: Type.Optional(Type.Array(Type.String(), { maxItems: LISTED_MAX })),
      ranges: Type.Optional(Type.Array(obj({ from: Type.String(), to: Type.String() }), { maxItems: LISTED_MAX })),
      // The request's impute methods, plus the fill the structural_zero option makes.
      method: Type.Optional(codes(REPORT_SHAPE.fillMethods)),
      column: Type.Optional(Type.String()),
    },
  );

  const Overall = obj(
    {
      series_count: Type.Integer({ minimum: 0 }),
      input_points: Type.Integer({ minimum: 0 }),
      output_points: Type.Integer({ minimum: 0 }),
      decisions_applied: Type.Integer({ minimum: 0 }),
      decisions_proposed: Type.Integer({ minimum: 0 }),
      decisions_declined: Type.Integer({ minimum: 0 }),
      // As data_quality.timezone_normalized: some stamp, of the history or the future rows, was
      // converted to UTC (series[].timezone describes the history alone).
      timezone_normalized: Type.Boolean(),
    },
  );

  const SeriesEntry = obj(
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
  );

  const report = obj(
    {
      schema_version: Type.Literal('cleaning_report/1'),
      policy: Policy,
      overall: Overall,
      series: Type.Array(SeriesEntry),
      warnings: Type.Array(ReportWarning),
      blocking: Type.Array(Block),
      decisions: Type.Array(Decision),
    },
    { title: 'cleaning_report/1' },
  );
  return report;
}

/** The tolerant form, for the OpenAPI document. */
export const CleaningReport = reportSchema(false);
/** The exact form: docs/cleaning-report.schema.json, against which the tests check real reports. */
export const CleaningReportExact = reportSchema(true);

/** docs/cleaning-report.schema.json: the same schema as a standalone JSON Schema document. */
export function cleaningReportJsonSchema(): Record<string, unknown> {
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: CLEANING_REPORT_SCHEMA_ID, ...JSON.parse(JSON.stringify(CleaningReportExact)) };
}

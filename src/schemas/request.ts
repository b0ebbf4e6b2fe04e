// The request bodies of POST /v1/forecast and /v1/clean as typebox schemas: the contract's
// description (OpenAPI, tests). At run time the rows are parsed by the addon; only the small
// top-level fields are validated here (TopLevelFields).
import { Type, type Static } from 'typebox';
import { REQUEST_SHAPE } from '../native.js';
import { DEFAULT_VERSION, POLICY_VERSIONS, PRESETS } from '../policy/table.js';

const MAX_COVARIATES = REQUEST_SHAPE.maxCovariateColumns;
// Every entity's model_input repeats each column's name (docs/decisions.md).
const MAX_NAME = REQUEST_SHAPE.maxColumnNameChars;

const Scalar = Type.Union([Type.Number(), Type.String(), Type.Boolean(), Type.Null()]);

export const SeriesRow = Type.Object(
  {
    unique_id: Type.String({ description: 'Entity identifier.' }),
    ds: Type.String({ description: 'Timestamp; see the contract\'s timestamp formats.' }),
    y: Type.Union([Type.Number(), Type.Null()], { description: 'Observation; null marks a missing value.' }),
  },
  // unique_id, ds, y and at most 8 covariate columns.
  {
    additionalProperties: Scalar,
    maxProperties: 3 + MAX_COVARIATES,
    propertyNames: { maxLength: MAX_NAME },
    // The cap is on the columns of all rows together, which JSON Schema cannot count: said in words.
    description: `Other keys are past covariates: at most ${MAX_COVARIATES} columns over all series rows (one more is 422 VALIDATION_ERROR), each name at most ${MAX_NAME} characters.`,
  },
);

export const FutureCovariateRow = Type.Object(
  { unique_id: Type.String(), ds: Type.String(), y: Type.Optional(Type.Never({ description: 'Forbidden.' })) },
  // unique_id, ds and at most 8 covariate columns (`y` is forbidden, so it takes no slot).
  {
    additionalProperties: Scalar,
    maxProperties: 2 + MAX_COVARIATES,
    propertyNames: { maxLength: MAX_NAME },
    description: `Future-known covariate values; \`y\` is forbidden. Other keys are covariates: at most ${MAX_COVARIATES} columns over all future rows (one more is 422 VALIDATION_ERROR), each also a column of the series rows (else 422 COVARIATE_COLUMN_MISMATCH).`,
  },
);

/** The public model ids: the concrete one (`model_used`, the engine's `hora.name`) and its alias. */
export const MODEL_IDS: readonly [string, string] = [REQUEST_SHAPE.modelName, 'hora'];

/**
 * What an omitted field means, where the service supplies it: the schemas' `default`s (and so the
 * OpenAPI document) and the code that fills the engine parameters read these. The cleaning knobs'
 * defaults (`timezone`, `impute_method`) are the engine's; the schemas only document them.
 */
export const DEFAULTS = {
  model: MODEL_IDS[0],
  nonnegative: 'auto',
  flip_average: true,
  quantile_policy: 'nearest',
  clean_series: true,
  clean_exog: true,
} as const;

const DecisionIds = Type.Array(Type.String({ maxLength: REQUEST_SHAPE.maxDecisionIdChars }), { maxItems: REQUEST_SHAPE.maxDecisionIds });
const NonnegativeValue = (options: { default?: string } = {}) =>
  Type.Union([Type.Enum([...REQUEST_SHAPE.nonnegativeValues]), Type.Boolean()], options);

export const CleaningOptions = Type.Object(
  {
    // Unknown presets and versions are CLEANING_OPTION_UNSUPPORTED, not VALIDATION_ERROR: strings here.
    preset: Type.Optional(Type.String({ description: `${PRESETS.join(', ')}; another value is 422 CLEANING_OPTION_UNSUPPORTED.` })),
    version: Type.Optional(
      Type.String({
        description: `${POLICY_VERSIONS.map((v) => (v === DEFAULT_VERSION ? `${v} (default)` : v)).join(', ')}; another value is 422 CLEANING_OPTION_UNSUPPORTED.`,
      }),
    ),
    // No `default`: sending the value the engine uses when it is omitted is refused under `raw` and
    // 2026-10, so a client filling defaults in from the document would break working requests.
    impute_method: Type.Optional(
      Type.Enum([...REQUEST_SHAPE.imputeMethods], { description: `${REQUEST_SHAPE.imputeMethods[0]} when omitted (2026-11 and later); docs/cleaning-policy.md.` }),
    ),
    seasonal_period: Type.Optional(
      Type.Integer({ minimum: REQUEST_SHAPE.seasonalPeriodMin, maximum: REQUEST_SHAPE.seasonalPeriodMax, description: 'Steps; the default is the frequency\'s own period.' }),
    ),
    nonnegative: Type.Optional(NonnegativeValue()),
    bounds: Type.Optional(
      // The contract: "an object with numeric lower and upper". JSON Schema cannot compare two
      // fields, so the order is said in words.
      Type.Object(
        { lower: Type.Number(), upper: Type.Number() },
        {
          additionalProperties: false,
          description: 'lower must be at most upper, upper at least 0 with nonnegative true, and 0 within the bounds with structural_zero true, else 422 VALIDATION_ERROR.',
        },
      ),
    ),
    structural_zero: Type.Optional(Type.Boolean()),
    business_days: Type.Optional(Type.Boolean()),
    long_gap: Type.Optional(Type.Enum([...REQUEST_SHAPE.longGapValues])),
    accept: Type.Optional(DecisionIds),
    decline: Type.Optional(DecisionIds),
  },
  { additionalProperties: false },
);

export const RequestOptions = Type.Object(
  {
    timezone: Type.Optional(
      Type.String({ default: 'UTC', description: 'IANA zone name for naive timestamps, case-sensitive (UTC, not utc); an unknown name is 422 VALIDATION_ERROR.' }),
    ),
    ds_format: Type.Optional(Type.Enum([...REQUEST_SHAPE.dsFormats])),
    gap_split_min_steps: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'Gap length in grid steps from which only the latest segment is kept; 0 disables splitting. Any integer from 0 up: one longer than every gap never splits.',
      }),
    ),
    cleaning: Type.Optional(CleaningOptions),
    router_strategy: Type.Optional(Type.Enum(['auto', 'ensemble', 'single', 'fast'])),
  },
  // Unknown keys directly under `options` are ignored (contract: Cleaning options).
  { additionalProperties: true },
);

export const ModelOptions = Type.Object(
  {
    // As `options.cleaning.nonnegative`: the contract's `auto`, `true` or `false`, as strings or JSON booleans.
    nonnegative: Type.Optional(NonnegativeValue({ default: DEFAULTS.nonnegative })),
    flip_average: Type.Optional(Type.Boolean({ default: DEFAULTS.flip_average })),
  },
  { additionalProperties: false },
);

/** The contract's range of `h` as a field (the model's maximum may be lower). */
export const H_FIELD_MAX = 2048;
const HORIZON_RULE = `1 to ${H_FIELD_MAX} and at most the model's maximum horizon, else 422 HORIZON_EXCEEDS_MODEL.`;

/** Every top-level field except the row arrays: what the service validates after the addon's parse. */
export const TopLevelFields = Type.Object(
  {
    model: Type.Optional(Type.String({ default: DEFAULTS.model, description: `${MODEL_IDS.join(' or its alias ')}; another value is 422 MODEL_NOT_AVAILABLE.` })),
    model_options: Type.Optional(ModelOptions),
    // No maximum here: step 3 checks only the type and the lower bound. Above the field's 2048
    // or the model's maximum is HORIZON_EXCEEDS_MODEL at step 6, as the contract's field row says.
    h: Type.Optional(Type.Integer({ minimum: 1 })),
    freq: Type.Optional(Type.String()),
    level: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 99 }))),
    quantile_policy: Type.Optional(Type.Enum([...REQUEST_SHAPE.quantilePolicies], { default: DEFAULTS.quantile_policy })),
    point_quantile: Type.Optional(
      // multipleOf 0.001 would refuse 0.3 in binary floating point: the rule is said in words.
      Type.Number({ minimum: 0.01, maximum: 0.99, description: 'At most 3 decimal places, else 422 VALIDATION_ERROR.' }),
    ),
    clean_series: Type.Optional(Type.Boolean({ default: DEFAULTS.clean_series })),
    clean_exog: Type.Optional(Type.Boolean({ default: DEFAULTS.clean_exog })),
    options: Type.Optional(RequestOptions),
  },
  { additionalProperties: false },
);
export type TopLevelFields = Static<typeof TopLevelFields>;

export const ForecastRequest = Type.Object(
  {
    ...TopLevelFields.properties,
    h: Type.Integer({ minimum: 1, maximum: H_FIELD_MAX, description: HORIZON_RULE }),
    series: Type.Array(SeriesRow, { minItems: 1 }),
    future_covariates: Type.Optional(Type.Array(FutureCovariateRow)),
  },
  { additionalProperties: false },
);

export const CleanRequest = Type.Object(
  {
    ...TopLevelFields.properties,
    // No `default` here: a dry run without a model judges no model limit, which naming the
    // default model would change (SERIES_TOO_LONG, HORIZON_EXCEEDS_MODEL).
    model: Type.Optional(
      Type.String({ description: `${MODEL_IDS.join(' or its alias ')}; another value is 422 MODEL_NOT_AVAILABLE. Without it, no model's limits are judged (docs/decisions.md).` }),
    ),
    h: Type.Optional(Type.Integer({ minimum: 1, maximum: H_FIELD_MAX, description: `${HORIZON_RULE} Without \`model\`, above ${H_FIELD_MAX} is VALIDATION_ERROR.` })),
    series: Type.Array(SeriesRow, { minItems: 1 }),
    future_covariates: Type.Optional(Type.Array(FutureCovariateRow)),
  },
  { additionalProperties: false, description: 'The forecast fields are accepted too (docs/decisions.md).' },
);

// Validation order steps 3 and 4: the addon parses the rows into columns; the small top-level
// fields are checked here against the typebox schema. One 422 lists both kinds of errors.
import { Compile } from 'typebox/compile';
import { MAX_ROWS } from '../config.js';
import { ApiError, cutForMessage, fromEngineError, jsonPointerToPath } from '../errors.js';
import { boundsError, parseRequest, readStamps, REQUEST_SHAPE, type CleaningParams, type FieldError, type ParsedRequest, timeZoneError } from '../native.js';
import { H_FIELD_MAX, TopLevelFields } from '../schemas/request.js';
import type { Endpoint } from '../store/store.js';

const topLevel = Compile(TopLevelFields);

/** The message of an unknown field: the addon's, which it gives the top-level ones. */
const UNKNOWN_FIELD = REQUEST_SHAPE.unknownFieldMessage;

interface Issue {
  keyword: string;
  instancePath: string;
  message: string;
  params: Record<string, unknown>;
}

/** typebox issues -> contract field errors: one per field, unknown fields named individually. */
export function topLevelErrors(top: unknown): FieldError[] {
  if (topLevel.Check(top)) return [];
  const byField = new Map<string, string[]>();
  const alternatives = new Set<string>();
  for (const issue of topLevel.Errors(top) as unknown as Issue[]) {
    const field = jsonPointerToPath(issue.instancePath) || 'body';
    if (issue.keyword === 'anyOf') alternatives.add(field);
    // Each unknown key also yields a `false` schema error at its own path: that one names it.
    if (issue.keyword === 'additionalProperties' || issue.keyword === 'anyOf') continue;
    const message =
      issue.keyword === 'boolean'
        ? UNKNOWN_FIELD
        : issue.keyword === 'enum'
          ? `must be one of ${JSON.stringify(issue.params.allowedValues)}`
          : issue.message;
    const list = byField.get(field) ?? [];
    if (!list.includes(message)) list.push(message);
    byField.set(field, list);
  }
  // Alternatives at one path ("auto" or boolean) read as one message with "or"; constraints that
  // all apply (an integer, at most 99) with "and".
  return [...byField].map(([field, messages]) => ({ field, message: messages.join(alternatives.has(field) ? ' or ' : ' and ') }));
}

/** VALIDATION_ERROR for a body's field errors, the first in the message (worded as the engine's). */
export function invalidBody(errors: FieldError[]): ApiError {
  // The field is named in full in the details; the message cuts a path past 256 bytes, as the engine's does.
  return new ApiError('VALIDATION_ERROR', `${REQUEST_SHAPE.invalidBodyMessage}: ${cutForMessage(errors[0].field, 256)} ${errors[0].message}.`, {
    // The contract's cap on details.errors[], as the body parser applies it.
    details: { errors: errors.slice(0, REQUEST_SHAPE.maxListedErrors) },
  });
}

/** At most 3 decimal places (contract: point_quantile). */
function hasAtMostThreeDecimals(v: number): boolean {
  // The number as read equals its own 3-decimal rounding (0.123 does; 0.5000000001 does not).
  return Number(v.toFixed(3)) === v;
}

export interface ValidatedBody {
  parsed: ParsedRequest;
  top: TopLevelFields;
}

/**
 * Step 3 for the body's shape and fields (MALFORMED_JSON, VALIDATION_ERROR); `checkStamps`,
 * `checkFutureRows` and `checkRowCap` follow.
 * `forecast` is true on /v1/forecast.
 */
export async function parseAndValidate(raw: Buffer, forecast: boolean): Promise<ValidatedBody> {
  const parsed = await parseRequest(raw);
  const failure = parsed.error;
  if (failure) {
    // A field error that ends the parse (a number beyond f64) is worded as every other one.
    const listed = failure.code === 'VALIDATION_ERROR' ? (JSON.parse(failure.detailsJson.toString('utf8')) as { errors?: FieldError[] }).errors : undefined;
    throw listed?.length ? invalidBody(listed) : fromEngineError(failure);
  }

  const top = JSON.parse(parsed.topJson) as Record<string, unknown>;
  const errors: FieldError[] = [];
  const rowErrors = parsed.fieldErrors;
  // The addon reports a non-object body itself; schema-checking {} again would add noise.
  if (!rowErrors.some((e) => e.field === 'body')) errors.push(...topLevelErrors(top));
  // An `h` the addon refused (too many values) is left out of `top` but is not missing.
  if (forecast && !('h' in top) && !rowErrors.some((e) => e.field === 'body' || e.field === 'h')) errors.push({ field: 'h', message: 'is required' });
  // Above 2048 is HORIZON_EXCEEDS_MODEL wherever a model is judged (step 6); /clean without a
  // model judges none, so there it is the field's range.
  if (!forecast && !('model' in top) && typeof top.h === 'number' && top.h > H_FIELD_MAX) {
    errors.push({ field: 'h', message: `must be at most ${H_FIELD_MAX}` });
  }
  const pq = top.point_quantile;
  if (typeof pq === 'number' && !hasAtMostThreeDecimals(pq)) {
    errors.push({ field: 'point_quantile', message: 'must have at most 3 decimal places' });
  }
  // A knob value is checked here, at step 3, like the others: the engine's own check of the same
  // rules (checkCleaningOptions, step 5, same messages) would come after a preset or version refusal.
  const cleaning = (top.options as Record<string, unknown> | undefined)?.cleaning as Record<string, unknown> | undefined;
  const bounds = cleaning?.bounds as { lower?: unknown; upper?: unknown } | undefined;
  if (typeof bounds?.lower === 'number' && typeof bounds.upper === 'number') {
    const nonnegative = cleaning?.nonnegative === undefined ? undefined : String(cleaning.nonnegative);
    const boundsFault = boundsError(bounds.lower, bounds.upper, nonnegative, cleaning?.structural_zero === true);
    if (boundsFault) errors.push({ field: 'options.cleaning.bounds', message: boundsFault });
  }
  // Checked here for every preset: `raw` never reads the zone, but an unknown name is still invalid.
  const timezone = (top.options as Record<string, unknown> | undefined)?.timezone;
  const zoneFault = typeof timezone === 'string' ? timeZoneError(timezone) : null;
  if (zoneFault) errors.push({ field: 'options.timezone', message: zoneFault });
  errors.push(...rowErrors);
  if (errors.length > 0) throw invalidBody(errors);
  return { parsed, top: top as TopLevelFields };
}

/**
 * The end of step 3, after every VALIDATION_ERROR (the stamps' too), in the contract's order:
 * FUTURE_COVARIATES_INVALID (future rows with `y`, or of an entity without history), then
 * COVARIATE_COLUMN_MISMATCH.
 */
export function checkFutureRows(parsed: ParsedRequest): void {
  const error = parsed.futureError;
  if (error) throw fromEngineError(error);
}

/**
 * The rest of step 3: every `ds` (and future `ds`) read in the request's zone and day/month order,
 * so an unreadable stamp is the VALIDATION_ERROR it is before the later steps. The stamps read
 * stay with `parsed`, and the cleaning reuses them instead of reading them again.
 */
export async function checkStamps(parsed: ParsedRequest, cleaning: CleaningParams, freq: string | undefined, endpoint: Endpoint): Promise<void> {
  // A body over the row cap is refused at step 4: its stamps are checked but not kept.
  const error = await readStamps(parsed, { freq, h: 0, withModel: false, cleaning }, capped(parsed, endpoint).points <= MAX_ROWS);
  if (error) throw fromEngineError(error);
}

/** What step 4 caps: all rows on the forecast, the `series` rows (input points) on `/clean`. */
function capped(parsed: ParsedRequest, endpoint: Endpoint): { points: number; counted: string } {
  return endpoint === 'forecast' ? { points: parsed.rowCount, counted: 'rows' } : { points: parsed.seriesRowCount, counted: 'input points (rows of series)' };
}

/**
 * Step 4: on the forecast, `series` plus `future_covariates` rows at most 200,000; on `/clean`, at
 * most 200,000 input points, the `series` rows its report counts as `input_points` (future rows,
 * a Hora extension there, are not input points).
 */
export function checkRowCap(parsed: ParsedRequest, endpoint: Endpoint): void {
  const { points, counted } = capped(parsed, endpoint);
  if (points > MAX_ROWS) {
    throw new ApiError('POINTS_EXCEEDED', `The request holds ${points} ${counted}; the cap is ${MAX_ROWS}.`, {
      details: { points, cap: MAX_ROWS },
    });
  }
}

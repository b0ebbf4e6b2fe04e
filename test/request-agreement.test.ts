// The addon's one-pass validator (rows) plus the top-level checks must accept and refuse exactly
// what the typebox request schema, the contract's description, accepts and refuses, and both must
// give each body the verdict the contract gives it.
import { describe, expect, it } from 'vitest';
import { Compile } from 'typebox/compile';
import { REQUEST_SHAPE } from '../src/native.js';
import { CleaningOptions, CleanRequest, ForecastRequest, ModelOptions, RequestOptions, type TopLevelFields } from '../src/schemas/request.js';
import { cleaningOptions } from '../src/forecast/params.js';
import { checkFutureRows, parseAndValidate } from '../src/validation/body.js';
import { jsonPointerToPath, type ApiError } from '../src/errors.js';

const schema = Compile(ForecastRequest);
const row = (extra: Record<string, unknown> = {}) => ({ unique_id: 'a', ds: '2024-01-01T00:00:00Z', y: 1, ...extra });
const ok = (extra: Record<string, unknown> = {}) => ({ series: [row(), row({ ds: '2024-01-01T01:00:00Z', y: null })], h: 2, ...extra });
const covariates = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`c${i}`, i]));

/** The verdict a body must get: accepted, or refused with this code naming this field. */
type Verdict = 'valid' | { code: string; field: string };
const invalid = (field: string): Verdict => ({ code: 'VALIDATION_ERROR', field });
const futureInvalid = (field: string): Verdict => ({ code: 'FUTURE_COVARIATES_INVALID', field });

const corpus: Array<[string, unknown, Verdict]> = [
  ['minimal', ok(), 'valid'],
  ['every field', ok({ model: 'hora', model_options: { nonnegative: 'auto', flip_average: false }, freq: 'h', level: [80, 90], quantile_policy: 'strict', point_quantile: 0.7, clean_series: false, clean_exog: true, options: { timezone: 'Europe/Berlin', ds_format: 'dmy', gap_split_min_steps: 0, router_strategy: 'fast', cleaning: { preset: 'strict', version: '2026-12', accept: ['d1'], decline: [], impute_method: 'linear', seasonal_period: 24, nonnegative: true, bounds: { lower: 0, upper: 9 }, structural_zero: false, business_days: false, long_gap: 'mask' } } }), 'valid'],
  ['unknown keys under options', ok({ options: { whatever: { deep: 1 } } }), 'valid'],
  ['covariates of every scalar type', ok({ series: [row({ a: 1, b: 'x', c: true, d: null })] }), 'valid'],
  ['eight covariate columns', ok({ series: [row(covariates(8))] }), 'valid'],
  ['future covariates', ok({ series: [row({ t: 1 })], future_covariates: [{ unique_id: 'a', ds: '2024-01-02', t: 2 }] }), 'valid'],
  ['nonnegative as the string "true"', ok({ model_options: { nonnegative: 'true' } }), 'valid'],
  ['the bounds of level, point_quantile and the ids', ok({ level: [1, 99], point_quantile: 0.01, options: { cleaning: { accept: Array.from({ length: 200 }, () => 'd'.repeat(200)) } } }), 'valid'],
  ['missing series', { h: 1 }, invalid('series')],
  ['empty series', { series: [], h: 1 }, invalid('series')],
  ['series not an array', { series: { a: 1 }, h: 1 }, invalid('series')],
  ['row not an object', { series: [1], h: 1 }, invalid('series[0]')],
  ['unique_id a number', ok({ series: [row({ unique_id: 5 })] }), invalid('series[0].unique_id')],
  ['ds null', ok({ series: [row({ ds: null })] }), invalid('series[0].ds')],
  ['y a string', ok({ series: [row({ y: '1' })] }), invalid('series[0].y')],
  ['y missing', ok({ series: [{ unique_id: 'a', ds: 'x' }] }), invalid('series[0].y')],
  ['nine covariate columns', ok({ series: [row(covariates(9))] }), invalid('series[0].c8')],
  ['nine future covariate columns', ok({ series: [row(covariates(8))], future_covariates: [{ unique_id: 'a', ds: '2024-01-02', ...covariates(9) }] }), invalid('future_covariates[0].c8')],
  ['nine future covariate columns, the future-only one first', ok({ series: [row(covariates(8))], future_covariates: [{ unique_id: 'a', ds: '2024-01-02', z: 1, ...covariates(8) }] }), invalid('future_covariates[0].z')],
  ['a covariate name of 256 characters', ok({ series: [row({ ['n'.repeat(256)]: 1 })] }), 'valid'],
  ['a covariate name of 257 characters', ok({ series: [row({ ['n'.repeat(257)]: 1 })] }), invalid('series[0]')],
  ['a future covariate name of 257 characters', ok({ series: [row({ t: 1 })], future_covariates: [{ unique_id: 'a', ds: '2024-01-02', ['n'.repeat(257)]: 1 }] }), invalid('future_covariates[0]')],
  ['a nested covariate', ok({ series: [row({ c: { x: 1 } })] }), invalid('series[0].c')],
  ['an unknown top-level field', ok({ horizon: 3 }), invalid('horizon')],
  ['an unknown cleaning option', ok({ options: { cleaning: { imputer: 'x' } } }), invalid('options.cleaning.imputer')],
  ['h zero', ok({ h: 0 }), invalid('h')],
  ['h a string', ok({ h: '2' }), invalid('h')],
  ['h missing', { series: [row()] }, invalid('h')],
  ['a level of 0', ok({ level: [0] }), invalid('level[0]')],
  ['a level of 100', ok({ level: [50, 100] }), invalid('level[1]')],
  ['an unknown quantile policy', ok({ quantile_policy: 'closest' }), invalid('quantile_policy')],
  ['an unknown model option', ok({ model_options: { temperature: 1 } }), invalid('model_options.temperature')],
  ['nonnegative not auto or boolean', ok({ model_options: { nonnegative: 'sometimes' } }), invalid('model_options.nonnegative')],
  ['point_quantile of 1', ok({ point_quantile: 1 }), invalid('point_quantile')],
  ['point_quantile below 0.01', ok({ point_quantile: 0.009 }), invalid('point_quantile')],
  ['an unknown router strategy', ok({ options: { router_strategy: 'turbo' } }), invalid('options.router_strategy')],
  ['too many accept ids', ok({ options: { cleaning: { accept: Array.from({ length: 201 }, (_, i) => `d${i}`) } } }), invalid('options.cleaning.accept')],
  ['an accept id of 201 characters', ok({ options: { cleaning: { accept: ['d'.repeat(201)] } } }), invalid('options.cleaning.accept[0]')],
  ['a decline id of 201 characters', ok({ options: { cleaning: { decline: ['d', 'd'.repeat(201)] } } }), invalid('options.cleaning.decline[1]')],
  ['a future row with y', ok({ series: [row({ t: 1 })], future_covariates: [{ unique_id: 'a', ds: 'x', t: 1, y: 2 }] }), futureInvalid('future_covariates[0].y')],
  ['a future row with a numeric id', ok({ series: [row({ t: 1 })], future_covariates: [{ unique_id: 1, ds: 'x', t: 1 }] }), futureInvalid('future_covariates[0].unique_id')],
  ['a future row without ds', ok({ series: [row({ t: 1 })], future_covariates: [{ unique_id: 'a', t: 1 }] }), futureInvalid('future_covariates[0].ds')],
  ['a body that is an array', [ok()], invalid('body')],
];

/** The service's verdict: the addon's parse plus the top-level and future-row checks (not the stamps' reading). */
async function serviceVerdict(body: unknown): Promise<Verdict> {
  return parseAndValidate(Buffer.from(JSON.stringify(body)), true).then(({ parsed }) => checkFutureRows(parsed)).then(
    () => 'valid' as const,
    (e: ApiError) => {
      const details = e.details as { field?: string; errors?: Array<{ field: string }> } | undefined;
      return { code: e.code, field: details?.errors?.[0]?.field ?? details?.field ?? '' };
    },
  );
}

/** The fields the schema's errors name: the path of each error, a missing property's own path. */
function schemaFields(body: unknown): string[] {
  return [...schema.Errors(body)].map((issue) => {
    const { instancePath, params } = issue as unknown as { instancePath: string; params: { requiredProperties?: string[] } };
    const path = jsonPointerToPath(instancePath);
    const missing = params.requiredProperties?.[0];
    if (missing !== undefined) return path === '' ? missing : `${path}.${missing}`;
    return path === '' ? 'body' : path;
  });
}

// Every case states its verdict, checked on both sides: a change that made both sides accept
// (or refuse) a body differently from the contract still fails here.
describe('the Rust validator and the typebox request schema agree', () => {
  for (const [name, body, expected] of corpus) {
    it(name, async () => {
      expect(await serviceVerdict(body)).toEqual(expected);
      expect(schema.Check(body)).toBe(expected === 'valid');
      if (expected !== 'valid') {
        // The schema refuses it at the same field, or at the object holding it (a row's column count).
        const fields = schemaFields(body);
        expect(
          fields.some((f) => f === expected.field || (f !== 'body' && (expected.field.startsWith(`${f}.`) || expected.field.startsWith(`${f}[`)))),
          `${expected.field} in ${JSON.stringify(fields)}`,
        ).toBe(true);
      }
    });
  }

  // So a field the engine adds is not left out of the agreement checked above.
  it('the valid bodies carry every field of REQUEST_SHAPE at least once', () => {
    const keysAt = (path: string[]) =>
      new Set(
        corpus.flatMap(([, body, expected]) => {
          const node = path.reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], body);
          return expected === 'valid' && typeof node === 'object' && node !== null && !Array.isArray(node) ? Object.keys(node) : [];
        }),
      );
    const missing = (fields: readonly string[], path: string[]) => fields.filter((f) => !keysAt(path).has(f)).map((f) => [...path, f].join('.'));
    expect([
      ...missing(REQUEST_SHAPE.topLevelFields, []),
      ...missing(REQUEST_SHAPE.modelOptionsFields, ['model_options']),
      ...missing(REQUEST_SHAPE.optionsFields, ['options']),
      ...missing(REQUEST_SHAPE.cleaningFields, ['options', 'cleaning']),
      ...missing(REQUEST_SHAPE.boundsFields, ['options', 'cleaning', 'bounds']),
    ]).toEqual([]);
  });
});

describe('the body parser and the schema name the same fields', () => {
  it('top-level fields and the keys directly under options are one list on both sides', () => {
    const sorted = (keys: Iterable<string>) => [...keys].sort();
    expect(sorted(Object.keys(ForecastRequest.properties))).toEqual(sorted(REQUEST_SHAPE.topLevelFields));
    expect(sorted(Object.keys(CleanRequest.properties))).toEqual(sorted(REQUEST_SHAPE.topLevelFields));
    expect(sorted(Object.keys(RequestOptions.properties))).toEqual(sorted(REQUEST_SHAPE.optionsFields));
  });

  it('the closed objects hold the same keys on both sides (the parser refuses others unread)', () => {
    const sorted = (keys: Iterable<string>) => [...keys].sort();
    expect(sorted(Object.keys(CleaningOptions.properties))).toEqual(sorted(REQUEST_SHAPE.cleaningFields));
    const bounds = (CleaningOptions.properties.bounds as unknown as { anyOf?: unknown; properties?: Record<string, unknown> }).properties;
    expect(sorted(Object.keys(bounds ?? {}))).toEqual(sorted(REQUEST_SHAPE.boundsFields));
    expect(sorted(Object.keys(ModelOptions.properties))).toEqual(sorted(REQUEST_SHAPE.modelOptionsFields));
  });
});

describe('the engine receives every cleaning field the request may carry', () => {
  it('each options and options.cleaning field the parser accepts is handed over with its value', () => {
    const cleaning = {
      preset: 'strict', version: '2026-12', impute_method: 'seasonal', seasonal_period: 24, nonnegative: 'true',
      bounds: { lower: 0, upper: 9 }, structural_zero: true, business_days: true, long_gap: 'mask', accept: ['d1'], decline: ['d2'],
    };
    const options = { timezone: 'Europe/Berlin', ds_format: 'dmy' as const, gap_split_min_steps: 7, cleaning };
    const top = { clean_series: false, clean_exog: false, options } as TopLevelFields;
    const handed = cleaningOptions(top, { id: 'strict@2026-12', preset: 'strict', version: '2026-12', source: 'request' }) as unknown as Record<string, unknown>;
    const camel = (field: string) => field.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
    const sent: Record<string, unknown> = { ...cleaning, ...options, clean_series: false, clean_exog: false };
    // router_strategy is the one options field the cleaning does not read (contract: ignored).
    const fields = [...REQUEST_SHAPE.cleaningFields, ...REQUEST_SHAPE.optionsFields.filter((f) => f !== 'cleaning' && f !== 'router_strategy'), 'clean_series', 'clean_exog'];
    for (const field of fields) expect(handed[camel(field)], field).toEqual(sent[field]);
    expect(Object.keys(handed).sort()).toEqual(fields.map(camel).sort());
  });
});

describe('an unknown field', () => {
  it('in a closed object is refused by name whatever its value: a lone surrogate or 1e999 is never read', async () => {
    const body = JSON.stringify(ok({ options: { cleaning: { zz: 'PLACEHOLDER' } }, model_options: { yy: 1 } }))
      .replace('"PLACEHOLDER"', '"\\ud800"')
      .replace('"yy":1', '"yy":1e999');
    const refused = await parseAndValidate(Buffer.from(body), true).then(
      () => undefined,
      (e: ApiError) => e,
    );
    expect(refused?.code).toBe('VALIDATION_ERROR');
    expect((refused?.details as { errors: unknown[] }).errors).toEqual([
      { field: 'options.cleaning.zz', message: 'is not a field of the request' },
      { field: 'model_options.yy', message: 'is not a field of the request' },
    ]);
  });

  it('reads "is not a field of the request" from the addon (top level) and the typebox check (nested) alike', async () => {
    const refused = await parseAndValidate(Buffer.from(JSON.stringify(ok({ horizon: 3, options: { cleaning: { imputer: 'x' } } }))), true).then(
      () => undefined,
      (e: ApiError) => e,
    );
    const errors = (refused?.details as { errors?: Array<{ field: string; message: string }> } | undefined)?.errors;
    expect(errors).toEqual(
      expect.arrayContaining([
        { field: 'horizon', message: 'is not a field of the request' },
        { field: 'options.cleaning.imputer', message: 'is not a field of the request' },
      ]),
    );
  });
});

// The addon's one-pass validator (rows) plus the top-level checks must accept and refuse exactly
// what the typebox request schema, the contract's description, accepts and refuses.
import { describe, expect, it } from 'vitest';
import { Compile } from 'typebox/compile';
import { ForecastRequest } from '../src/schemas/request.js';
import { parseAndValidate } from '../src/validation/body.js';

const schema = Compile(ForecastRequest);
const row = (extra: Record<string, unknown> = {}) => ({ unique_id: 'a', ds: '2024-01-01T00:00:00Z', y: 1, ...extra });
const ok = (extra: Record<string, unknown> = {}) => ({ series: [row(), row({ ds: '2024-01-01T01:00:00Z', y: null })], h: 2, ...extra });
const covariates = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`c${i}`, i]));

const corpus: Array<[string, unknown]> = [
  ['minimal', ok()],
  ['every field', ok({ model: 'hora', model_options: { nonnegative: 'auto', flip_average: false }, freq: 'h', level: [80, 90], quantile_policy: 'strict', point_quantile: 0.7, clean_series: false, clean_exog: true, options: { timezone: 'Europe/Berlin', ds_format: 'dmy', gap_split_min_steps: 0, router_strategy: 'fast', cleaning: { preset: 'strict', version: '2026-12', accept: ['d1'], decline: [], impute_method: 'linear', seasonal_period: 24, nonnegative: true, bounds: { lower: 0, upper: 9 }, structural_zero: false, business_days: false, long_gap: 'mask' } } })],
  ['unknown keys under options', ok({ options: { whatever: { deep: 1 } } })],
  ['covariates of every scalar type', ok({ series: [row({ a: 1, b: 'x', c: true, d: null })] })],
  ['eight covariate columns', ok({ series: [row(covariates(8))] })],
  ['future covariates', ok({ series: [row({ t: 1 })], future_covariates: [{ unique_id: 'a', ds: '2024-01-02', t: 2 }] })],
  ['missing series', { h: 1 }],
  ['empty series', { series: [], h: 1 }],
  ['series not an array', { series: { a: 1 }, h: 1 }],
  ['row not an object', { series: [1], h: 1 }],
  ['unique_id a number', ok({ series: [row({ unique_id: 5 })] })],
  ['ds null', ok({ series: [row({ ds: null })] })],
  ['y a string', ok({ series: [row({ y: '1' })] })],
  ['y missing', ok({ series: [{ unique_id: 'a', ds: 'x' }] })],
  ['nine covariate columns', ok({ series: [row(covariates(9))] })],
  ['nine future covariate columns', ok({ series: [row(covariates(8))], future_covariates: [{ unique_id: 'a', ds: '2024-01-02', ...covariates(9) }] })],
  ['a nested covariate', ok({ series: [row({ c: { x: 1 } })] })],
  ['an unknown top-level field', ok({ horizon: 3 })],
  ['an unknown cleaning option', ok({ options: { cleaning: { imputer: 'x' } } })],
  ['h zero', ok({ h: 0 })],
  ['h a string', ok({ h: '2' })],
  ['h missing', { series: [row()] }],
  ['a level of 0', ok({ level: [0] })],
  ['an unknown quantile policy', ok({ quantile_policy: 'closest' })],
  ['an unknown model option', ok({ model_options: { temperature: 1 } })],
  ['nonnegative not auto or boolean', ok({ model_options: { nonnegative: 'sometimes' } })],
  ['nonnegative as the string "true"', ok({ model_options: { nonnegative: 'true' } })],
  ['point_quantile of 1', ok({ point_quantile: 1 })],
  ['an unknown router strategy', ok({ options: { router_strategy: 'turbo' } })],
  ['too many accept ids', ok({ options: { cleaning: { accept: Array.from({ length: 201 }, (_, i) => `d${i}`) } } })],
  ['a future row with y', ok({ series: [row({ t: 1 })], future_covariates: [{ unique_id: 'a', ds: 'x', t: 1, y: 2 }] })],
  ['a future row with a numeric id', ok({ series: [row({ t: 1 })], future_covariates: [{ unique_id: 1, ds: 'x', t: 1 }] })],
  ['a future row without ds', ok({ series: [row({ t: 1 })], future_covariates: [{ unique_id: 'a', t: 1 }] })],
  ['a body that is an array', [ok()]],
];

describe('the Rust validator and the typebox request schema agree', () => {
  for (const [name, body] of corpus) {
    it(name, async () => {
      const accepted = await parseAndValidate(Buffer.from(JSON.stringify(body)), true).then(
        () => true,
        () => false,
      );
      expect(accepted).toBe(schema.Check(body));
    });
  }

  it('the corpus holds both valid and invalid bodies', () => {
    const verdicts = corpus.map(([, body]) => schema.Check(body));
    expect(verdicts.filter(Boolean).length).toBeGreaterThanOrEqual(5);
    expect(verdicts.filter((v) => !v).length).toBeGreaterThanOrEqual(20);
  });
});

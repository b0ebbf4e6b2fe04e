// POST /v1/clean through fastify.inject, and the cleaning stage as the forecast uses it: presets,
// versions, knobs, the strict -> accept round trip, decline, the raw refusals, covariates and the
// data codes. Reports are checked against docs/cleaning-report.schema.json.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Ajv2020 from 'ajv/dist/2020.js';
import { bearer, makeTestApp, type TestApp } from './helpers/app.js';
import { hourlyRows, isoZ, seasonalRows, type Row } from './helpers/series.js';
import { checkCleaningOptions } from '../src/native.js';
import { DEFAULT_VERSION } from '../src/policy/table.js';

const schema = JSON.parse(readFileSync(new URL('../docs/cleaning-report.schema.json', import.meta.url), 'utf8'));
const validateReport = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false }).compile(schema);

let t: TestApp;
beforeAll(async () => {
  t = await makeTestApp({ HORA_FORECAST_RPM: '100000', HORA_CLEAN_RPM: '100000' });
});
afterAll(async () => t.close());

async function post(url: string, body: unknown, key = t.key) {
  const res = await t.app.inject({
    method: 'POST',
    url,
    headers: { ...bearer(key), 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  return { res, json: res.json() as Record<string, any> };
}
const clean = (body: unknown, key?: string) => post('/v1/clean', body, key);
const forecast = (body: unknown) => post('/v1/forecast', body);

function expectError(r: { res: { statusCode: number }; json: Record<string, any> }, status: number, code: string) {
  expect(r.json.error?.code, JSON.stringify(r.json).slice(0, 400)).toBe(code);
  expect(r.res.statusCode).toBe(status);
}

function expectValidReport(report: unknown) {
  const ok = validateReport(report);
  expect(ok, JSON.stringify(validateReport.errors?.slice(0, 3))).toBe(true);
}

const HOUR = 3_600_000;
const START = Date.UTC(2024, 0, 1);
/** Hourly seasonal rows with the slots in `gap` missing. */
const gapped = (id: string, n: number, gap: [number, number]): Row[] =>
  seasonalRows(id, n).filter((_, i) => i < gap[0] || i >= gap[1]);

describe('POST /v1/clean', () => {
  it('returns the report and the effective policy, bills nothing and leaves the daily quota alone', async () => {
    const day = new Date(t.clock.now()).toISOString().slice(0, 10);
    const before = await t.hora('usage', 'acct');
    const quotaBefore = await t.store.quotaUsed('acct', day);
    const { res, json } = await clean({ series: gapped('a', 60, [10, 13]), freq: 'h' });
    expect(res.statusCode).toBe(200);
    expect(json.effective_policy).toEqual({ id: 'default@2026-13', preset: 'default', version: '2026-13', source: 'platform' });
    expectValidReport(json.cleaning_report);
    const report = json.cleaning_report;
    expect(report.overall).toMatchObject({ series_count: 1, input_points: 57, output_points: 60 });
    expect(report.decisions.map((d: any) => [d.id, d.status, d.count])).toEqual([
      ['grid.regrid', 'applied', 3],
      ['gap.impute', 'applied', 3],
    ]);
    // "returns only the cleaning report and the effective policy": no request id, freq echo,
    // data_quality or warnings beside them (the report has its own warnings).
    expect(Object.keys(json)).toEqual(['effective_policy', 'cleaning_report']);
    expect(report.warnings).toEqual([]);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-ratelimit-policy']).toBe('clean-rpm');
    const after = await t.hora('usage', 'acct');
    expect(after.billed_points).toBe(before.billed_points);
    // Recorded as a call with zero billable points, and nothing reserved from the daily quota.
    expect((after.requests as any).clean).toBe((before.requests as any).clean + 1);
    expect(after.input_data_points).toBe(before.input_data_points);
    expect(await t.store.quotaUsed('acct', day)).toBe(quotaBefore);
  });

  it('while /clean is paused it answers 503 SERVICE_UNAVAILABLE with Retry-After; the forecast still runs', async () => {
    const body = { series: seasonalRows('a', 48), freq: 'h' };
    await t.hora('endpoint', 'pause', 'clean');
    try {
      const paused = await clean(body);
      expectError(paused, 503, 'SERVICE_UNAVAILABLE');
      expect(paused.json.error.retryable).toBe(true);
      expect(paused.res.headers['retry-after']).toBe('30');
      expect((await forecast({ ...body, h: 2 })).res.statusCode).toBe(200);
    } finally {
      await t.hora('endpoint', 'resume', 'clean');
    }
    expect((await clean(body)).res.statusCode).toBe(200);
  });

  it('infers an omitted freq and reports its confidence', async () => {
    const { json } = await clean({ series: seasonalRows('a', 48) });
    expect(json.cleaning_report.series[0].freq).toMatchObject({ source: 'inferred', inferred: 'h' });
    expect(json.cleaning_report.series[0].freq.confidence).toBeGreaterThan(0.9);
  });

  it('strict -> 422 with proposed decisions -> accept of those ids -> 200', async () => {
    const body = { series: gapped('a', 60, [10, 12]), freq: 'h', options: { cleaning: { preset: 'strict' } } };
    const refused = await clean(body);
    expectError(refused, 422, 'SERIES_DISCONTINUOUS');
    expect(refused.json.error.details.reason).toBe('series_discontinuous');
    const report = refused.json.error.details.cleaning_report;
    expectValidReport(report);
    const proposed = report.decisions.filter((d: any) => d.status === 'proposed').map((d: any) => d.id);
    expect(proposed).toEqual(['grid.regrid', 'gap.impute']);
    const accepted = await clean({ ...body, options: { cleaning: { preset: 'strict', accept: proposed } } });
    expect(accepted.res.statusCode).toBe(200);
    expect(accepted.json.effective_policy.id).toBe('strict@2026-13');
  });

  it('decline of an applied reversible decision -> 422 naming it in caused_by', async () => {
    const r = await clean({ series: gapped('a', 60, [10, 12]), freq: 'h', options: { cleaning: { decline: ['grid.regrid'] } } });
    expectError(r, 422, 'SERIES_DISCONTINUOUS');
    expect(r.json.error.details.cleaning_report.blocking[0].caused_by).toContain('grid.regrid');
  });

  it('unsorted rows with clean_series false are TIMESTAMP_IRREGULAR with the report', async () => {
    const rows = seasonalRows('a', 40);
    [rows[3], rows[4]] = [rows[4], rows[3]];
    const r = await clean({ series: rows, freq: 'h', clean_series: false });
    expectError(r, 422, 'TIMESTAMP_IRREGULAR');
    expect(r.json.error.details.reason).toBe('timestamp_irregular');
    expectValidReport(r.json.error.details.cleaning_report);
  });

  it('raw, sent or inherited from the key, is CLEANING_OPTION_UNSUPPORTED', async () => {
    expectError(await clean({ series: seasonalRows('a', 40), freq: 'h', options: { cleaning: { preset: 'raw' } } }), 422, 'CLEANING_OPTION_UNSUPPORTED');
    const k = await t.hora('key', 'create', '--account', 'acct', '--name', 'raw default', '--preset', 'raw');
    const inherited = await clean({ series: seasonalRows('a', 40), freq: 'h' }, String(k.key));
    expectError(inherited, 422, 'CLEANING_OPTION_UNSUPPORTED');
    // The caller never sent a preset: the error says where raw came from and how to override it.
    expect(inherited.json.error.details).toEqual({ field: 'options.cleaning.preset', allowed: ['default', 'strict'], source: 'key' });
    expect(inherited.json.error.message).toMatch(/key's default; send options.cleaning.preset/);
    expect((await clean({ series: seasonalRows('a', 40), freq: 'h', options: { cleaning: { preset: 'strict' } } }, String(k.key))).res.statusCode).toBe(200);
  });

  it('a refused raw preset names the level that set the preset, not the one that set the version', async () => {
    await t.hora('org', 'create', 'rawco', '--preset', 'raw');
    await t.hora('account', 'create', 'rawacct', '--org', 'rawco');
    const k = await t.hora('key', 'create', '--account', 'rawacct', '--name', 'version only', '--version', '2026-12');
    const byKey = await clean({ series: seasonalRows('a', 40), freq: 'h' }, String(k.key));
    expectError(byKey, 422, 'CLEANING_OPTION_UNSUPPORTED');
    expect(byKey.json.error.details.source).toBe('org');
    expect(byKey.json.error.message).toMatch(/org's default/);
    // A version sent alone makes effective_policy.source `request`; raw still came from the org.
    const versionSent = await clean({ series: seasonalRows('a', 40), freq: 'h', options: { cleaning: { version: '2026-13' } } }, String(k.key));
    expect(versionSent.json.error.details.source).toBe('org');
  });

  it('/v1/clean requires a tenant API key: none, an unknown one and a revoked one are 401 INVALID_API_KEY', async () => {
    const revoked = await t.hora('key', 'create', '--account', 'acct', '--name', 'clean to revoke');
    await t.hora('key', 'revoke', String(revoked.key_id));
    const body = JSON.stringify({ series: seasonalRows('a', 40), freq: 'h' });
    const headers = [{}, bearer('hora_test_notakey000000000000000000'), bearer(String(revoked.key))];
    for (const auth of headers) {
      const res = await t.app.inject({ method: 'POST', url: '/v1/clean', headers: { ...auth, 'content-type': 'application/json' }, payload: body });
      expectError({ res, json: res.json() }, 401, 'INVALID_API_KEY');
      expect(res.json().error.request_id).toBe(res.headers['x-request-id']);
    }
  });

  it('an unknown preset on /clean lists only the presets /clean runs', async () => {
    const r = await clean({ series: seasonalRows('a', 40), freq: 'h', options: { cleaning: { preset: 'fancy' } } });
    expectError(r, 422, 'CLEANING_OPTION_UNSUPPORTED');
    expect(r.json.error.details).toEqual({ field: 'options.cleaning.preset', allowed: ['default', 'strict'] });
    // The forecast's unknown preset, from the same engine check, lists raw too, in the same words.
    const f = await t.app.inject({ method: 'POST', url: '/v1/forecast', headers: { ...bearer(t.key), 'content-type': 'application/json' }, payload: { series: seasonalRows('a', 40), freq: 'h', h: 2, options: { cleaning: { preset: 'fancy' } } } });
    expect([f.statusCode, f.json().error.details.allowed, f.json().error.message]).toEqual([422, ['default', 'strict', 'raw'], r.json.error.message]);
  });

  it('with a model, the model checks apply: MODEL_NOT_AVAILABLE, SERIES_TOO_LONG and SERIES_TOO_SHORT', async () => {
    expectError(await clean({ series: seasonalRows('a', 40), freq: 'h', model: 'other' }), 422, 'MODEL_NOT_AVAILABLE');
    const long = hourlyRows('a', 4200, (i) => i);
    expectError(await clean({ series: long, freq: 'h', model: 'hora' }), 422, 'SERIES_TOO_LONG');
    const short = hourlyRows('a', 10, (i) => i);
    const refused = await clean({ series: short, freq: 'h', model: 'hora' });
    expectError(refused, 422, 'SERIES_TOO_SHORT');
    expect(refused.json.error.details).toMatchObject({ min_context: 16, points: 10 });
    // Without a model there is no model context, at either end (contract: Limits).
    expect((await clean({ series: long, freq: 'h' })).res.statusCode).toBe(200);
    const dry = await clean({ series: short, freq: 'h' });
    expect(dry.res.statusCode).toBe(200);
    expect(dry.json.cleaning_report.overall.output_points).toBe(10);
  });

  it('with a model, the forecast model checks apply to h and strict quantiles; without one, h is held to 2048', async () => {
    const body = { series: seasonalRows('a', 48), freq: 'h' };
    expectError(await clean({ ...body, model: 'hora', h: 1500 }), 422, 'HORIZON_EXCEEDS_MODEL');
    expectError(await clean({ ...body, model: 'hora', quantile_policy: 'strict', level: [95] }), 422, 'QUANTILE_UNSUPPORTED');
    expect((await clean({ ...body, model: 'hora', h: 24, quantile_policy: 'strict', level: [80] })).res.statusCode).toBe(200);
    expect((await clean({ ...body, h: 1500 })).res.statusCode).toBe(200);
    const over = await clean({ ...body, h: 2049 });
    expectError(over, 422, 'VALIDATION_ERROR');
    expect(over.json.error.details.errors[0].field).toBe('h');
  });

  it('a refusal naming 60,000 entities is still their 422 with the whole report, on forecast and /clean', async () => {
    // Each entity's report entry and blocking record cross from the addon: millions of values.
    const series = Array.from({ length: 60_000 }, (_, e) => ({ unique_id: `e${e}`, ds: '2024-01-01T00:00:00Z', y: 1 }));
    const dry = await clean({ series, freq: 'h', model: 'hora' });
    expectError(dry, 422, 'SERIES_TOO_SHORT');
    expect(dry.json.error.details.cleaning_report.series).toHaveLength(60_000);
    const refused = await forecast({ series, freq: 'h', h: 1 });
    expectError(refused, 422, 'SERIES_TOO_SHORT');
    expect(refused.json.error.details.cleaning_report.blocking).toHaveLength(60_000);
  });

  it('one stray row decades before second-level data is split off, not a grid of a billion slots', async () => {
    // Before the cut, 5,000 stamps made the pre-cleaning length check build a 1990-2024 grid of
    // seconds (8.6 GB) and took the process down.
    const seconds = (n: number) => Array.from({ length: n }, (_, i) => ({ unique_id: 'a', ds: isoZ(START + i * 1000), y: Math.sin(i / 10) }));
    const stray = { unique_id: 'a', ds: '1990-01-01T00:00:00Z', y: 5 };
    const tooLong = await forecast({ series: [stray, ...seconds(5000)], h: 1 });
    expectError(tooLong, 422, 'SERIES_TOO_LONG');
    expect(tooLong.json.error.details.series).toEqual([{ unique_id: 'a', points: 5000 }]);
    const ok = await forecast({ series: [stray, ...seconds(300)], h: 1 });
    expect(ok.res.statusCode, JSON.stringify(ok.json).slice(0, 300)).toBe(200);
    const split = ok.json.cleaning_report.decisions.filter((d: any) => d.id === 'gap.split');
    expect(split).toMatchObject([{ status: 'applied', count: 1, ranges: [{ from: '1990-01-01T00:00:00Z', to: '2023-12-31T23:59:59Z' }] }]);
    const dry = await clean({ series: [stray, ...seconds(300)] });
    expect(dry.json.cleaning_report.overall).toMatchObject({ input_points: 301, output_points: 300 });
  });

  it('options.timezone does not regrid stamps whose explicit offsets it contradicts', async () => {
    const days = Array.from({ length: 30 }, (_, i) => ({ unique_id: 'z', ds: isoZ(Date.UTC(2024, 1, 25) + i * 24 * HOUR), y: i }));
    const r = await clean({ series: days, freq: 'D', options: { timezone: 'America/New_York' } });
    expect(r.res.statusCode, JSON.stringify(r.json).slice(0, 300)).toBe(200);
    expect(r.json.cleaning_report.series[0].timezone).toMatchObject({ used: 'UTC', source: 'explicit_offset' });
    expect(r.json.cleaning_report.overall).toMatchObject({ input_points: 30, output_points: 30 });
  });

  it('an hour a fall-back repeats, sent twice in local time, keeps both observed values', async () => {
    const local = ['00:00', '01:00', '01:00', '02:00', '03:00'].map((hm, i) => ({ unique_id: 'a', ds: `2024-11-03 ${hm}`, y: 10 + i }));
    // The 20 hours before, up to 04:00Z (midnight EDT), with explicit offsets.
    const before = Array.from({ length: 20 }, (_, i) => ({ unique_id: 'a', ds: isoZ(Date.UTC(2024, 10, 3, 4) - (20 - i) * HOUR), y: i }));
    const r = await clean({ series: [...before, ...local], freq: 'h', options: { timezone: 'America/New_York' } });
    expect(r.res.statusCode, JSON.stringify(r.json).slice(0, 300)).toBe(200);
    const report = r.json.cleaning_report;
    // Nothing dropped as a duplicate, no hole at 06:00Z to fill.
    expect(report.decisions).toEqual([]);
    expect(report.overall).toMatchObject({ input_points: 25, output_points: 25 });
  });

  it('an entity with too few stamps to show a frequency follows the others instead of failing inference', async () => {
    const daily = (id: string, n: number) => Array.from({ length: n }, (_, i) => ({ unique_id: id, ds: isoZ(START + i * 24 * HOUR), y: i }));
    for (const n of [1, 2]) {
      const r = await clean({ series: [...daily('long', 20), ...daily('tiny', n)] });
      expect(r.res.statusCode, JSON.stringify(r.json).slice(0, 300)).toBe(200);
      expect(r.json.cleaning_report.series.map((s: any) => s.freq.inferred)).toEqual(['d', 'd']);
    }
  });

  it('AMBIGUOUS_DATE_FORMAT carries the cleaning report, listing the entities whose stamps were read and blocking each whose were not', async () => {
    const dates = (id: string, fmt: (d: Date) => string) =>
      Array.from({ length: 20 }, (_, i) => ({ unique_id: id, ds: fmt(new Date(START + i * 24 * HOUR)), y: i }));
    const iso = dates('iso', (d) => d.toISOString().slice(0, 10));
    // Day 1 to 12 of January only: never proves day before month or month before day.
    const slash = dates('slash', (d) => `${d.getUTCDate()}/${d.getUTCMonth() + 1}/${d.getUTCFullYear()}`).slice(0, 12);
    const slash2 = slash.map((r) => ({ ...r, unique_id: 'slash2' }));
    for (const send of [clean, forecast]) {
      const r = await send({ series: [...slash, ...iso, ...slash2], h: 1 });
      expectError(r, 422, 'AMBIGUOUS_DATE_FORMAT');
      const report = r.json.error.details.cleaning_report;
      expectValidReport(report);
      expect(report.series.map((s: any) => s.unique_id)).toEqual(['iso']);
      expect(report.overall.series_count).toBe(1);
      expect(report.blocking).toEqual(
        ['slash', 'slash2'].map((unique_id) => ({ unique_id, code: 'AMBIGUOUS_DATE_FORMAT', kind: 'timestamps', reason: 'ambiguous_date_format' })),
      );
    }
  });

  it('more than 200,000 input points is POINTS_EXCEEDED', async () => {
    const rows = Array.from({ length: 200_001 }, (_, i) => ({ unique_id: `s${i % 100}`, ds: isoZ(START + Math.floor(i / 100) * HOUR), y: 1 }));
    const r = await clean({ series: rows, freq: 'h' });
    expectError(r, 422, 'POINTS_EXCEEDED');
    expect(r.json.error.details).toEqual({ points: 200_001, cap: 200_000 });
  });

  it('the input-point cap counts series rows only: future_covariates rows are not input points', async () => {
    const series = Array.from({ length: 150_000 }, (_, i) => ({ unique_id: `s${i % 100}`, ds: isoZ(START + Math.floor(i / 100) * HOUR), y: 1, t: 1 }));
    const future = Array.from({ length: 50_001 }, (_, i) => ({ unique_id: `s${i % 100}`, ds: isoZ(START + (1500 + Math.floor(i / 100)) * HOUR), t: 2 }));
    // An unknown preset fails at step 5: reached only when the cap (step 4) let the request through.
    const r = await clean({ series, future_covariates: future, freq: 'h', options: { cleaning: { preset: 'lenient' } } });
    expectError(r, 422, 'CLEANING_OPTION_UNSUPPORTED');
  });

  it('an implied grid beyond the cap is POINTS_EXCEEDED with points, cap and the largest entity', async () => {
    // With splitting off, nothing may be cut ahead of the grid.
    const rows = [{ unique_id: 'a', ds: '2000-01-01T00:00:00Z', y: 1 }, { unique_id: 'a', ds: '2090-01-01T00:00:00Z', y: 2 }];
    const r = await clean({ series: rows, freq: 's', options: { gap_split_min_steps: 0 } });
    expectError(r, 422, 'POINTS_EXCEEDED');
    expect(r.json.error.details.points).toBeGreaterThan(r.json.error.details.cap);
    expect(r.json.error.details).toMatchObject({ unique_id: 'a', entity_points: r.json.error.details.points });
  });
});

describe('versions and knobs through HTTP', () => {
  it('a pinned deprecated version adds cleaning_version_deprecated', async () => {
    const { json } = await clean({ series: seasonalRows('a', 40), freq: 'h', options: { cleaning: { version: '2026-11' } } });
    expect(json.cleaning_report.warnings).toEqual([{ code: 'cleaning_version_deprecated' }]);
    expect(json.effective_policy).toMatchObject({ version: '2026-11', source: 'request' });
  });

  it('knobs under 2026-10 are refused with requires_version', async () => {
    const r = await clean({ series: seasonalRows('a', 40), freq: 'h', options: { cleaning: { version: '2026-10', impute_method: 'seasonal' } } });
    expectError(r, 422, 'CLEANING_OPTION_UNSUPPORTED');
    expect(r.json.error.details).toMatchObject({ field: 'options.cleaning.impute_method', requires_version: '2026-11' });
  });

  it('bounds with lower above upper is a VALIDATION_ERROR at step 3, before any preset or version refusal', async () => {
    for (const extra of [{}, { preset: 'nope' }, { version: '2026-10' }]) {
      const r = await clean({ series: seasonalRows('a', 40), freq: 'h', options: { cleaning: { bounds: { lower: 5, upper: 1 }, ...extra } } });
      expectError(r, 422, 'VALIDATION_ERROR');
      expect(r.json.error.details.errors).toEqual([{ field: 'options.cleaning.bounds', message: 'must have lower at most upper' }]);
    }
    // The engine's check of the same rule (for hosts other than this service) says the same.
    const engine = checkCleaningOptions({ preset: 'default', version: DEFAULT_VERSION, cleanSeries: true, cleanExog: true, bounds: { lower: 5, upper: 1 } }, true);
    // Bytes, not a JS string: a report of long ids can pass V8's longest string.
    expect(Buffer.isBuffer(engine!.detailsJson)).toBe(true);
    expect(JSON.parse(engine!.detailsJson.toString())).toEqual({ errors: [{ field: 'options.cleaning.bounds', message: 'must have lower at most upper' }] });
  });

  it('bounds wholly below 0 with nonnegative true is a VALIDATION_ERROR at step 3: no filled value could satisfy both', async () => {
    const message = 'must have upper at least 0 when nonnegative is true';
    const below = { lower: -10, upper: -1 };
    for (const nonnegative of [true, 'true']) {
      for (const extra of [{}, { version: '2026-10' }]) {
        const r = await clean({ series: seasonalRows('a', 40), freq: 'h', options: { cleaning: { bounds: below, nonnegative, ...extra } } });
        expectError(r, 422, 'VALIDATION_ERROR');
        expect(r.json.error.details.errors).toEqual([{ field: 'options.cleaning.bounds', message }]);
      }
    }
    // auto gives way to the bounds, false sets no floor, and an upper bound of 0 meets true.
    for (const cleaning of [{ bounds: below }, { bounds: below, nonnegative: false }, { bounds: { lower: -10, upper: 0 }, nonnegative: true }]) {
      expect((await clean({ series: seasonalRows('a', 40), freq: 'h', options: { cleaning } })).res.statusCode).toBe(200);
    }
    const engine = checkCleaningOptions({ preset: 'default', version: DEFAULT_VERSION, cleanSeries: true, cleanExog: true, nonnegative: 'true', bounds: below }, true);
    expect(JSON.parse(engine!.detailsJson.toString())).toEqual({ errors: [{ field: 'options.cleaning.bounds', message }] });
  });

  it('bounds without 0 under structural_zero is a VALIDATION_ERROR at step 3: the slots it fills are zeros', async () => {
    const message = 'must include 0 when structural_zero is true: the slots it fills are zeros';
    for (const bounds of [{ lower: 5, upper: 100 }, { lower: -10, upper: -1 }]) {
      const r = await clean({ series: seasonalRows('a', 40), freq: 'h', options: { cleaning: { bounds, structural_zero: true } } });
      expectError(r, 422, 'VALIDATION_ERROR');
      expect(r.json.error.details.errors).toEqual([{ field: 'options.cleaning.bounds', message }]);
    }
    for (const cleaning of [{ bounds: { lower: 0, upper: 100 }, structural_zero: true }, { bounds: { lower: 5, upper: 100 }, structural_zero: false }]) {
      expect((await clean({ series: seasonalRows('a', 40), freq: 'h', options: { cleaning } })).res.statusCode).toBe(200);
    }
  });

  it('nonnegative sent as a boolean cleans as its string form: true flags negative values, false does not', async () => {
    const rows = seasonalRows('a', 40).map((r, i) => (i === 7 ? { ...r, y: -3 } : r));
    const body = (nonnegative: unknown) => ({ series: rows, freq: 'h', options: { cleaning: { nonnegative } } });
    const flagged = await clean(body(true));
    expect(flagged.res.statusCode).toBe(200);
    expect(JSON.stringify(flagged.json.cleaning_report)).toContain('"negative_values"');
    expect((await clean(body('true'))).json.cleaning_report).toEqual(flagged.json.cleaning_report);
    const free = await clean(body(false));
    expect(JSON.stringify(free.json.cleaning_report)).not.toContain('"negative_values"');
    expect((await clean(body('false'))).json.cleaning_report).toEqual(free.json.cleaning_report);
    // Under 2026-10 only the no-op values are accepted; a boolean is named by its string form.
    const r = await clean({ ...body(true), options: { cleaning: { nonnegative: true, version: '2026-10' } } });
    expectError(r, 422, 'CLEANING_OPTION_UNSUPPORTED');
    expect(r.json.error.message).toContain("nonnegative 'true'");
  });

  it('structural_zero records gap.impute with its method for each missing slot, and data_quality counts them imputed', async () => {
    // The zeros themselves are not visible over HTTP: clean_versions.rs
    // (structural_zero_fills_missing_slots_with_zero) pins the values. Hours 10 and 11 are missing.
    const body = { series: gapped('a', 60, [10, 12]), freq: 'h', options: { cleaning: { structural_zero: true } } };
    const z = await clean(body);
    const impute = z.json.cleaning_report.decisions.find((d: any) => d.id === 'gap.impute');
    expect([impute.method, impute.count]).toEqual(['structural_zero', 2]);
    // docs/cleaning-policy.md: "missing_ratio and imputed_points still count the slots, which were not sent".
    const f = await forecast({ ...body, h: 2 });
    expect(f.res.statusCode, JSON.stringify(f.json).slice(0, 300)).toBe(200);
    expect(f.json.data_quality).toMatchObject({ status: 'cleaned', imputed_points: 2, missing_ratio: 2 / 60 });
  });

  it('long_gap mask keeps the masked points in the context and reports them, billing only the observed ones', async () => {
    const m = await forecast({ series: gapped('a', 200, [50, 110]), freq: 'h', h: 2, options: { cleaning: { long_gap: 'mask' } } });
    expect(m.res.statusCode).toBe(200);
    expect(m.json.model_input[0]).toMatchObject({ long_gap_points: 60, long_gap_handling: 'mask', context_points: 200 });
    expect(m.json.usage.input_data_points).toBe(140);
  });
});

describe('the cleaning stage inside the forecast', () => {
  it('a long gap keeps the latest segment and usage counts only observed points fed', async () => {
    const { res, json } = await forecast({ series: gapped('a', 200, [50, 110]), freq: 'h', h: 3 });
    expect(res.statusCode).toBe(200);
    expect(json.model_input[0]).toMatchObject({ context_points: 90, fed_points: 90, truncated: 0, missing_mode: 'filled' });
    expect(json.usage.input_data_points).toBe(90);
    expectValidReport(json.cleaning_report);
  });

  it('up to three trailing nulls are a masked tail with a warning; more is trailing_gap_too_long', async () => {
    const rows = seasonalRows('a', 48);
    rows[46].y = null;
    rows[47].y = null;
    const ok = await forecast({ series: rows, freq: 'h', h: 2 });
    expect(ok.res.statusCode).toBe(200);
    expect(ok.json.model_input[0]).toMatchObject({ masked_tail: 2, tail_handling: 'mask' });
    expect(ok.json.warnings).toContainEqual({ code: 'trailing_values_missing', unique_id: 'a' });
    expect(ok.json.forecast[0].ds).toBe(isoZ(START + 48 * HOUR));
    for (const i of [43, 44, 45]) rows[i].y = null;
    const r = await forecast({ series: rows, freq: 'h', h: 2 });
    expectError(r, 422, 'SERIES_DISCONTINUOUS');
    expect(r.json.error.details).toMatchObject({ reason: 'trailing_gap_too_long', count: 5, max_steps: 3 });
  });

  it('a missing share of 35 % is SERIES_DISCONTINUOUS health_critical', async () => {
    const rows = seasonalRows('a', 60).filter((_, i) => i < 10 || i >= 52 || i % 2 === 0);
    const r = await forecast({ series: rows, freq: 'h', h: 2 });
    expectError(r, 422, 'SERIES_DISCONTINUOUS');
    expect(r.json.error.details.reason).toBe('missing_share_too_high');
    expect(r.json.error.details.cleaning_report.blocking[0].kind).toBe('health_critical');
  });

  it('the deprecated 10 % rule counts every null of the series: inside, trimmed at either end, or a masked tail', async () => {
    const withNulls = (at: number[]) => {
      const rows = seasonalRows('a', 20);
      for (const k of at) rows[k].y = null;
      return rows;
    };
    const pinned = (rows: Row[], version: string) => forecast({ series: rows, freq: 'h', h: 2, options: { cleaning: { version } } });
    for (const [at, version] of [[[9, 10], '2026-12'], [[0, 1], '2026-11'], [[18, 19], '2026-11'], [[18, 19], '2026-12']] as const) {
      const blocked = await pinned(withNulls([...at]), version);
      expectError(blocked, 422, 'SERIES_DISCONTINUOUS');
      expect(blocked.json.error.details, `${at} ${version}`).toMatchObject({ reason: 'missing_share_too_high', missing_share: 0.1, threshold: 0.1 });
    }
    // One trailing null is 5 %: trimmed under 2026-11 (a decision), a masked tail under 2026-12.
    const trimmed = await pinned(withNulls([19]), '2026-11');
    expect(trimmed.res.statusCode).toBe(200);
    expect(trimmed.json.model_input[0]).toMatchObject({ context_points: 19, fed_points: 19 });
    expect(trimmed.json.cleaning_report.decisions.map((d: { id: string }) => d.id)).toContain('gap.trim_tail');
    // Its forecast starts at the trimmed stamp, inside what was sent: warned as a masked tail is.
    expect(trimmed.json.warnings).toContainEqual({ code: 'trailing_values_missing', unique_id: 'a' });
    const masked = await pinned(withNulls([19]), '2026-12');
    expect(masked.res.statusCode).toBe(200);
    expect(masked.json.model_input[0]).toMatchObject({ context_points: 20, fed_points: 19, masked_tail: 1 });
  });

  it('under 2026-13 a masked tail is a recent gap: three empty quarters at the end block', async () => {
    const quarters = (empty: number) =>
      Array.from({ length: 40 }, (_, k) => ({ unique_id: 'a', ds: `${2000 + Math.floor(k / 4)}-${String(1 + 3 * (k % 4)).padStart(2, '0')}-01`, y: k + empty < 40 ? 10 + (k % 4) : null }));
    const r = await forecast({ series: quarters(3), freq: 'QS', h: 2 });
    expectError(r, 422, 'SERIES_DISCONTINUOUS');
    expect(r.json.error.details.reason).toBe('gap_near_origin_too_long');
    expect(r.json.error.details.cleaning_report.blocking[0]).toMatchObject({ caused_by: ['gap.masked_tail'], gap_steps: 3 });
    const ok = await forecast({ series: quarters(2), freq: 'QS', h: 2 });
    expect(ok.res.statusCode).toBe(200);
    expect(ok.json.model_input[0]).toMatchObject({ masked_tail: 2, tail_handling: 'mask' });
  });

  it('fewer than 16 points after cleaning is SERIES_TOO_SHORT; no numeric y is SERIES_EMPTY', async () => {
    expectError(await forecast({ series: seasonalRows('a', 12), freq: 'h', h: 2 }), 422, 'SERIES_TOO_SHORT');
    expectError(await forecast({ series: hourlyRows('a', 20, () => null), freq: 'h', h: 2 }), 422, 'SERIES_EMPTY');
  });

  it('raw runs the structural check: violations with a hint, data_quality fixed, no report', async () => {
    const rows = seasonalRows('a', 40);
    rows[5].y = null;
    const bad = await forecast({ series: rows, freq: 'h', h: 2, options: { cleaning: { preset: 'raw' } } });
    expectError(bad, 422, 'RAW_INPUT_INVALID');
    expect(bad.json.error.details.violations).toEqual([{ unique_id: 'a', index: 5, reason: 'not_observed' }]);
    expect(typeof bad.json.error.details.hint).toBe('string');
    // options.gap_split_min_steps is a cleaning parameter too: raw never splits.
    const split = await forecast({ series: seasonalRows('a', 40), freq: 'h', h: 2, options: { gap_split_min_steps: 0, cleaning: { preset: 'raw' } } });
    expectError(split, 422, 'CLEANING_OPTION_UNSUPPORTED');
    expect(split.json.error.details).toMatchObject({ field: 'options.gap_split_min_steps', options: ['gap_split_min_steps'] });
    const ok = await forecast({ series: seasonalRows('a', 40), freq: 'h', h: 2, options: { cleaning: { preset: 'raw' } } });
    expect(ok.res.statusCode).toBe(200);
    expect(ok.json.data_quality).toEqual({ status: 'ok', missing_ratio: 0 });
    expect(ok.json.cleaning_report).toBeUndefined();
  });

  it('h sent to /clean makes the report cover the forecast stamps: future rows for them are not unused', async () => {
    const series = seasonalRows('a', 48).map((r, i) => ({ ...r, temp: i }));
    const future = [0, 1].map((k) => ({ unique_id: 'a', ds: isoZ(START + (48 + k) * HOUR), temp: 1 }));
    const unused = (json: Record<string, any>) => json.cleaning_report.warnings.filter((w: { code: string }) => w.code === 'future_rows_unused');
    const withH = await clean({ series, future_covariates: future, freq: 'h', h: 2 });
    expect(withH.res.statusCode).toBe(200);
    expect(unused(withH.json)).toEqual([]);
    const withoutH = await clean({ series, future_covariates: future, freq: 'h' });
    expect(withoutH.res.statusCode).toBe(200);
    expect(unused(withoutH.json)).toMatchObject([{ unique_id: 'a', count: 2 }]);
  });

  it('future stamps converted to UTC are told in the /clean report as in the forecast data_quality', async () => {
    // The same instants written at +05:00 or in UTC: only the first is normalized, and /clean,
    // whose body has no data_quality, says so in the report's overall.
    const series = seasonalRows('a', 48).map((r, i) => ({ ...r, temp: i }));
    const at = (k: number, plusFive: boolean) =>
      plusFive ? isoZ(START + (48 + k + 5) * HOUR).replace('Z', '+05:00') : isoZ(START + (48 + k) * HOUR);
    for (const plusFive of [true, false]) {
      const body = { series, freq: 'h', h: 2, future_covariates: [0, 1].map((k) => ({ unique_id: 'a', ds: at(k, plusFive), temp: 1 })) };
      const [c, f] = [await clean(body), await forecast(body)];
      expect(f.json.data_quality.timezone_normalized).toBe(plusFive);
      expect(c.json.cleaning_report.overall.timezone_normalized).toBe(plusFive);
      expect(f.json.cleaning_report.overall.timezone_normalized).toBe(plusFive);
      expect(c.json.cleaning_report.warnings).toEqual([]);
    }
  });

  it('covariates are reported per column; hora-1.0 uses none', async () => {
    const series = seasonalRows('a', 48).map((r, i) => ({ ...r, temp: i, promo: i % 2 }));
    const future = [0, 1].map((k) => ({ unique_id: 'a', ds: isoZ(START + (48 + k) * HOUR), temp: 1 }));
    const { res, json } = await forecast({ series, future_covariates: future, freq: 'h', h: 2 });
    expect(res.statusCode).toBe(200);
    expect(json.model_input[0].covariates_used).toBe(false);
    expect(json.model_input[0].covariates).toEqual([
      { name: 'temp', role: 'future', used: false, reason: 'model_unsupported' },
      { name: 'promo', role: 'past', used: false, reason: 'future_values_missing' },
    ]);
    const mismatch = await forecast({ series, future_covariates: future.map((f) => ({ ...f, other: 1 })), freq: 'h', h: 2 });
    expectError(mismatch, 422, 'COVARIATE_COLUMN_MISMATCH');
    expect(mismatch.json.error.details.future_only).toEqual(['other']);
  });
});

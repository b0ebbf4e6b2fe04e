// POST /v1/forecast through fastify.inject: the response contract, validation order steps 3 to 7
// and 10, quantile mapping and billing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Compile } from 'typebox/compile';
import { ErrorEnvelope, ForecastResponse } from '../src/schemas/response.js';
import { bearer, makeTestApp, type TestApp } from './helpers/app.js';
import { hourlyRows, isoZ, manyEntities, seasonalRows, type Row } from './helpers/series.js';

const forecastShape = Compile(ForecastResponse);
const envelopeShape = Compile(ErrorEnvelope);

let t: TestApp;
beforeAll(async () => {
  t = await makeTestApp({ HORA_FORECAST_RPM: '100000' });
});
afterAll(async () => t.close());

async function post(body: unknown, headers: Record<string, string> = {}) {
  const payload = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/forecast',
    headers: { ...bearer(t.key), 'content-type': 'application/json', ...headers },
    payload,
  });
  return { res, json: res.json() as Record<string, any> };
}

function expectError(r: { res: { statusCode: number }; json: Record<string, any> }, status: number, code: string) {
  expect(r.json.error?.code, JSON.stringify(r.json)).toBe(code);
  expect(r.res.statusCode).toBe(status);
  expect(envelopeShape.Check(r.json)).toBe(true);
}

const base = (extra: Record<string, unknown> = {}, series: Row[] = seasonalRows('a', 72)) => ({ series, h: 6, freq: 'h', ...extra });

describe('a successful forecast', () => {
  it('returns h rows per entity on UTC stamps continuing the grid, matching the response schema', async () => {
    const series = [...seasonalRows('a', 72), ...seasonalRows('b', 48, 2)];
    const { res, json } = await post({ series, h: 5, freq: 'h' }, { 'x-request-id': 'trace-forecast-0001' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(forecastShape.Check(json), JSON.stringify([...forecastShape.Errors(json)].slice(0, 3))).toBe(true);
    expect(json.request_id).toBe(res.headers['x-request-id']);
    expect(json.model_used).toBe('hora-1.0');
    expect(json.freq).toBe('h');
    const a = json.forecast.filter((r: Row) => r.unique_id === 'a');
    const b = json.forecast.filter((r: Row) => r.unique_id === 'b');
    expect(a).toHaveLength(5);
    expect(b).toHaveLength(5);
    expect(a[0].ds).toBe(isoZ(Date.UTC(2024, 0, 1) + 72 * 3_600_000));
    expect(b[4].ds).toBe(isoZ(Date.UTC(2024, 0, 1) + 52 * 3_600_000));
    expect(a[0].intervals).toBeUndefined();
    expect(json.usage).toMatchObject({ series_count: 2, input_data_points: 120, forecast_data_points: 10 });
    expect(json.effective_policy).toEqual({ id: 'default@2026-13', preset: 'default', version: '2026-13', source: 'platform' });
    expect(json.model_input.map((m: any) => [m.unique_id, m.context_points, m.fed_points, m.truncated])).toEqual([
      ['a', 72, 72, 0],
      ['b', 48, 48, 0],
    ]);
    expect(json.warnings).toBeUndefined();
    // point_quantile and quantile_report.point_forecast only when the request sent point_quantile.
    expect(json).not.toHaveProperty('point_quantile');
    expect(json.quantile_report).not.toHaveProperty('point_forecast');
    expect(json.cleaning_report.schema_version).toBe('cleaning_report/1');
    // The success header set (contract: Endpoints), with this route's own rpm policy: the first
    // request of the file, so the per-minute limit is the one closest to exhaustion.
    expect(res.headers['x-client-request-id']).toBe('trace-forecast-0001');
    expect(res.headers).toMatchObject({ 'x-ratelimit-limit': '100000', 'x-ratelimit-limit-type': 'rpm', 'x-ratelimit-policy': 'forecast-rpm' });
    const remaining = Number(res.headers['x-ratelimit-remaining']);
    expect(Number.isInteger(remaining) && remaining >= 0 && remaining < 100_000).toBe(true);
    const reset = Number(res.headers['x-ratelimit-reset']);
    expect(Number.isInteger(reset) && reset >= 1 && reset <= 60).toBe(true);
  });

  it('the alias hora resolves to hora-1.0 in the response', async () => {
    const { json } = await post(base({ model: 'hora' }));
    expect(json.model_used).toBe('hora-1.0');
  });

  it('levels 80 and 90 request 0.05, 0.1, 0.5, 0.9, 0.95 and key their intervals 80 and 90', async () => {
    const { json } = await post(base({ level: [90, 80, 80] }));
    expect(json.quantile_report).toMatchObject({ policy: 'nearest', requested: [0.05, 0.1, 0.5, 0.9, 0.95], substitutions: [] });
    for (const row of json.forecast) {
      expect(Object.keys(row.intervals).sort()).toEqual(['80', '90']);
      expect(row.intervals['90'].lo).toBeLessThanOrEqual(row.intervals['80'].lo);
      expect(row.intervals['80'].lo).toBeLessThanOrEqual(row.y_hat);
      expect(row.y_hat).toBeLessThanOrEqual(row.intervals['80'].hi);
      expect(row.intervals['80'].hi).toBeLessThanOrEqual(row.intervals['90'].hi);
    }
  });

  it('a level needing non-native quantiles is served by the nearest ones and keyed by what was delivered', async () => {
    const { json } = await post(base({ level: [95] }));
    expect(Object.keys(json.forecast[0].intervals)).toEqual(['98']);
    expect(json.quantile_report.substitutions).toEqual([
      { requested: 0.025, used: 0.01 },
      { requested: 0.975, used: 0.99 },
    ]);
    expect(json.quantile_report.used).toEqual([0.01, 0.5, 0.99]);
    // The values are those quantiles' too: level 98 asks for 0.5 -/+ 98/200 = 0.01 and 0.99 themselves.
    const native = (await post(base({ level: [98] }))).json;
    expect(native.quantile_report).toMatchObject({ requested: [0.01, 0.5, 0.99], substitutions: [] });
    expect(json.forecast.map((row: any) => row.intervals['98'])).toEqual(native.forecast.map((row: any) => row.intervals['98']));
    for (const row of json.forecast) expect(row.intervals['98'].lo).toBeLessThanOrEqual(row.intervals['98'].hi);
  });

  it('point_quantile serves that native quantile as y_hat and reports it', async () => {
    const median = (await post(base({ level: [40] }))).json;
    // Without point_quantile neither the field nor point_forecast is sent, levels or not.
    expect(median).not.toHaveProperty('point_quantile');
    expect(median.quantile_report).not.toHaveProperty('point_forecast');
    const { json } = await post(base({ level: [40], point_quantile: 0.7 }));
    expect(json.point_quantile).toBe(0.7);
    expect(json.quantile_report.point_forecast).toEqual({ requested: 0.7, used: 0.7, method: 'native' });
    // 0.7 is the upper quantile of the 40 % interval.
    json.forecast.forEach((row: any, i: number) => {
      expect(row.y_hat).toBeCloseTo(row.intervals['40'].hi, 9);
      expect(row.y_hat).toBeGreaterThanOrEqual(median.forecast[i].y_hat);
    });
  });

  it('is billed input plus forecast points, once, on the account', async () => {
    const before = (await t.hora('usage', 'acct')) as any;
    await post(base());
    const after = (await t.hora('usage', 'acct')) as any;
    expect(after.billed_points - before.billed_points).toBe(72 + 6);
  });

  it('bills the observed points fed to the model plus the forecast points, never the imputed slots', async () => {
    // Three missing hours: the model gets 60 points, 57 of them observed.
    const series = seasonalRows('a', 60).filter((_, i) => i < 10 || i >= 13);
    const day = new Date(t.clock.now()).toISOString().slice(0, 10);
    const before = (await t.hora('usage', 'acct')) as any;
    const quotaBefore = await t.store.quotaUsed('acct', day);
    const { res, json } = await post({ series, h: 6, freq: 'h' });
    expect(res.statusCode, JSON.stringify(json).slice(0, 300)).toBe(200);
    expect(json.model_input[0]).toMatchObject({ context_points: 60, fed_points: 57 });
    expect(json.usage).toMatchObject({ input_data_points: 57, forecast_data_points: 6 });
    const after = (await t.hora('usage', 'acct')) as any;
    expect([after.billed_points - before.billed_points, after.input_data_points - before.input_data_points, after.forecast_data_points - before.forecast_data_points]).toEqual([
      57 + 6,
      57,
      6,
    ]);
    // The day's quota keeps what was billed, not the 60 slots the model saw.
    expect((await t.store.quotaUsed('acct', day)) - quotaBefore).toBe(57 + 6);
  });

  it('an identical keyed retry replays the stored 200 byte for byte with its request_id, and is billed once', async () => {
    // Contract (Idempotency): "the stored response is returned with its original request_id and
    // X-Idempotent-Replayed: true; nothing runs or is billed again".
    const day = new Date(t.clock.now()).toISOString().slice(0, 10);
    const before = (await t.hora('usage', 'acct')) as any;
    const quotaBefore = await t.store.quotaUsed('acct', day);
    const first = await post(base(), { 'idempotency-key': 'forecast-replay-1' });
    expect(first.res.statusCode).toBe(200);
    expect(first.res.headers['x-idempotent-replayed']).toBeUndefined();
    const again = await post(base(), { 'idempotency-key': 'forecast-replay-1' });
    // 72 input points and 6 forecast points, billed by the first call alone.
    const after = (await t.hora('usage', 'acct')) as any;
    expect([after.billed_points - before.billed_points, after.requests.forecast - before.requests.forecast]).toEqual([72 + 6, 1]);
    expect((await t.store.quotaUsed('acct', day)) - quotaBefore).toBe(72 + 6);
    expect(again.res.statusCode).toBe(200);
    expect(again.res.headers['x-idempotent-replayed']).toBe('true');
    expect(again.res.headers['x-request-id']).toBe(first.json.request_id);
    expect(again.res.body).toBe(first.res.body);
  });

  it('data_quality of a repaired forecast: status cleaned, the share of inserted slots, the filled points, one note per applied decision', async () => {
    // Three missing hours among 60 (docs/cleaning-policy.md, data_quality): grid.regrid inserts 3
    // slots and gap.impute fills them, so status is cleaned and missing_ratio is 3 inserted slots
    // over 60 grid slots. The contract: outlier_points_suppressed is always 0, inferred_freq is null
    // when freq was sent; every stamp is Z, so no timezone was normalized.
    const series = seasonalRows('a', 60).filter((_, i) => i < 10 || i >= 13);
    const { res, json } = await post({ series, h: 6, freq: 'h' });
    expect(res.statusCode, JSON.stringify(json).slice(0, 300)).toBe(200);
    expect(json.data_quality).toEqual({
      status: 'cleaned',
      inferred_freq: null,
      missing_ratio: 3 / 60,
      imputed_points: 3,
      outlier_points_suppressed: 0,
      timezone_normalized: false,
      // A slot is inserted before it is filled: the decisions' order.
      notes: ['grid.regrid: 3 points in 1 series', 'gap.impute: 3 points in 1 series'],
    });
    // With freq omitted, the token inferred from the hourly stamps.
    const inferred = await post({ series, h: 6 });
    expect(inferred.json.data_quality.inferred_freq).toBe('h');
  });

  it('unknown keys directly under options are ignored; X-Service-Region and router_strategy are accepted and change nothing', async () => {
    const plain = await post(base());
    const { res, json } = await post(base({ options: { something_new: 1, router_strategy: 'ensemble' } }), { 'x-service-region': 'cn-mainland' });
    expect(res.statusCode).toBe(200);
    for (const part of ['forecast', 'model_input', 'effective_policy', 'cleaning_report', 'data_quality'] as const) {
      expect(json[part], part).toEqual(plain.json[part]);
    }
  });
});

describe('validation order steps 3 to 6', () => {
  it('usage.latency_ms is the server time from receipt to the assembled forecast: above 0, at most what the caller waited', async () => {
    const series = Array.from({ length: 20 }, (_, e) => seasonalRows(`e${e}`, 400, e)).flat();
    const started = performance.now();
    const { res, json } = await post({ series, h: 48, freq: 'h', level: [80] });
    const waited = performance.now() - started;
    expect(res.statusCode).toBe(200);
    expect(json.usage.latency_ms).toBeGreaterThan(0);
    expect(json.usage.latency_ms).toBeLessThanOrEqual(waited);
  });

  it('errors name fields as paths, at most 10, for the rows and the small fields together', async () => {
    const series: any[] = seasonalRows('a', 20);
    series[3].y = 'high';
    delete series[5].ds;
    const r = await post({ ...base({}, series), options: { cleaning: { imputer: 'x' } }, extra: true });
    expectError(r, 422, 'VALIDATION_ERROR');
    const fields = r.json.error.details.errors.map((e: any) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['series[3].y', 'series[5].ds', 'options.cleaning.imputer', 'extra']));
    const many = seasonalRows('a', 30).map((row) => ({ ...row, y: 'x' }));
    expect((await post(base({}, many as any))).json.error.details.errors).toHaveLength(10);
    // Ten row errors from the parser plus field errors found after it still list 10, fields first.
    const { h: _h, ...noH } = base({ point_quantile: 0.12345 }, many as any);
    const both = (await post(noH)).json.error.details.errors;
    expect(both).toHaveLength(10);
    expect(both.slice(0, 2).map((e: any) => e.field)).toEqual(['h', 'point_quantile']);
  });

  it('wrong types of small fields are VALIDATION_ERROR naming them', async () => {
    for (const [field, value] of [
      ['h', 0],
      ['h', 1.5],
      ['level', [100]],
      ['quantile_policy', 'closest'],
      ['clean_series', 'yes'],
      ['point_quantile', 0.1234],
      ['point_quantile', 0.995],
    ] as const) {
      const r = await post(base({ [field]: value }));
      expectError(r, 422, 'VALIDATION_ERROR');
      expect(r.json.error.details.errors[0].field).toMatch(new RegExp(`^${field}`));
    }
  });

  it('a field error joins constraints that all fail with "and" and alternatives with "or"', async () => {
    const messageOf = async (extra: Record<string, unknown>) => (await post(base(extra))).json.error.details.errors[0].message;
    expect(await messageOf({ level: [150.5] })).toBe('must be integer and must be <= 99');
    expect(await messageOf({ model_options: { nonnegative: 3 } })).toBe('must be one of ["auto","true","false"] or must be boolean');
  });

  it('model_options is closed and router_strategy is validated', async () => {
    expectError(await post(base({ model_options: { temperature: 1 } })), 422, 'VALIDATION_ERROR');
    expectError(await post(base({ options: { router_strategy: 'turbo' } })), 422, 'VALIDATION_ERROR');
  });

  it('bodies that are not JSON are 400 MALFORMED_JSON; duplicate keys and non-objects are VALIDATION_ERROR', async () => {
    for (const body of ['{"series": [', '{"h": NaN}', '{"y": Infinity}', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])]) {
      const r = await post(body);
      expectError(r, 400, 'MALFORMED_JSON');
      expect(r.json.error.details).toEqual({ line: expect.any(Number), column: expect.any(Number) });
    }
    // Invalid UTF-8 is placed like a syntax error: line and byte column, 1-based.
    const badByte = await post(Buffer.concat([Buffer.from('{\n  "h": 1,\n  "x'), Buffer.from([0xff]), Buffer.from('": 1}')]));
    expect(badByte.json.error.details).toEqual({ line: 3, column: 5 });
    expectError(await post('{"h": 1, "h": 2, "series": []}'), 422, 'VALIDATION_ERROR');
    expectError(await post('[1, 2]'), 422, 'VALIDATION_ERROR');
    // Depth is never a syntax error: a deep but well-formed value is refused as what it is.
    const deepOptions = await post(`{"options": ${'['.repeat(50_000)}${']'.repeat(50_000)}}`);
    expectError(deepOptions, 422, 'VALIDATION_ERROR');
    expect(deepOptions.json.error.details.errors.map((e: { field: string }) => e.field)).toContain('options');
    const deepH = await post(`{"h": ${'['.repeat(128)}${']'.repeat(128)}, "series": [{"unique_id": "a", "ds": "2024-01-01", "y": 1}]}`);
    expectError(deepH, 422, 'VALIDATION_ERROR');
    expect(deepH.json.error.details.errors).toContainEqual(expect.objectContaining({ field: 'h' }));
  });

  it('a body that starts with a UTF-8 byte order mark is read as the JSON after it; a second mark is malformed', async () => {
    const json = JSON.stringify(base());
    const plain = await post(json);
    const marked = await post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(json)]));
    expect(marked.res.statusCode).toBe(200);
    expect(marked.json.forecast).toEqual(plain.json.forecast);
    const twice = await post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf]), Buffer.from(json)]));
    expectError(twice, 400, 'MALFORMED_JSON');
  });

  it('a charset parameter does not change how the body is read: UTF-8 always (RFC 8259 defines none)', async () => {
    const withName = (name: string) => base({}, seasonalRows(name, 72));
    const utf8 = Buffer.from(JSON.stringify(withName('café')));
    const asLatin1 = await post(utf8, { 'content-type': 'application/json; charset=latin1' });
    expect(asLatin1.res.statusCode).toBe(200);
    expect(asLatin1.json.forecast[0].unique_id).toBe('café');
    // The same name in latin1 bytes (é = 0xe9) is not UTF-8, with or without the parameter.
    const latin1 = Buffer.from(JSON.stringify(withName('café')), 'latin1');
    for (const type of ['application/json; charset=latin1', 'application/json']) {
      expectError(await post(latin1, { 'content-type': type }), 400, 'MALFORMED_JSON');
    }
  });

  it('an empty body, or one that ends right after a newline, is placed at column 1, not 0', async () => {
    const empty = await post('', { 'content-length': '0' });
    expectError(empty, 400, 'MALFORMED_JSON');
    expect(empty.json.error.details).toEqual({ line: 1, column: 1 });
    expect(empty.json.error.message).toMatch(/line 1 column 1$/);
    const cut = await post('{"series": [\n');
    expectError(cut, 400, 'MALFORMED_JSON');
    expect(cut.json.error.details).toEqual({ line: 2, column: 1 });
  });

  it('a number beyond f64 names its own path and is worded as every field error', async () => {
    const r = await post('{"series": [{"unique_id": "a", "ds": "2024-01-01T00:00:00Z", "y": 1e999}], "h": 1}');
    expectError(r, 422, 'VALIDATION_ERROR');
    expect(r.json.error.details.errors[0].field).toBe('series[0].y');
    const level = await post('{"series": [{"unique_id": "a", "ds": "2024-01-01T00:00:00Z", "y": 1}], "h": 1, "level": [80, 1e999]}');
    expect(level.json.error.message).toBe('The request body is invalid: level[1] is a number beyond the range of a double.');
    expect(level.json.error.details.errors).toEqual([{ field: 'level[1]', message: 'is a number beyond the range of a double' }]);
  });

  it('a number beyond f64 in a body that is not valid JSON is still 400 MALFORMED_JSON', async () => {
    for (const body of ['{"h": 1e400, "series": [{"unique_id": "a"', '{"series": [{"unique_id": "a", "ds": "2024-01-01", "y": 1e400}]} ,', '{"h": 1e400}{}']) {
      expectError(await post(body), 400, 'MALFORMED_JSON');
    }
  });

  it('a small field holding more than 10,000 values is one VALIDATION_ERROR naming it, not one error per item', async () => {
    const row = '"series": [{"unique_id": "a", "ds": "2024-01-01T00:00:00Z", "y": 1}]';
    const level = await post(`{${row}, "h": 1, "level": [${Array(10_001).fill(0).join(',')}]}`);
    expectError(level, 422, 'VALIDATION_ERROR');
    expect(level.json.error.details.errors).toEqual([{ field: 'level', message: 'must hold at most 10000 array items and object members in all' }]);
    // An oversized h is refused as such, not also reported missing.
    const h = await post(`{${row}, "h": [${Array(10_001).fill(1).join(',')}]}`);
    expect(h.json.error.details.errors.map((e: { field: string }) => e.field)).toEqual(['h']);
  });

  it('future covariate rows with y are FUTURE_COVARIATES_INVALID; future-only columns are COVARIATE_COLUMN_MISMATCH', async () => {
    const series = seasonalRows('a', 24).map((r) => ({ ...r, temp: 1 }));
    const future = [{ unique_id: 'a', ds: isoZ(Date.UTC(2024, 0, 2)), temp: 2, y: 3 }];
    expectError(await post({ ...base({}, series), future_covariates: future }), 422, 'FUTURE_COVARIATES_INVALID');
    const r = await post({ ...base({}, series), future_covariates: [{ unique_id: 'a', ds: isoZ(Date.UTC(2024, 0, 2)), promo: 1 }] });
    expectError(r, 422, 'COVARIATE_COLUMN_MISMATCH');
    expect(r.json.error.details.future_only).toEqual(['promo']);
  });

  it('covariate columns are capped at 8 over the request: a ninth sent only on future rows is a VALIDATION_ERROR, not a mismatch', async () => {
    const eight = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`c${i}`, 1]));
    const series = seasonalRows('a', 24).map((r) => ({ ...r, ...eight }));
    const ds = isoZ(Date.UTC(2024, 0, 2));
    const r = await post({ ...base({}, series), future_covariates: [{ unique_id: 'a', ds, c0: 2 }, { unique_id: 'a', ds, c1: 2, promo: 1 }] });
    expectError(r, 422, 'VALIDATION_ERROR');
    expect(r.json.error.details.errors).toEqual([{ field: 'future_covariates[1].promo', message: 'is a covariate column past the 8 allowed in total' }]);
    // With seven on the series rows the same future column is the eighth: a mismatch again.
    const seven = series.map(({ c7: _, ...row }) => row);
    expectError(await post({ ...base({}, seven), future_covariates: [{ unique_id: 'a', ds, promo: 1 }] }), 422, 'COVARIATE_COLUMN_MISMATCH');
  });

  it('of nine columns on one future row, the error names the future-only one, wherever it stands among the keys', async () => {
    // Found by audit: the future rows' own cap fired on the ninth key in the row (c7 here), a
    // column of the history, and never named the one past the request's 8.
    const eight = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`c${i}`, 1]));
    const series = seasonalRows('a', 24).map((r) => ({ ...r, ...eight }));
    const ds = (d: number) => isoZ(Date.UTC(2024, 0, 2, d));
    const future = [0, 1].map((d) => ({ unique_id: 'a', ds: ds(d), z: 1, ...eight }));
    for (const body of [{ ...base({}, series), future_covariates: future }, { future_covariates: future, ...base({}, series) }]) {
      const r = await post(body);
      expectError(r, 422, 'VALIDATION_ERROR');
      expect(r.json.error.details.errors).toEqual([{ field: 'future_covariates[0].z', message: 'is a covariate column past the 8 allowed in total' }]);
    }
  });

  it('a covariate column name past 256 characters is a VALIDATION_ERROR naming its row, since every entity would repeat it', async () => {
    // Found by audit: one 1 MB name on one row of 3,000 entities made an answer of 3 GB.
    const long = 'x'.repeat(257);
    const series = [...seasonalRows('a', 24), ...seasonalRows('b', 24)];
    series[30] = { ...series[30]!, [long]: 1 };
    const r = await post(base({}, series));
    expectError(r, 422, 'VALIDATION_ERROR');
    expect(r.json.error.details.errors).toEqual([{ field: 'series[30]', message: `has a covariate column name of 257 characters ("${'x'.repeat(32)}..."); at most 256 are allowed` }]);
    // 256 characters, counted as characters, not bytes, is a column like any other.
    const fits = series.map((row, i) => (i === 30 ? { ...seasonalRows('b', 24)[6]!, ['é'.repeat(256)]: 1 } : row));
    const ok = await post(base({}, fits));
    expect(ok.res.statusCode).toBe(200);
    expect(ok.json.model_input[0].covariates[0].name).toBe('é'.repeat(256));
  });

  it('an error names a long caller string in full in its details only: its message cuts it after 64 bytes (256 for a field path)', async () => {
    // Found by audit: a 10 MB key, model or unique_id was echoed in the message too, a 50 MB model
    // made a 100 MB answer, and a one-row entity's 10 MB id a 50 MB SERIES_TOO_SHORT.
    const long = 'é' + 'x'.repeat(100_000);
    const bytes = Buffer.byteLength(long);
    const cases = [
      { body: { ...base(), [long]: 1 }, code: 'VALIDATION_ERROR', copies: 1, cut: 256 },
      { body: { ...base(), model: long }, code: 'MODEL_NOT_AVAILABLE', copies: 1, cut: 64 },
      { body: base({ options: { cleaning: { preset: long } } }), code: 'CLEANING_OPTION_UNSUPPORTED', copies: 0, cut: 64 },
      { body: base({ options: { cleaning: { version: long } } }), code: 'CLEANING_OPTION_UNSUPPORTED', copies: 0, cut: 64 },
      { body: base({ future_covariates: [{ unique_id: long, ds: '2024-01-05T00:00:00Z', promo: 1 }] }, seasonalRows('a', 72).map((r) => ({ ...r, promo: 0 }))), code: 'FUTURE_COVARIATES_INVALID', copies: 1, cut: 64 },
      // details.unique_id, details.series[0] and the report's series and blocking entries: the entity's own four.
      { body: base({}, [{ unique_id: long, ds: '2024-01-01T00:00:00Z', y: 1 }]), code: 'SERIES_TOO_SHORT', copies: 4, cut: 64 },
    ];
    for (const { body, code, copies, cut } of cases) {
      const r = await post(body);
      expect(r.json.error.code, code).toBe(code);
      // The first `cut` bytes (the é is two), then the length; a value is quoted, a field path not.
      const shown = long.slice(0, cut - 1);
      expect(r.json.error.message, code).toContain(cut === 64 ? `"${shown}"… (${bytes} bytes)` : `${shown}… (${bytes} bytes)`);
      expect(r.json.error.message.length, code).toBeLessThan(cut + 200);
      // Only the details' own copies: the answer is no longer than they are, plus a little.
      expect(r.res.body.length, code).toBeLessThan(copies * long.length + 5_000);
    }
  });

  it('future rows of an entity without history are FUTURE_COVARIATES_INVALID at step 3, before a model or horizon fault', async () => {
    const series = seasonalRows('a', 24).map((r) => ({ ...r, temp: 1 }));
    const future = [
      { unique_id: 'a', ds: isoZ(Date.UTC(2024, 0, 2)), temp: 2 },
      { unique_id: 'zz', ds: isoZ(Date.UTC(2024, 0, 2)), temp: 2 },
    ];
    for (const fault of [{}, { model: 'nope' }, { h: 5000 }]) {
      const r = await post({ ...base(fault, series), future_covariates: future });
      expectError(r, 422, 'FUTURE_COVARIATES_INVALID');
      expect(r.json.error.details.unique_id).toBe('zz');
    }
    // Of two such entities, the first sent is named.
    const two = [...future, { unique_id: 'yy', ds: isoZ(Date.UTC(2024, 0, 2)), temp: 2 }];
    expect((await post({ ...base({}, series), future_covariates: two })).json.error.details.unique_id).toBe('zz');
  });

  it('within step 3 an unreadable ds comes before FUTURE_COVARIATES_INVALID, which comes before COVARIATE_COLUMN_MISMATCH', async () => {
    const series = seasonalRows('a', 24).map((r) => ({ ...r, temp: 1 }));
    series[5] = { ...series[5], ds: '2024-13-06T00:00:00' };
    const orphan = { unique_id: 'zz', ds: isoZ(Date.UTC(2024, 0, 2)), temp: 2 };
    const extraColumn = { unique_id: 'a', ds: isoZ(Date.UTC(2024, 0, 2)), temp: 2, w: 1 };
    const unreadable = await post({ ...base({}, series), future_covariates: [orphan, extraColumn] });
    expectError(unreadable, 422, 'VALIDATION_ERROR');
    expect(unreadable.json.error.details.errors[0].field).toBe('series[5].ds');
    const readable = seasonalRows('a', 24).map((r) => ({ ...r, temp: 1 }));
    const both = await post({ ...base({}, readable), future_covariates: [orphan, extraColumn] });
    expectError(both, 422, 'FUTURE_COVARIATES_INVALID');
    expect(both.json.error.details.unique_id).toBe('zz');
    // Rows without a string unique_id are read in no entity: their stamps cannot clash.
    const idless = [{ unique_id: 1, ds: '2024-02-01', temp: 2 }, { unique_id: 2, ds: '2024/02/01', temp: 2 }];
    const noEntity = await post({ ...base({}, readable), future_covariates: idless });
    expectError(noEntity, 422, 'FUTURE_COVARIATES_INVALID');
    expect(noEntity.json.error.details.field).toBe('future_covariates[0].unique_id');
    // A future row that is no object has neither: FUTURE_COVARIATES_INVALID, not an empty ds.
    for (const notRow of [5, null, [1], 'a']) {
      const r = await post({ ...base({}, readable), future_covariates: [{ unique_id: 'a', ds: isoZ(Date.UTC(2024, 0, 2)), temp: 2 }, notRow] });
      expectError(r, 422, 'FUTURE_COVARIATES_INVALID');
      expect(r.json.error.details.field, JSON.stringify(notRow)).toMatch(/^future_covariates\[1\]/);
    }
    // Its own ds is not read either: the row belongs to no entity whose zone and order would read it.
    const idlessGarbage = await post({ ...base({}, readable), future_covariates: [{ unique_id: 7, ds: 'garbage', temp: 2 }] });
    expectError(idlessGarbage, 422, 'FUTURE_COVARIATES_INVALID');
    expect(idlessGarbage.json.error.details.field).toBe('future_covariates[0].unique_id');
    // A future row's own fault (a y, no ds) does not hide an unreadable stamp in another row.
    for (const faulty of [{ ...extraColumn, w: undefined, y: 1 }, { unique_id: 'a', temp: 2 }]) {
      const r = await post({ ...base({}, readable), future_covariates: [faulty, { unique_id: 'a', ds: 'garbage', temp: 2 }] });
      expectError(r, 422, 'VALIDATION_ERROR');
      expect(r.json.error.details.errors[0].field).toBe('future_covariates[1].ds');
    }
    // An unreadable stamp is read as one even in the rows of an entity without history.
    const unreadableOrphan = await post({ ...base({}, readable), future_covariates: [{ ...orphan, ds: 'not a date' }] });
    expectError(unreadableOrphan, 422, 'VALIDATION_ERROR');
    expect(unreadableOrphan.json.error.details.errors[0].field).toBe('future_covariates[0].ds');
  });

  it('a future row whose ds is missing or not a string is FUTURE_COVARIATES_INVALID naming it, under every preset', async () => {
    const series = seasonalRows('a', 24).map((r) => ({ ...r, temp: 1 }));
    const good = { unique_id: 'a', ds: isoZ(Date.UTC(2024, 0, 2)), temp: 2 };
    for (const bad of [{ unique_id: 'a', temp: 2 }, { unique_id: 'a', ds: 5, temp: 2 }, { unique_id: 'a', ds: null, temp: 2 }]) {
      for (const extra of [{}, { options: { cleaning: { preset: 'raw' } } }]) {
        const r = await post({ ...base(extra, series), future_covariates: [good, bad] });
        expectError(r, 422, 'FUTURE_COVARIATES_INVALID');
        expect(r.json.error.details.field).toBe('future_covariates[1].ds');
      }
    }
  });

  it('an unreadable future ds is VALIDATION_ERROR at step 3 beside an entity of unproven day/month order, and under raw', async () => {
    const b = Array.from({ length: 30 }, (_, i) => ({ unique_id: 'b', ds: isoZ(Date.UTC(2024, 0, 1 + i)), y: 10 + (i % 7), x: 1 }));
    // 1/1/2024 ... 10/1/2024 read either way: the order is unproven.
    const a = Array.from({ length: 10 }, (_, i) => ({ unique_id: 'a', ds: `${i + 1}/1/2024`, y: i, x: 1 }));
    const future = [{ unique_id: 'b', ds: 'nope', x: 1 }];
    for (const [series, extra] of [
      [[...a, ...b], {}],
      [b, { freq: 'D', options: { cleaning: { preset: 'raw' } } }],
    ] as const) {
      const r = await post({ ...base({ model: 'nope', ...extra }, [...series]), future_covariates: future });
      expectError(r, 422, 'VALIDATION_ERROR');
      expect(JSON.stringify(r.json.error.details)).toContain('future_covariates[0].ds');
    }
  });

  it('under raw a ds without offset, or with text after its time, is a ds_format violation and the server keeps serving', async () => {
    for (const ds of ['2024-01-01T03:00', '2024-01-01T03:00:00', '2024-01-01T03:00é']) {
      const series = Array.from({ length: 20 }, (_, i) => ({ unique_id: 'a', ds: i === 3 ? ds : isoZ(Date.UTC(2024, 0, 1, i)), y: i }));
      const r = await post({ series, h: 2, freq: 'h', options: { cleaning: { preset: 'raw' } } });
      expectError(r, 422, 'RAW_INPUT_INVALID');
      expect(r.json.error.details.violations[0]).toEqual({ unique_id: 'a', index: 3, reason: 'ds_format' });
    }
    expect((await post(base())).res.statusCode).toBe(200);
  });

  it('future rows in another format than their history are VALIDATION_ERROR; an unproven day/month order blocks each entity once, in entity order', async () => {
    const history = Array.from({ length: 30 }, (_, i) => ({ unique_id: 'a', ds: isoZ(Date.UTC(2024, 0, 1 + i)), y: 10 + (i % 7), x: 1 }));
    const future = (ids: string[]) => ids.map((unique_id) => ({ unique_id, ds: '01/02/2024', x: 2 }));
    // One format per entity: D/M/YYYY future rows after an ISO history are refused at step 3.
    const r = await post({ series: history, h: 2, freq: 'D', future_covariates: future(['a']) });
    expectError(r, 422, 'VALIDATION_ERROR');
    expect(r.json.error.details.errors).toEqual([{ field: 'future_covariates[0].ds', message: '"01/02/2024" is written in another format than series[0].ds; one timestamp format per entity' }]);
    // Histories written D/M/YYYY whose days never pass 12 prove no order: each entity is blocked
    // once, its future rows with it, in entity order whatever order the future rows list them.
    const blocked = (json: any) => json.error.details.cleaning_report.blocking.map((b: { unique_id: string }) => b.unique_id);
    const slash = (unique_id: string) => Array.from({ length: 12 }, (_, i) => ({ unique_id, ds: `${i + 1}/1/2024`, y: i, x: 1 }));
    const own = await post({ series: slash('h'), h: 2, freq: 'D', future_covariates: future(['h']) });
    expectError(own, 422, 'AMBIGUOUS_DATE_FORMAT');
    expect(own.json.error.details.cleaning_report.blocking).toEqual([{ unique_id: 'h', code: 'AMBIGUOUS_DATE_FORMAT', kind: 'timestamps', reason: 'ambiguous_date_format' }]);
    const two = await post({ series: [...slash('h'), ...slash('g')], h: 2, freq: 'D', future_covariates: future(['g', 'h']) });
    expect(blocked(two.json)).toEqual(['h', 'g']);
  });

  it('under raw future rows are held to ISO 8601 as the history is: a D/M/YYYY future ds is VALIDATION_ERROR at step 3, ds_format or not', async () => {
    const history = Array.from({ length: 30 }, (_, i) => ({ unique_id: 'a', ds: isoZ(Date.UTC(2024, 0, 1 + i)), y: 10 + (i % 7), x: 1 }));
    const body = (options: Record<string, unknown>, ds: string) => ({
      series: history,
      h: 2,
      freq: 'D',
      future_covariates: [{ unique_id: 'a', ds, x: 2 }],
      options: { cleaning: { preset: 'raw' }, ...options },
    });
    // Refused at step 3, before the model check of step 6.
    for (const options of [{}, { ds_format: 'dmy' }]) {
      const refused = await post({ ...body(options, '01/02/2024'), model: 'gpt-ts' });
      expectError(refused, 422, 'VALIDATION_ERROR');
      expect(refused.json.error.details.errors[0].field).toBe('future_covariates[0].ds');
    }
    const read = await post(body({}, '2024-01-31T00:00:00Z'));
    expect(read.res.statusCode, JSON.stringify(read.json).slice(0, 300)).toBe(200);
  });

  it('future rows are read like their history: ds_format or the proven day/month order; an unreadable one is VALIDATION_ERROR', async () => {
    // Daily history written D/M/YYYY; day 13 onwards proves the order by itself.
    const dmy = (d: number) => `${new Date(Date.UTC(2024, 0, d)).getUTCDate()}/${new Date(Date.UTC(2024, 0, d)).getUTCMonth() + 1}/2024`;
    const history = Array.from({ length: 30 }, (_, i) => ({ unique_id: 'a', ds: dmy(i + 1), y: 10 + (i % 7), temp: 20 + i }));
    // Forecast days 31/1, 1/2 and 2/2: the last two alone could be read either way.
    const future = [31, 32, 33].map((d) => ({ unique_id: 'a', ds: dmy(d), temp: 1 }));
    const reasonOf = (json: any) => json.model_input[0].covariates[0].reason;
    for (const options of [{}, { ds_format: 'dmy' }]) {
      const r = await post({ series: history, h: 3, freq: 'D', future_covariates: future, options });
      expect(r.res.statusCode, JSON.stringify(r.json).slice(0, 300)).toBe(200);
      expect(reasonOf(r.json)).toBe('model_unsupported');
    }
    const garbage = await post({ series: history, h: 3, freq: 'D', future_covariates: [...future.slice(0, 2), { unique_id: 'a', ds: 'soon', temp: 1 }] });
    expectError(garbage, 422, 'VALIDATION_ERROR');
    expect(garbage.json.error.details.errors[0].field).toBe('future_covariates[2].ds');
  });

  it('an unknown key holding / or ~ is named as sent', async () => {
    const r = await post({ ...base(), options: { cleaning: { 'a/b': 1, 'c~d': 2 } } });
    expectError(r, 422, 'VALIDATION_ERROR');
    expect(r.json.error.details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['options.cleaning.a/b', 'options.cleaning.c~d']);
  });

  it('a __proto__ key is a key like any other: refused in closed objects, ignored under options, never a prototype', async () => {
    const rows = JSON.stringify(seasonalRows('a', 48));
    const send = (extra: string) => post(`{"h":3,"freq":"h","series":${rows},${extra}}`);
    const cleaning = await send('"options":{"cleaning":{"__proto__":{"preset":"raw"}}}');
    expectError(cleaning, 422, 'VALIDATION_ERROR');
    expect(cleaning.json.error.details.errors[0].field).toBe('options.cleaning.__proto__');
    expectError(await send('"model_options":{"__proto__":{"foo":1}}'), 422, 'VALIDATION_ERROR');
    const options = await send('"options":{"__proto__":{"timezone":"Mars/Olympus","cleaning":{"version":"2026-10"}}}');
    expect(options.res.statusCode, JSON.stringify(options.json).slice(0, 300)).toBe(200);
    expect(options.json.effective_policy.id).toBe('default@2026-13');
  });

  it('point_quantile with more than 3 decimal places is refused, however small the excess', async () => {
    for (const pq of ['0.5000000001', '0.5001']) {
      const r = await post(`{"h":3,"freq":"h","point_quantile":${pq},"series":${JSON.stringify(seasonalRows('a', 48))}}`);
      expectError(r, 422, 'VALIDATION_ERROR');
      expect(r.json.error.details.errors[0].field).toBe('point_quantile');
    }
    expect((await post({ ...base(), point_quantile: 0.123 })).res.statusCode).toBe(200);
  });

  it('future covariate rows: a string or boolean is not_numeric, and the last row of a stamp wins', async () => {
    const history = hourlyRows('a', 48, (i) => 10 + (i % 24)).map((r, i) => ({ ...r, t: i }));
    const at = (k: number) => isoZ(Date.UTC(2024, 0, 1, 48 + k));
    const reason = async (future: Record<string, unknown>[]) => {
      const r = await post({ series: history, h: 2, freq: 'h', future_covariates: future });
      expect(r.res.statusCode, JSON.stringify(r.json).slice(0, 300)).toBe(200);
      return r.json.model_input[0].covariates[0].reason;
    };
    expect(await reason([{ unique_id: 'a', ds: at(0), t: 1 }, { unique_id: 'a', ds: at(1), t: 2 }])).toBe('model_unsupported');
    expect(await reason([{ unique_id: 'a', ds: at(0), t: true }, { unique_id: 'a', ds: at(1), t: 2 }])).toBe('not_numeric');
    expect(await reason([{ unique_id: 'a', ds: at(0), t: 1 }, { unique_id: 'a', ds: at(1), t: 'hot' }])).toBe('not_numeric');
    expect(await reason([{ unique_id: 'a', ds: at(0), t: 1 }, { unique_id: 'a', ds: at(1), t: 2 }, { unique_id: 'a', ds: at(1), t: null }])).toBe('future_values_missing');
  });

  it('clean_exog defaults to true: a short covariate gap is filled and recorded, with false the column is unusable for its gaps', async () => {
    const history = hourlyRows('a', 48, (i) => 10 + (i % 24)).map((r, i) => ({ ...r, t: i === 20 ? null : i }));
    const future = [0, 1].map((k) => ({ unique_id: 'a', ds: isoZ(Date.UTC(2024, 0, 1, 48 + k)), t: k }));
    const run = async (extra: Record<string, unknown>) => {
      const r = await post({ series: history, h: 2, freq: 'h', future_covariates: future, ...extra });
      expect(r.res.statusCode, JSON.stringify(r.json).slice(0, 300)).toBe(200);
      const filled = r.json.cleaning_report.decisions.filter((d: { id: string }) => d.id === 'exog.impute');
      return { reason: r.json.model_input[0].covariates[0].reason, filled: filled.length };
    };
    expect(await run({})).toEqual({ reason: 'model_unsupported', filled: 1 });
    expect(await run({ clean_exog: true })).toEqual({ reason: 'model_unsupported', filled: 1 });
    expect(await run({ clean_exog: false })).toEqual({ reason: 'gaps', filled: 0 });
  });

  it('a string in one entity makes the covariate not_numeric for that entity only, rows shuffled or not', async () => {
    const history = [...hourlyRows('a', 48, (i) => 10 + (i % 24)), ...hourlyRows('b', 48, (i) => 20 + (i % 24))].map((r, i) => ({
      ...r,
      t: r.unique_id === 'b' && i % 48 === 30 ? 'holiday' : i,
    }));
    const at = (k: number) => isoZ(Date.UTC(2024, 0, 1, 48 + k));
    const future = ['a', 'b'].map((unique_id) => ({ unique_id, ds: at(0), t: 1 }));
    for (const series of [history, [...history].reverse()]) {
      const r = await post({ series, h: 1, freq: 'h', future_covariates: future });
      expect(r.res.statusCode, JSON.stringify(r.json).slice(0, 300)).toBe(200);
      const reasons = Object.fromEntries(r.json.model_input.map((m: { unique_id: string; covariates: { reason: string }[] }) => [m.unique_id, m.covariates[0].reason]));
      expect(reasons).toEqual({ a: 'model_unsupported', b: 'not_numeric' });
    }
  });

  it('more than 200,000 rows is POINTS_EXCEEDED with points and cap', async () => {
    const rows = Array.from({ length: 200_001 }, (_, i) => `{"unique_id":"e${i % 100}","ds":"2024-01-01T00:00:00Z","y":1}`);
    const r = await post(`{"h":1,"freq":"h","series":[${rows.join(',')}]}`);
    expectError(r, 422, 'POINTS_EXCEEDED');
    expect(r.json.error.details).toEqual({ points: 200_001, cap: 200_000 });
  });

  /** 150,000 series rows (100 hourly entities with a covariate) plus `future` future_covariates rows. */
  function withFutureRows(future: number, top: Record<string, unknown>): string {
    const stamp = (k: number) => isoZ(Date.UTC(2024, 0, 1) + k * 3_600_000);
    const series = Array.from({ length: 150_000 }, (_, i) => `{"unique_id":"e${i % 100}","ds":"${stamp(Math.floor(i / 100))}","y":1,"t":1}`);
    const rows = Array.from({ length: future }, (_, i) => `{"unique_id":"e${i % 100}","ds":"${stamp(1500 + Math.floor(i / 100))}","t":2}`);
    return `${JSON.stringify(top).slice(0, -1)},"series":[${series.join(',')}],"future_covariates":[${rows.join(',')}]}`;
  }

  it('the row cap counts future_covariates rows with the series rows (step 4 before step 5)', async () => {
    // An unknown preset fails at step 5: reached only when the cap let the request through.
    const top = { h: 1, freq: 'h', options: { cleaning: { preset: 'lenient' } } };
    const over = await post(withFutureRows(50_001, top));
    expectError(over, 422, 'POINTS_EXCEEDED');
    expect(over.json.error.details).toEqual({ points: 200_001, cap: 200_000 });
    expectError(await post(withFutureRows(50_000, top)), 422, 'CLEANING_OPTION_UNSUPPORTED');
  });

  it('a field error comes before the row cap (step 3 before step 4)', async () => {
    const r = await post(withFutureRows(50_001, { h: 0, freq: 'h' }));
    expectError(r, 422, 'VALIDATION_ERROR');
    expect(r.json.error.details.errors).toEqual([expect.objectContaining({ field: 'h' })]);
    // So do step 3's stamp read and its future-row checks.
    const over = withFutureRows(50_001, { h: 1, freq: 'h' });
    const unreadable = await post(over.replace('"ds":"2024-01-01T00:00:00Z"', '"ds":"garbage"'));
    expectError(unreadable, 422, 'VALIDATION_ERROR');
    expect(unreadable.json.error.details.errors[0].field).toBe('series[0].ds');
    const futureWithY = await post(over.replace('"t":2}', '"t":2,"y":1}'));
    expectError(futureWithY, 422, 'FUTURE_COVARIATES_INVALID');
  });

  it('the bounds of level, point_quantile and the accept and decline ids are enforced', async () => {
    const fieldOf = (r: { json: Record<string, any> }) => r.json.error?.details?.errors?.[0]?.field;
    const refused: Array<[Record<string, unknown>, string]> = [
      [{ level: [0] }, 'level[0]'],
      [{ level: [50, 100] }, 'level[1]'],
      [{ point_quantile: 0.009 }, 'point_quantile'],
      [{ point_quantile: 0.991 }, 'point_quantile'],
      [{ point_quantile: 1 }, 'point_quantile'],
      [{ options: { cleaning: { accept: ['a'.repeat(201)] } } }, 'options.cleaning.accept[0]'],
      [{ options: { cleaning: { decline: ['d', 'd'.repeat(201)] } } }, 'options.cleaning.decline[1]'],
      [{ options: { cleaning: { accept: Array.from({ length: 201 }, (_, i) => `id${i}`) } } }, 'options.cleaning.accept'],
      [{ options: { cleaning: { decline: Array.from({ length: 201 }, (_, i) => `id${i}`) } } }, 'options.cleaning.decline'],
    ];
    for (const [extra, field] of refused) {
      const r = await post(base(extra));
      expectError(r, 422, 'VALIDATION_ERROR');
      expect(fieldOf(r), JSON.stringify(extra).slice(0, 80)).toBe(field);
    }
    // The bounds themselves are allowed.
    const allowed: Record<string, unknown>[] = [
      { level: [1, 99] },
      { point_quantile: 0.01 },
      { point_quantile: 0.99 },
      { options: { cleaning: { accept: Array.from({ length: 200 }, (_, i) => `${i}`.padEnd(200, 'x')) } } },
      { options: { cleaning: { decline: Array.from({ length: 200 }, (_, i) => `${i}`.padEnd(200, 'x')) } } },
    ];
    for (const extra of allowed) {
      const r = await post(base(extra));
      expect(r.res.statusCode, JSON.stringify(r.json).slice(0, 300)).toBe(200);
    }
  });

  it('cleaning preset and version are checked before the model: CLEANING_OPTION_UNSUPPORTED, raw needs freq', async () => {
    expectError(await post(base({ model: 'nope', options: { cleaning: { preset: 'lenient' } } })), 422, 'CLEANING_OPTION_UNSUPPORTED');
    const old = await post(base({ options: { cleaning: { version: '2026-10', impute_method: 'linear' } } }));
    expectError(old, 422, 'CLEANING_OPTION_UNSUPPORTED');
    expect(old.json.error.details.requires_version).toBe('2026-11');
    const raw = await post({ series: seasonalRows('a', 24), h: 2, options: { cleaning: { preset: 'raw' } } });
    expectError(raw, 422, 'VALIDATION_ERROR');
    expect(raw.json.error.details.errors[0].field).toBe('freq');
    // Worded as the engine words the same rule (clean_raw.rs pins it there), as any invalid body.
    expect(raw.json.error.message).toBe('The request body is invalid: freq is required with the raw preset.');
    // Step 5 comes before the model checks (step 6): an unknown model or a horizon too long is not reported.
    for (const extra of [{ model: 'nope' }, { h: 2000 }]) {
      const first = await post({ series: seasonalRows('a', 24), h: 2, ...extra, options: { cleaning: { preset: 'raw' } } });
      expectError(first, 422, 'VALIDATION_ERROR');
      expect(first.json.error.details.errors).toEqual([{ field: 'freq', message: 'is required with the raw preset' }]);
    }
  });

  it('model checks: MODEL_NOT_AVAILABLE, HORIZON_EXCEEDS_MODEL, strict QUANTILE_UNSUPPORTED', async () => {
    const m = await post(base({ model: 'gpt-ts' }));
    expectError(m, 422, 'MODEL_NOT_AVAILABLE');
    expect(m.json.error.details).toEqual({ model: 'gpt-ts', available: ['hora-1.0', 'hora'] });
    // The model is judged before its horizon: an unknown model with a horizon too long names the model.
    expectError(await post(base({ model: 'gpt-ts', h: 1500 })), 422, 'MODEL_NOT_AVAILABLE');
    const h = await post(base({ h: 1025 }));
    expectError(h, 422, 'HORIZON_EXCEEDS_MODEL');
    expect(h.json.error.details).toEqual({ model: 'hora-1.0', h: 1025, max_horizon: 1024 });
    // Past the field's 2048 too: "1 to 2048 and at most the model's maximum horizon, else HORIZON_EXCEEDS_MODEL".
    for (const big of [2049, 1e9]) expect((await post(base({ h: big }))).json.error).toMatchObject({ code: 'HORIZON_EXCEEDS_MODEL', details: { h: big } });
    const q = await post(base({ level: [95], quantile_policy: 'strict' }));
    expectError(q, 422, 'QUANTILE_UNSUPPORTED');
    expect(q.json.error.details).toMatchObject({ model: 'hora-1.0', level: [95], unsupported: [0.025, 0.975] });
    const point = await post(base({ point_quantile: 0.15, quantile_policy: 'strict' }));
    expect(point.json.error.details).toMatchObject({ level: [], unsupported: [0.15], point_quantile: 0.15 });
    expect((await post(base({ level: [80, 90], quantile_policy: 'strict' }))).res.statusCode).toBe(200);
  });

  it('an entity with more distinct timestamps than the maximum context is SERIES_TOO_LONG before cleaning', async () => {
    const r = await post(base({}, [...hourlyRows('long', 4097, (i) => i), ...seasonalRows('ok', 30)]));
    expectError(r, 422, 'SERIES_TOO_LONG');
    expect(r.json.error.details).toMatchObject({ max_context: 4096, measured: 'timestamps', series_count: 1, series: [{ unique_id: 'long', points: 4097 }] });
  });

  it('SERIES_TOO_LONG lists at most 10 entities, longest first, and counts them all', async () => {
    // 12 entities over the maximum, sent shortest first: e0 has 4,097 stamps, e11 has 4,108.
    const series = Array.from({ length: 12 }, (_, e) => hourlyRows(`e${e}`, 4097 + e, (i) => i % 24)).flat();
    const r = await post(base({}, series));
    expectError(r, 422, 'SERIES_TOO_LONG');
    expect(r.json.error.details).toMatchObject({ max_context: 4096, measured: 'timestamps', series_count: 12 });
    expect(r.json.error.details.series).toEqual(Array.from({ length: 10 }, (_, k) => ({ unique_id: `e${11 - k}`, points: 4108 - k })));
  });

  it('the pre-cleaning SERIES_TOO_LONG comes before what cleaning would find in the same or another entity', async () => {
    const long = hourlyRows('long', 4097, (i) => i);
    const cases: [string, Row[], Record<string, unknown>][] = [
      ['a too-short entity sent first', [...hourlyRows('short', 10, (i) => i), ...long], {}],
      ['trailing nulls past the masked tail', hourlyRows('long', 4107, (i) => (i < 4097 ? i : null)), {}],
      ['duplicates that clean_series: false may not drop', [...long, long[5]], { clean_series: false }],
    ];
    for (const [name, series, extra] of cases) {
      const r = await post(base(extra, series));
      expect(r.json.error?.code, name).toBe('SERIES_TOO_LONG');
      expect(r.json.error.details, name).toMatchObject({ measured: 'timestamps', max_context: 4096, series_count: 1 });
    }
  });

  it('duplicate rows do not count toward the pre-cleaning length: 4,100 rows of 4,096 distinct timestamps pass', async () => {
    const rows = hourlyRows('dup', 4096, (i) => 10 + Math.sin(i / 4));
    const { res, json } = await post(base({}, [...rows, ...rows.slice(0, 4)]));
    expect(res.statusCode, JSON.stringify(json).slice(0, 300)).toBe(200);
    expect(json.model_input[0].fed_points).toBe(4096);
  });

  it('an entity whose long gap cleaning will cut skips the pre-cleaning length check', async () => {
    const old = hourlyRows('gappy', 1200, (i) => 10 + Math.sin(i / 4));
    const recent = hourlyRows('gappy', 3000, (i) => 10 + Math.sin(i / 4), Date.UTC(2024, 0, 1) + 1700 * 3_600_000);
    const { res, json } = await post(base({}, [...old, ...recent]));
    expect(res.statusCode, JSON.stringify(json).slice(0, 300)).toBe(200);
    expect(json.model_input[0].fed_points).toBe(3000);
    expect(json.usage.input_data_points).toBe(3000);
  });

  it('under strict or clean_series false an entity whose long gap would be cut gets the proposed split, not SERIES_TOO_LONG', async () => {
    const old = hourlyRows('gappy', 1200, (i) => 10 + Math.sin(i / 4));
    const recent = hourlyRows('gappy', 3000, (i) => 10 + Math.sin(i / 4), Date.UTC(2024, 0, 1) + 1700 * 3_600_000);
    for (const extra of [{ options: { cleaning: { preset: 'strict' } } }, { clean_series: false }]) {
      const { res, json } = await post(base(extra, [...old, ...recent]));
      expect(res.statusCode, JSON.stringify(json).slice(0, 300)).toBe(422);
      expect(json.error.code).toBe('SERIES_DISCONTINUOUS');
      const split = json.error.details.cleaning_report.decisions.filter((d: { id: string }) => d.id === 'gap.split');
      expect(split.map((d: { status: string }) => d.status)).toEqual(['proposed']);
    }
    const { res, json } = await post(base({ options: { cleaning: { preset: 'strict', accept: ['gap.split'] } } }, [...old, ...recent]));
    expect(res.statusCode, JSON.stringify(json).slice(0, 300)).toBe(200);
    expect(json.model_input[0].fed_points).toBe(3000);
  });

  it('gap_split_min_steps takes any integer from 0 up, and a huge one never splits', async () => {
    // The contract says only "integer >= 0": 2^32 + 48 and 1e308 mean "longer than every gap".
    // (2^32 + 48 is 48 if only its low 32 bits reach the engine, and the gap of 60 steps would split.)
    const old = hourlyRows('gappy', 200, (i) => 10 + Math.sin(i / 4));
    const recent = hourlyRows('gappy', 300, (i) => 10 + Math.sin(i / 4), Date.UTC(2024, 0, 1) + 260 * 3_600_000);
    for (const steps of [4294967296, 4294967344, 1e308]) {
      const { res, json } = await post(base({ options: { gap_split_min_steps: steps } }, [...old, ...recent]));
      expect(res.statusCode, JSON.stringify(json).slice(0, 300)).toBe(200);
      expect(json.model_input[0].fed_points).toBe(500);
    }
    for (const options of [{ gap_split_min_steps: -1 }, { gap_split_min_steps: 1.5 }, { cleaning: { seasonal_period: -1 } }]) {
      expectError(await post(base({ options })), 422, 'VALIDATION_ERROR');
    }
  });

  it('no error response is billed and failed requests free their quota', async () => {
    const day = new Date(t.clock.now()).toISOString().slice(0, 10);
    const before = (await t.hora('usage', 'acct')) as any;
    const quotaBefore = await t.store.quotaUsed('acct', day);
    // Step 6, before any reservation.
    expectError(await post(base({ h: 1025 })), 422, 'HORIZON_EXCEEDS_MODEL');
    // Step 8, after the reservation of 5 rows + 6 points at step 7: it must be given back.
    expectError(await post(base({}, hourlyRows('short', 5, (i) => i))), 422, 'SERIES_TOO_SHORT');
    const after = (await t.hora('usage', 'acct')) as any;
    expect(after.billed_points).toBe(before.billed_points);
    expect(after.requests.forecast).toBe(before.requests.forecast);
    expect(await t.store.quotaUsed('acct', day)).toBe(quotaBefore);
  });
});

describe('scale', () => {
  it('100 entities of 512 points each are forecast in one request', async () => {
    const { res, json } = await post({ series: manyEntities(100, 512), h: 48, freq: 'h', level: [80] });
    expect(res.statusCode).toBe(200);
    expect(json.forecast).toHaveLength(4800);
    expect(json.usage.input_data_points).toBe(51_200);
  });
});

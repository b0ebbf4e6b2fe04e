// The OpenAPI document generated from the typebox schemas: served, committed, and saying what the
// contract says about statuses, headers, defaults and ranges.
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, makeTestApp, waitFor, type TestApp } from './helpers/app.js';
import { TEST_FORECAST } from './helpers/routes.js';
import { isoZ, seasonalRows } from './helpers/series.js';
import { ERROR_CODES } from '../src/errors.js';
import { POLICY_VERSIONS } from '../src/policy/table.js';
import { cleaningReportJsonSchema } from '../src/schemas/cleaning-report.js';

let t: TestApp;
let doc: any;
let ajv: InstanceType<typeof Ajv2020.default>;
beforeAll(async () => {
  t = await makeTestApp({ HORA_FORECAST_RPM: '100000', HORA_CLEAN_RPM: '100000' });
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  // The served document itself, so its $refs resolve as a client generator's would.
  ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: true });
  ajv.addSchema(doc, 'openapi.json');
});
afterAll(async () => t.close());

const forecastOp = () => doc.paths['/v1/forecast'].post;
const cleanOp = () => doc.paths['/v1/clean'].post;

async function post(url: string, body: unknown, headers: Record<string, string> = {}, key = t.key) {
  const res = await t.app.inject({
    method: 'POST',
    url,
    headers: { ...bearer(key), 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
  return res;
}

describe('the error statuses the document declares', () => {
  it('name every code of the error registry at each of its statuses (422 refers to the contract)', () => {
    // The descriptions are prose per route; this keeps a code added to the registry from being
    // left out of the published document.
    for (const [code, spec] of Object.entries(ERROR_CODES)) {
      for (const status of spec.statuses.filter((s) => s !== 422)) {
        expect(forecastOp().responses[String(status)]?.description, `${code} at ${status}`).toContain(code);
      }
    }
  });
});

/** The body validates against the response schema the document gives this status. */
function expectBodyDeclared(op: any, res: { statusCode: number; json(): unknown }) {
  const ref = op.responses[String(res.statusCode)]?.content['application/json'].schema.$ref;
  expect(ref, `status ${res.statusCode} is declared`).toBeDefined();
  const validate = ajv.getSchema(`openapi.json${ref}`)!;
  const body = res.json();
  expect(validate(body), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
}

// Set by Node or Fastify on every response, not by the service: the document need not list them.
const TRANSPORT = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

/** Every header the service set on this response is declared for its status. */
function expectHeadersDeclared(op: any, res: { statusCode: number; headers: Record<string, unknown> }) {
  const declared = Object.keys(op.responses[String(res.statusCode)].headers).map((h) => h.toLowerCase());
  const sent = Object.keys(res.headers).filter((h) => !TRANSPORT.has(h));
  expect(sent.filter((h) => !declared.includes(h)), `undeclared on ${res.statusCode}`).toEqual([]);
  // And a header declared on every response of this status is on this one.
  const required = Object.entries(op.responses[String(res.statusCode)].headers).filter(([, h]: [string, any]) => h.required).map(([name]) => name.toLowerCase());
  expect(required.filter((h) => !sent.includes(h)), `required but missing on ${res.statusCode}`).toEqual([]);
}

describe('the OpenAPI document', () => {
  it('GET /openapi.json serves the committed docs/openapi.json (npm run openapi rewrites it)', () => {
    const committed = JSON.parse(readFileSync(new URL('../docs/openapi.json', import.meta.url), 'utf8'));
    expect(doc).toEqual(committed);
  });

  it('the committed docs/cleaning-report.schema.json is the typebox report schema (npm run openapi rewrites it)', async () => {
    const committed = JSON.parse(readFileSync(new URL('../docs/cleaning-report.schema.json', import.meta.url), 'utf8'));
    expect(committed).toEqual(cleaningReportJsonSchema());
    expect(committed.properties.policy.properties.version.enum).toEqual([...POLICY_VERSIONS]);
    // The document declares the same fields in the tolerant form: required where the service
    // always sends them, but open to fields and values the contract lets responses gain.
    const report = doc.components.schemas.CleanResponse.properties.cleaning_report;
    expect(report.properties.series.items.required).toEqual(committed.properties.series.items.required);
    expect(report.properties.series.items.additionalProperties).toBe(true);
    expect(report.properties.warnings.items.properties.code.type).toBe('string');
    const real = (await post('/v1/clean', { series: seasonalRows('a', 48) })).json().cleaning_report;
    const grown = { ...real, future_field: 1, warnings: [{ code: 'a_future_warning' }] };
    const tolerant = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false });
    const exact = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false });
    expect([tolerant.validate(report, real), exact.validate(committed, real)]).toEqual([true, true]);
    expect([tolerant.validate(report, grown), exact.validate(committed, grown)]).toEqual([true, false]);
  });

  it('every operation requires the Authorization: Bearer key', () => {
    expect(doc.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer' });
    for (const op of [forecastOp(), cleanOp()]) {
      const security = (op as { security?: unknown }).security ?? doc.security;
      expect(security).toEqual([{ bearer: [] }]);
    }
  });

  it('lists the status codes the contract gives each route', () => {
    expect(Object.keys(forecastOp().responses).sort()).toEqual(['200', '400', '401', '403', '409', '422', '429', '500', '503', '504']);
    expect(Object.keys(cleanOp().responses).sort()).toEqual(['200', '400', '401', '403', '422', '429', '500', '503']);
  });

  it("a 429 names the limit that refused in its X-RateLimit-* headers, only the route's own limits", () => {
    const forecast = forecastOp().responses['429'].headers;
    expect(forecast['Retry-After']).toBeDefined();
    expect(forecast['X-RateLimit-Policy'].schema.enum).toEqual(['forecast-rpm', 'forecast-daily-points']);
    expect(forecast['X-RateLimit-Limit-Type'].schema.enum).toEqual(['rpm', 'daily']);
    const clean = cleanOp().responses['429'].headers;
    expect(clean['Retry-After']).toBeDefined();
    expect(clean['X-RateLimit-Policy'].schema.enum).toEqual(['clean-rpm']);
    expect(clean['X-RateLimit-Limit-Type'].schema.enum).toEqual(['rpm']);
  });

  it("/v1/clean's 503 does not list MODEL_BUSY: it never calls the model", () => {
    expect(cleanOp().responses['503'].description).not.toContain('MODEL_BUSY');
    expect(forecastOp().responses['503'].description).toContain('MODEL_BUSY');
    // Every 503 the service sends carries Retry-After (MODEL_BUSY, a paused endpoint, capacity).
    expect(forecastOp().responses['503'].headers['Retry-After']).toBeDefined();
    expect(cleanOp().responses['503'].headers['Retry-After']).toBeDefined();
  });

  it("carries the contract's defaults and the knobs' ranges", () => {
    const request = doc.components.schemas.ForecastRequest.properties;
    expect(request.h).toMatchObject({ minimum: 1, maximum: 2048 });
    expect(request.quantile_policy.default).toBe('nearest');
    expect(request.clean_series.default).toBe(true);
    expect(request.clean_exog.default).toBe(true);
    expect(request.model.default).toBe('hora-1.0');
    expect(request.model_options.properties.flip_average.default).toBe(true);
    expect(request.options.properties.timezone.default).toBe('UTC');
    const cleaning = request.options.properties.cleaning.properties;
    expect(cleaning.seasonal_period).toMatchObject({ minimum: 2, maximum: 10_000 });
    expect(cleaning.impute_method.enum).toEqual(['linear', 'seasonal', 'locf']);
  });

  it("lists among the response's warning codes none that only the cleaning report carries", () => {
    const described: string = doc.components.schemas.ForecastResponse.properties.warnings.items.properties.code.description;
    for (const code of ['cleaning_version_deprecated', 'trailing_values_missing', 'future_rows_unused']) expect(described).toContain(code);
    for (const code of ['accept_id_unknown', 'decline_id_unknown', 'decline_not_reversible', 'accept_id_declined']) expect(described).not.toContain(code);
  });

  it('leaves the error category open, since the contract may add values', () => {
    const category = doc.components.schemas.ErrorEnvelope.properties.error.properties.category;
    expect(category.type).toBe('string');
    expect(category.enum).toBeUndefined();
  });
});

// The document checked against what the service really sends, as a generated client would read it.
describe('real responses match the OpenAPI document', () => {
  const series = seasonalRows('a', 48);

  it('a /v1/clean 200 holds only the report and the effective policy, validates against CleanResponse, its headers declared', async () => {
    // A deprecated policy version, so that the report has a warning.
    const res = await post('/v1/clean', { series, options: { cleaning: { version: '2026-10' } } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['effective_policy', 'cleaning_report']);
    expect(body.cleaning_report.warnings).toContainEqual({ code: 'cleaning_version_deprecated' });
    expectBodyDeclared(cleanOp(), res);
    expectHeadersDeclared(cleanOp(), res);
    // A dry run has no inference stage; the others are timed as on a forecast.
    expect(String(res.headers['server-timing']).split(', ').map((s) => s.split(';')[0])).toEqual(['parse', 'clean', 'serialize', 'total']);
    // The document says "only" too: a body with anything beside the two parts does not validate.
    const validate = ajv.getSchema('openapi.json#/components/schemas/CleanResponse')!;
    expect(validate({ ...body, data_quality: { status: 'ok', missing_ratio: 0 } })).toBe(false);
    const { effective_policy: _policy, ...withoutPolicy } = body;
    expect(validate(withoutPolicy)).toBe(false);
  });

  it('forecast 200s, cleaned and raw, validate against ForecastResponse, their headers declared', async () => {
    for (const options of [{}, { cleaning: { preset: 'raw' } }]) {
      const res = await post('/v1/forecast', { series, h: 3, freq: 'h', level: [80], options });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      expect(String(res.headers['server-timing']).split(', ').map((s) => s.split(';')[0])).toEqual(['parse', 'clean', 'inference', 'serialize', 'total']);
      expectBodyDeclared(forecastOp(), res);
      expectHeadersDeclared(forecastOp(), res);
    }
    // A future row past the horizon: the warning future_rows_unused with its count and stamps.
    const withCovariate = series.map((r) => ({ ...r, promo: 0 }));
    const future = [0, 1, 2, 3].map((i) => ({ unique_id: 'a', ds: isoZ(Date.UTC(2024, 0, 3, i)), promo: 1 }));
    const res = await post('/v1/forecast', { series: withCovariate, future_covariates: future, h: 3, freq: 'h' });
    expect(res.json().warnings).toContainEqual({ code: 'future_rows_unused', unique_id: 'a', count: 1, stamps: ['2024-01-03T03:00:00Z'] });
    expectBodyDeclared(forecastOp(), res);
  });

  it('a replayed 422 carries X-Idempotent-Replayed, and the alias alone Deprecation, both declared', async () => {
    const refused = { series, h: 0 };
    const key = { 'idempotency-key': 'openapi-422' };
    expect((await post('/v1/forecast', refused, key)).statusCode).toBe(422);
    const replay = await post('/v1/forecast', refused, key);
    expect([replay.statusCode, replay.headers['x-idempotent-replayed']]).toEqual([422, 'true']);
    expectHeadersDeclared(forecastOp(), replay);

    const aliasOnly = { 'x-idempotency-key': 'openapi-alias' };
    for (const res of [await post('/v1/forecast', refused, aliasOnly), await post('/v1/forecast', refused, aliasOnly, 'hora_live_unknown')]) {
      expect(res.headers.deprecation).toBeDefined();
      expectHeadersDeclared(forecastOp(), res);
      expectBodyDeclared(forecastOp(), res);
    }
  });

  it('rules JSON Schema cannot express are said in the descriptions, and the server enforces them', async () => {
    const acceptsRequest = ajv.getSchema('openapi.json#/components/schemas/ForecastRequest')!;
    const request = doc.components.schemas.ForecastRequest.properties;
    // bounds: lower <= upper compares two fields.
    const inverted = { series, h: 3, freq: 'h', options: { cleaning: { bounds: { lower: 5, upper: 1 } } } };
    expect(acceptsRequest(inverted)).toBe(true);
    expect(request.options.properties.cleaning.properties.bounds.description).toMatch(/lower must be at most upper/);
    const refused = await post('/v1/forecast', inverted);
    expect([refused.statusCode, refused.json().error.code]).toEqual([422, 'VALIDATION_ERROR']);
    // 8 covariate columns over all rows: one row's cap is in the schema, the total in words.
    expect(request.series.items.description).toMatch(/at most 8 columns over all series rows/);
    expect(request.future_covariates.items).toMatchObject({ maxProperties: 10, description: expect.stringMatching(/at most 8 columns over all future rows/) });
    // Columns c0..c{n-1}, the first 4 on row 0 and the rest on row 1: no row holds more than 8.
    const spreadOver = (n: number) => {
      const columns = (from: number, to: number) => Object.fromEntries(Array.from({ length: to - from }, (_, i) => [`c${from + i}`, i]));
      return { series: [{ ...series[0], ...columns(0, 4) }, { ...series[1], ...columns(4, n) }, ...series.slice(2)], h: 3, freq: 'h' };
    };
    const nine = spreadOver(9);
    expect(acceptsRequest(nine)).toBe(true);
    const refusedNine = await post('/v1/forecast', nine);
    expect([refusedNine.statusCode, refusedNine.json().error.code]).toEqual([422, 'VALIDATION_ERROR']);
    // The 9th column is named where it first appears.
    expect(refusedNine.json().error.details.errors).toEqual([expect.objectContaining({ field: 'series[1].c8' })]);
    expect((await post('/v1/forecast', spreadOver(8))).statusCode).toBe(200);
  });

  it('marks required the headers every answer of a status carries: request ids on all, Retry-After on 409 and 429, the limits on 429', () => {
    const required = (op: any, status: string) =>
      Object.entries(op.responses[status].headers).filter(([, h]: [string, any]) => h.required).map(([name]) => name).sort();
    const limits = ['X-RateLimit-Limit', 'X-RateLimit-Limit-Type', 'X-RateLimit-Policy', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
    for (const op of [forecastOp(), cleanOp()]) {
      for (const status of Object.keys(op.responses)) {
        const extra = status === '429' ? ['Retry-After', ...limits] : status === '409' ? ['Retry-After'] : [];
        expect(required(op, status), status).toEqual(['X-Client-Request-Id', 'X-Request-Id', ...extra].sort());
      }
    }
  });

  it('error answers carry every header the document declares required for their status, and none undeclared', async () => {
    const noScope = String((await t.hora('key', 'create', '--account', 'acct', '--name', 'openapi no scopes', '--scopes', '')).key);
    const malformed = await t.app.inject({ method: 'POST', url: '/v1/forecast', headers: { ...bearer(t.key), 'content-type': 'application/json' }, payload: '{"series": [' });
    const answers = [
      malformed,
      await post('/v1/forecast', { series, h: 3 }, {}, 'hora_live_unknown'),
      await post('/v1/forecast', { series, h: 3 }, {}, noScope),
      await post('/v1/forecast', { series, h: 0 }),
      // The daily quota refuses a reservation past it (the test route reserves what it is told).
      await post(TEST_FORECAST, { reserve: t.config.dailyPoints + 1 }),
    ];
    await t.hora('endpoint', 'pause', 'forecast');
    try {
      answers.push(await post('/v1/forecast', { series, h: 3 }));
    } finally {
      await t.hora('endpoint', 'resume', 'forecast');
    }
    expect(answers.map((r) => r.statusCode)).toEqual([400, 401, 403, 422, 429, 503]);
    for (const res of answers) expectHeadersDeclared(forecastOp(), res);
    expect(answers[4]!.headers['x-ratelimit-limit-type']).toBe('daily');
    expect(answers[5]!.headers['retry-after']).toBeDefined();
  });

  it('a 409 IDEMPOTENCY_IN_PROGRESS carries a declared Retry-After', async () => {
    // The test route runs the forecast's plugins and can be held mid-run.
    const held = post(TEST_FORECAST, { gate: 'openapi-409' }, { 'idempotency-key': 'openapi-409' });
    await waitFor(() => t.control.runs === 1);
    const busy = await post(TEST_FORECAST, { gate: 'openapi-409' }, { 'idempotency-key': 'openapi-409' });
    t.control.open('openapi-409');
    await held;
    expect([busy.statusCode, busy.headers['retry-after']]).toEqual([409, '1']);
    expectHeadersDeclared(forecastOp(), busy);
  });
});

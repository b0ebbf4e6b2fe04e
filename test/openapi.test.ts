// The OpenAPI document generated from the typebox schemas: served, committed, and saying what the
// contract says about statuses, headers, defaults and ranges.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
let doc: any;
beforeAll(async () => {
  t = await makeTestApp();
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
});
afterAll(async () => t.close());

const forecastOp = () => doc.paths['/v1/forecast'].post;
const cleanOp = () => doc.paths['/v1/clean'].post;

describe('the OpenAPI document', () => {
  it('GET /openapi.json serves the committed docs/openapi.json (npm run openapi rewrites it)', () => {
    const committed = JSON.parse(readFileSync(new URL('../docs/openapi.json', import.meta.url), 'utf8'));
    expect(doc).toEqual(committed);
  });

  it('lists the status codes the contract gives each route', () => {
    expect(Object.keys(forecastOp().responses).sort()).toEqual(['200', '400', '401', '403', '409', '422', '429', '500', '503', '504']);
    expect(Object.keys(cleanOp().responses).sort()).toEqual(['200', '400', '401', '403', '422', '429', '500', '503']);
  });

  it('a 429 names the limit that refused in its X-RateLimit-* headers', () => {
    for (const op of [forecastOp(), cleanOp()]) {
      const headers = op.responses['429'].headers;
      expect(headers['Retry-After']).toBeDefined();
      expect(headers['X-RateLimit-Policy'].schema.enum).toEqual(['forecast-rpm', 'clean-rpm', 'forecast-daily-points']);
      expect(headers['X-RateLimit-Limit-Type'].schema.enum).toEqual(['rpm', 'daily']);
    }
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

  it('leaves the error category open, since the contract may add values', () => {
    const category = doc.components.schemas.ErrorEnvelope.properties.error.properties.category;
    expect(category.type).toBe('string');
    expect(category.enum).toBeUndefined();
  });
});

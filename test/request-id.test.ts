import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, makeTestApp, type TestApp } from './helpers/app.js';
import { TEST_FORECAST } from './helpers/routes.js';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => t.close());

const post = (headers: Record<string, string> = {}, body: unknown = {}) =>
  t.app.inject({ method: 'POST', url: TEST_FORECAST, headers: { 'content-type': 'application/json', ...bearer(t.key), ...headers }, payload: JSON.stringify(body) });

describe('request ids', () => {
  it('every response carries a fresh req_ id in X-Request-Id, equal to the body request_id', async () => {
    const a = await post();
    const b = await post();
    expect(a.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
    expect(a.json().request_id).toBe(a.headers['x-request-id']);
    expect(b.headers['x-request-id']).not.toBe(a.headers['x-request-id']);
  });

  it('a valid client X-Request-Id is echoed as X-Client-Request-Id and never used as the request id', async () => {
    const res = await post({ 'x-request-id': 'client_trace-0001' });
    expect(res.headers['x-client-request-id']).toBe('client_trace-0001');
    expect(res.headers['x-request-id']).not.toBe('client_trace-0001');
    expect(res.json().request_id).toMatch(/^req_/);
  });

  it('a client X-Request-Id is never used as a key: the same id on different or identical requests runs each', async () => {
    const runs = t.control.runs;
    const a = await post({ 'x-request-id': 'same-trace-01' }, { n: 1 });
    const b = await post({ 'x-request-id': 'same-trace-01' }, { n: 2 });
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(b.headers['x-idempotent-replayed']).toBeUndefined();
    expect(b.headers['x-request-id']).not.toBe(a.headers['x-request-id']);
    // Nor is an identical request with the same id replayed.
    const c = await post({ 'x-request-id': 'same-trace-01' }, { n: 1 });
    expect([c.statusCode, c.headers['x-idempotent-replayed']]).toEqual([200, undefined]);
    expect(t.control.runs).toBe(runs + 3);
  });

  it('client ids outside ^[A-Za-z0-9_-]{8,64}$ are ignored: the header is carried empty, as without one', async () => {
    for (const id of ['short', 'a'.repeat(7), 'a'.repeat(65), 'has space in it', 'dots.are.not.ok', 'ünïcode-id-00']) {
      const res = await post({ 'x-request-id': id });
      expect(res.headers['x-client-request-id'], id).toBe('');
    }
    expect((await post({})).headers['x-client-request-id']).toBe('');
    for (const id of ['a'.repeat(8), 'a'.repeat(64)]) expect((await post({ 'x-request-id': id })).headers['x-client-request-id']).toBe(id);
  });

  it('error responses carry both ids too', async () => {
    const res = await t.app.inject({ method: 'POST', url: TEST_FORECAST, headers: { 'x-request-id': 'trace_12345678' } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['x-client-request-id']).toBe('trace_12345678');
    expect(res.json().error.request_id).toBe(res.headers['x-request-id']);
  });

  it('X-Service-Region is accepted and not enforced', async () => {
    expect((await post({ 'x-service-region': 'cn-mainland' })).statusCode).toBe(200);
    expect((await post({ 'x-service-region': 'global' })).statusCode).toBe(200);
  });
});

describe('unopened paths', () => {
  const paths: Array<[string, string]> = [
    ['POST', '/v1/anomaly-detection'],
    ['POST', '/v1/batch/forecast'],
    ['GET', '/v1/batch/jobs/job_123'],
    ['POST', '/cn/v1/forecast'],
    ['POST', '/cn/v1/clean'],
    ['GET', '/'],
    ['GET', '/v2/forecast'],
    ['GET', '/v1/forecast'],
  ];
  for (const [method, url] of paths) {
    it(`${method} ${url} is a plain 404 without the envelope, even without a key`, async () => {
      const res = await t.app.inject({ method: method as 'GET' | 'POST', url, headers: { 'content-type': 'application/json' }, payload: method === 'POST' ? '{}' : undefined });
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toMatch(/"error"/);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
    });
  }

  it('a valid key does not open a planned path', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/batch/forecast', headers: { 'content-type': 'application/json', ...bearer(t.key) }, payload: '{}' });
    expect(res.statusCode).toBe(404);
    expect(res.body).toBe('Not Found');
  });
});

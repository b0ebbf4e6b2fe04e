import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, makeTestApp, type TestApp } from './helpers/app.js';
import { TEST_CLEAN, TEST_FORECAST } from './helpers/routes.js';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => t.close());

const post = (headers: Record<string, string>, url = TEST_FORECAST, body: unknown = {}) =>
  t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) });

function expectError(res: { statusCode: number; json(): any; headers: Record<string, unknown> }, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  const body = res.json();
  expect(body.error.code).toBe(code);
  expect(body.error.request_id).toBe(res.headers['x-request-id']);
  return body.error;
}

describe('authentication', () => {
  it('a live key with forecast:write reaches the handler with its tenant', async () => {
    const res = await post(bearer(t.key));
    expect(res.statusCode).toBe(200);
    expect(res.json().tenant).toEqual({ keyId: t.keyId, accountId: 'acct', orgId: 'acme', scopes: ['forecast:write'], defaults: { key: {}, org: {} } });
  });

  it('a missing Authorization header is 401 INVALID_API_KEY, not retryable', async () => {
    const e = expectError(await post({}), 401, 'INVALID_API_KEY');
    expect(e).toMatchObject({ category: 'auth', retryable: false });
  });

  it('a header not of the form Bearer <key> is 401', async () => {
    expectError(await post({ authorization: t.key }), 401, 'INVALID_API_KEY');
    expectError(await post({ authorization: `Basic ${t.key}` }), 401, 'INVALID_API_KEY');
    expectError(await post({ authorization: 'Bearer' }), 401, 'INVALID_API_KEY');
  });

  it('the Bearer scheme is case-insensitive and may be followed by several spaces', async () => {
    expect((await post({ authorization: `bearer ${t.key}` })).statusCode).toBe(200);
    expect((await post({ authorization: `Bearer   ${t.key}` })).statusCode).toBe(200);
    expectError(await post({ authorization: `Bearer ${t.key} extra` }), 401, 'INVALID_API_KEY');
  });

  it('a key with the test prefix is rejected with 401 even when its rest matches a live key', async () => {
    const testKey = t.key.replace('hora_live_', 'hora_test_');
    const e = expectError(await post(bearer(testKey)), 401, 'INVALID_API_KEY');
    expect(e.message).toMatch(/test/i);
  });

  it('an unknown live key is 401', async () => {
    expectError(await post(bearer('hora_live_' + 'x'.repeat(43))), 401, 'INVALID_API_KEY');
  });

  it('a revoked key is 401 on the next request', async () => {
    expect((await post(bearer(t.key))).statusCode).toBe(200);
    expect(await t.hora('key', 'revoke', t.keyId)).toEqual({ key_id: t.keyId, revoked: true });
    expectError(await post(bearer(t.key)), 401, 'INVALID_API_KEY');
  });

  it('a key without forecast:write gets 403 INSUFFICIENT_SCOPE', async () => {
    const k = await t.hora('key', 'create', '--account', 'acct', '--name', 'no scopes', '--scopes', '');
    const e = expectError(await post(bearer(String(k.key))), 403, 'INSUFFICIENT_SCOPE');
    expect(e).toMatchObject({ category: 'auth', retryable: false });
    const other = await t.hora('key', 'create', '--account', 'acct', '--name', 'read', '--scopes', 'forecast:read');
    expectError(await post(bearer(String(other.key))), 403, 'INSUFFICIENT_SCOPE');
  });

  it('a paused endpoint answers 503 SERVICE_UNAVAILABLE with Retry-After, only for that endpoint', async () => {
    await t.hora('endpoint', 'pause', 'forecast');
    const res = await post(bearer(t.key));
    const e = expectError(res, 503, 'SERVICE_UNAVAILABLE');
    expect(e.retryable).toBe(true);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect((await post(bearer(t.key), TEST_CLEAN)).statusCode).toBe(200);
    await t.hora('endpoint', 'resume', 'forecast');
    expect((await post(bearer(t.key))).statusCode).toBe(200);
  });

  it('a suspended account gets 403 ACCOUNT_SUSPENDED and its keys work again once restored', async () => {
    await t.hora('account', 'update', 'acct', '--suspended', 'true');
    expect(expectError(await post(bearer(t.key)), 403, 'ACCOUNT_SUSPENDED').retryable).toBe(false);
    await t.hora('account', 'update', 'acct', '--suspended', 'false');
    expect((await post(bearer(t.key))).statusCode).toBe(200);
  });

  it('a suspended org gets 403 ACCOUNT_SUSPENDED', async () => {
    await t.hora('org', 'update', 'acme', '--suspended', 'true');
    expectError(await post(bearer(t.key)), 403, 'ACCOUNT_SUSPENDED');
  });

  it('an org pending deletion gets 403 ORG_PENDING_DELETION until cancelled', async () => {
    await t.hora('org', 'update', 'acme', '--pending-deletion', 'true');
    expectError(await post(bearer(t.key)), 403, 'ORG_PENDING_DELETION');
    await t.hora('org', 'update', 'acme', '--pending-deletion', 'false');
    expect((await post(bearer(t.key))).statusCode).toBe(200);
  });

  it('checks run in the contract order: key, scope, pause, suspension, pending deletion', async () => {
    const noScope = String((await t.hora('key', 'create', '--account', 'acct', '--name', 'n', '--scopes', '')).key);
    await t.hora('org', 'update', 'acme', '--pending-deletion', 'true');
    expectError(await post(bearer(t.key)), 403, 'ORG_PENDING_DELETION');
    await t.hora('account', 'update', 'acct', '--suspended', 'true');
    expectError(await post(bearer(t.key)), 403, 'ACCOUNT_SUSPENDED');
    await t.hora('endpoint', 'pause', 'forecast');
    expectError(await post(bearer(t.key)), 503, 'SERVICE_UNAVAILABLE');
    expectError(await post(bearer(noScope)), 403, 'INSUFFICIENT_SCOPE');
    expectError(await post(bearer('hora_test_abc')), 401, 'INVALID_API_KEY');
  });

  it('authentication runs before the body is read: a bad key with malformed JSON is 401', async () => {
    const res = await t.app.inject({ method: 'POST', url: TEST_FORECAST, headers: { 'content-type': 'application/json' }, payload: '{not json' });
    expectError(res, 401, 'INVALID_API_KEY');
  });

  it('key and org cleaning defaults reach the handler', async () => {
    await t.hora('org', 'update', 'acme', '--preset', 'strict', '--version', '2026-12');
    const k = await t.hora('key', 'create', '--account', 'acct', '--name', 'raw', '--preset', 'raw');
    const res = await post(bearer(String(k.key)));
    expect(res.json().tenant.defaults).toEqual({ key: { preset: 'raw' }, org: { preset: 'strict', version: '2026-12' } });
  });

  it('a key prefix set by HORA_KEY_PREFIX names the live and test keys', async () => {
    const other = await makeTestApp({ HORA_KEY_PREFIX: 'acme' });
    try {
      expect(other.key).toMatch(/^acme_live_[A-Za-z0-9_-]{43}$/);
      const ok = await other.app.inject({ method: 'POST', url: TEST_FORECAST, headers: { 'content-type': 'application/json', ...bearer(other.key) }, payload: '{}' });
      expect(ok.statusCode).toBe(200);
      const test = await other.app.inject({ method: 'POST', url: TEST_FORECAST, headers: { 'content-type': 'application/json', ...bearer(other.key.replace('_live_', '_test_')) }, payload: '{}' });
      expect(test.statusCode).toBe(401);
    } finally {
      await other.close();
    }
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, makeTestApp, type TestApp } from './helpers/app.js';
import { resolvePolicy } from '../src/policy/effective.js';
import type { CleaningDefaults } from '../src/store/store.js';
import { TEST_CLEAN, TEST_FORECAST } from './helpers/routes.js';
import { seasonalRows } from './helpers/series.js';

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

const cleanBody = { series: seasonalRows('a', 48), freq: 'h' };
/** The account's /clean calls in today's usage ledger. */
const cleanCalls = async () => ((await t.hora('usage', 'acct')) as { requests: { clean: number } }).requests.clean;

describe('authentication', () => {
  it('a live key with forecast:write reaches the handler with its tenant', async () => {
    const res = await post(bearer(t.key));
    expect(res.statusCode).toBe(200);
    expect(res.json().tenant).toEqual({ keyId: t.keyId, accountId: 'acct', orgId: 'acme', scopes: ['forecast:write'], defaults: { key: { preset: null, version: null }, org: { preset: null, version: null } } });
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

  it('a key without forecast:write gets 403 INSUFFICIENT_SCOPE naming the required scope', async () => {
    const k = await t.hora('key', 'create', '--account', 'acct', '--name', 'no scopes', '--scopes', '');
    const e = expectError(await post(bearer(String(k.key))), 403, 'INSUFFICIENT_SCOPE');
    // The details name the scope the contract requires (Authentication 4: forecast:write).
    expect(e).toMatchObject({ category: 'auth', retryable: false, details: { required_scope: 'forecast:write' } });
    const other = await t.hora('key', 'create', '--account', 'acct', '--name', 'read', '--scopes', 'forecast:read');
    expectError(await post(bearer(String(other.key))), 403, 'INSUFFICIENT_SCOPE');
  });

  // docs/service.md: "forecast:write is required on /clean too", and a /clean call refused
  // "before that (key, scope, pause, account)" is not recorded in the usage ledger. Each test ends
  // with a call that is recorded, so that an unchanged count is not a ledger that counts nothing.
  it('on /v1/clean a key without forecast:write gets 403 INSUFFICIENT_SCOPE naming the scope, and the call is not recorded', async () => {
    const k = await t.hora('key', 'create', '--account', 'acct', '--name', 'no scopes', '--scopes', '');
    const before = await cleanCalls();
    const e = expectError(await post(bearer(String(k.key)), '/v1/clean', cleanBody), 403, 'INSUFFICIENT_SCOPE');
    expect(e).toMatchObject({ category: 'auth', retryable: false, details: { required_scope: 'forecast:write' } });
    expect(await cleanCalls()).toBe(before);
    expect((await post(bearer(t.key), '/v1/clean', cleanBody)).statusCode).toBe(200);
    expect(await cleanCalls()).toBe(before + 1);
  });

  it.each([
    { who: 'a suspended account', code: 'ACCOUNT_SUSPENDED', flag: ['account', 'update', 'acct', '--suspended'] },
    { who: 'an org pending deletion', code: 'ORG_PENDING_DELETION', flag: ['org', 'update', 'acme', '--pending-deletion'] },
  ])('on /v1/clean $who gets 403 $code, and the call is not recorded', async ({ code, flag }) => {
    await t.hora(...flag, 'true');
    const before = await cleanCalls();
    expectError(await post(bearer(t.key), '/v1/clean', cleanBody), 403, code);
    expect(await cleanCalls()).toBe(before);
    await t.hora(...flag, 'false');
    expect((await post(bearer(t.key), '/v1/clean', cleanBody)).statusCode).toBe(200);
    expect(await cleanCalls()).toBe(before + 1);
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

  it('a suspended org gets 403 ACCOUNT_SUSPENDED and its keys work again once restored', async () => {
    await t.hora('org', 'update', 'acme', '--suspended', 'true');
    expectError(await post(bearer(t.key)), 403, 'ACCOUNT_SUSPENDED');
    expectError(await post(bearer(t.key), '/v1/forecast', { series: seasonalRows('a', 48), h: 2, freq: 'h' }), 403, 'ACCOUNT_SUSPENDED');
    // The keys stayed valid while suspended: the same key, unchanged, works after the restore.
    await t.hora('org', 'update', 'acme', '--suspended', 'false');
    expect((await post(bearer(t.key))).statusCode).toBe(200);
    expect((await post(bearer(t.key), '/v1/forecast', { series: seasonalRows('a', 48), h: 2, freq: 'h' })).statusCode).toBe(200);
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
    expect(res.json().tenant.defaults).toEqual({ key: { preset: 'raw', version: null }, org: { preset: 'strict', version: '2026-12' } });
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

// Contract: preset and version "when omitted, resolved in this order: key default, organization
// default, platform default"; source is request, key, org or platform. docs/decisions.md: each
// field from the most specific level that sets it, source the most specific level that supplied
// either.
describe('key and org cleaning defaults feed effective_policy and its source', () => {
  const series = seasonalRows('a', 48);
  // Two missing hours: default repairs them, strict only proposes the repair (422).
  const gapped = series.filter((_, i) => i < 20 || i >= 22);
  const forecast = (key: string, body: Record<string, unknown> = {}) => post(bearer(key), '/v1/forecast', { series, h: 2, freq: 'h', ...body });
  const clean = (key: string, body: Record<string, unknown> = {}) => post(bearer(key), '/v1/clean', { series, freq: 'h', ...body });
  const policyOf = (res: { statusCode: number; body: string; json(): any }) => {
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    return res.json().effective_policy;
  };
  const keyWith = async (...defaults: string[]) => String((await t.hora('key', 'create', '--account', 'acct', '--name', 'defaults', ...defaults)).key);
  const policy = (preset: string, version: string, source: string) => ({ id: `${preset}@${version}`, preset, version, source });

  it('with no key default, the org default preset and version apply to forecast and /clean, source org', async () => {
    await t.hora('org', 'update', 'acme', '--preset', 'strict', '--version', '2026-12');
    const res = await forecast(t.key);
    expect(policyOf(res)).toEqual(policy('strict', '2026-12', 'org'));
    // The org's version is applied, not only reported: the deprecated version's warning.
    expect(res.json().warnings).toContainEqual({ code: 'cleaning_version_deprecated' });
    expect(policyOf(await clean(t.key))).toEqual(policy('strict', '2026-12', 'org'));
    // The org's preset is applied: strict refuses the repair default would make.
    const refused = await forecast(t.key, { series: gapped });
    expect(refused.json().error).toMatchObject({ code: 'SERIES_DISCONTINUOUS', details: { reason: 'series_discontinuous' } });
  });

  it('an org default version alone applies with the platform preset, source org, and governs the knob check', async () => {
    await t.hora('org', 'update', 'acme', '--version', '2026-10');
    expect(policyOf(await forecast(t.key))).toEqual(policy('default', '2026-10', 'org'));
    // Knobs need 2026-11: under the org's 2026-10 the request's knob is refused at step 5.
    const knob = await forecast(t.key, { options: { cleaning: { impute_method: 'linear' } } });
    expect(knob.json().error).toMatchObject({ code: 'CLEANING_OPTION_UNSUPPORTED', details: { requires_version: '2026-11' } });
  });

  it('a key default beats the org default field by field, source key', async () => {
    await t.hora('org', 'update', 'acme', '--preset', 'strict', '--version', '2026-12');
    const presetOnly = await keyWith('--preset', 'default');
    expect(policyOf(await forecast(presetOnly))).toEqual(policy('default', '2026-12', 'key'));
    expect(policyOf(await clean(presetOnly))).toEqual(policy('default', '2026-12', 'key'));
    // The key's preset is applied: default repairs the gap that the org's strict refuses.
    expect(policyOf(await forecast(presetOnly, { series: gapped }))).toEqual(policy('default', '2026-12', 'key'));
    expect((await forecast(t.key, { series: gapped })).statusCode).toBe(422);
    const versionOnly = await keyWith('--version', '2026-11');
    expect(policyOf(await forecast(versionOnly))).toEqual(policy('strict', '2026-11', 'key'));
    const both = await keyWith('--preset', 'default', '--version', '2026-13');
    const res = await forecast(both);
    expect(policyOf(res)).toEqual(policy('default', '2026-13', 'key'));
    // The key's current version, not the org's deprecated one.
    expect(res.json().warnings).toBeUndefined();
  });

  it('a field sent in the request beats both defaults, the other field still inherited, source request', async () => {
    await t.hora('org', 'update', 'acme', '--preset', 'strict', '--version', '2026-12');
    const presetOnly = await keyWith('--preset', 'default');
    expect(policyOf(await forecast(presetOnly, { options: { cleaning: { version: '2026-13' } } }))).toEqual(policy('default', '2026-13', 'request'));
    expect(policyOf(await forecast(presetOnly, { options: { cleaning: { preset: 'strict' } } }))).toEqual(policy('strict', '2026-12', 'request'));
    expect(policyOf(await clean(t.key, { options: { cleaning: { preset: 'default' } } }))).toEqual(policy('default', '2026-12', 'request'));
  });

  it('resolvePolicy takes each field from the most specific level that sets it', () => {
    // One level's defaults in the store's shape: null when unset.
    const level = (d: Partial<CleaningDefaults>): CleaningDefaults => ({ preset: null, version: null, ...d });
    const cases: Array<[Parameters<typeof resolvePolicy>[0], Parameters<typeof resolvePolicy>[1], ReturnType<typeof policy>]> = [
      [undefined, { key: level({}), org: level({}) }, policy('default', '2026-13', 'platform')],
      [{}, { key: level({}), org: level({ preset: 'strict' }) }, policy('strict', '2026-13', 'org')],
      [undefined, { key: level({}), org: level({ version: '2026-11' }) }, policy('default', '2026-11', 'org')],
      [undefined, { key: level({ version: '2026-12' }), org: level({ preset: 'strict', version: '2026-11' }) }, policy('strict', '2026-12', 'key')],
      [undefined, { key: level({ preset: 'raw' }), org: level({}) }, policy('raw', '2026-13', 'key')],
      [{ preset: 'raw' }, { key: level({ preset: 'strict' }), org: level({ version: '2026-10' }) }, policy('raw', '2026-10', 'request')],
      [{ version: '2026-11' }, { key: level({ preset: 'strict', version: '2026-12' }), org: level({ preset: 'default' }) }, policy('strict', '2026-11', 'request')],
    ];
    for (const [cleaning, defaults, expected] of cases) {
      expect(resolvePolicy(cleaning, defaults), JSON.stringify([cleaning, defaults])).toEqual(expected);
    }
  });
});

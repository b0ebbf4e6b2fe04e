import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEPRECATION_HEADER_VALUE } from '../src/plugins/idempotency.js';
import { canonicalDigest } from '../src/native.js';
import { bearer, makeTestApp, waitFor, type TestApp } from './helpers/app.js';
import { COMPRESS_MIN_BYTES } from '../src/store/outcome.js';
import { bufferBody, TEST_FORECAST } from './helpers/routes.js';
import { seasonalRows } from './helpers/series.js';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => t.close());

const post = (headers: Record<string, string>, body: unknown = {}, key = t.key, url = TEST_FORECAST) =>
  t.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', ...bearer(key), ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });

const usage = () => t.hora('usage', 'acct');

describe('idempotency', () => {
  it('an identical retry replays the stored response with its original request_id and runs nothing', async () => {
    const first = await post({ 'idempotency-key': 'order-1' }, { reserve: 10, settle: { input: 6, forecast: 4 } });
    expect(first.statusCode).toBe(200);
    expect(first.headers['x-idempotent-replayed']).toBeUndefined();
    const runs = t.control.runs;
    const again = await post({ 'idempotency-key': 'order-1' }, { reserve: 10, settle: { input: 6, forecast: 4 } });
    expect(again.statusCode).toBe(200);
    expect(again.headers['x-idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(again.headers['x-request-id']).toBe(first.headers['x-request-id']);
    expect(again.json().request_id).toBe(first.json().request_id);
    expect(t.control.runs).toBe(runs);
    // Billed once.
    expect(await usage()).toMatchObject({ billed_points: 10, requests: { forecast: 1 } });
  });

  it('a replay is byte-identical to the first response: body, status and Content-Type', async () => {
    const first = await post({ 'idempotency-key': 'k-bytes' }, { n: 1 });
    const again = await post({ 'idempotency-key': 'k-bytes' }, { n: 1 });
    expect(again.headers['x-idempotent-replayed']).toBe('true');
    expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
    expect([again.statusCode, again.headers['content-type'], again.headers['content-length']]).toEqual([
      first.statusCode,
      first.headers['content-type'],
      first.headers['content-length'],
    ]);
  });

  it('a Buffer response is stored as bytes, never through a string: bytes that are not UTF-8 replay unchanged', async () => {
    const first = await post({ 'idempotency-key': 'k-buffer' }, { bytes: 1000 });
    expect(first.statusCode).toBe(200);
    expect(first.rawPayload.equals(bufferBody(1000))).toBe(true);
    const again = await post({ 'idempotency-key': 'k-buffer' }, { bytes: 1000 });
    expect(again.headers['x-idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(t.control.runs).toBe(1);
  });

  it('a large stored response is kept compressed and replays byte for byte', async () => {
    const size = COMPRESS_MIN_BYTES * 16;
    const body = { bytes: size };
    const first = await post({ 'idempotency-key': 'k-large' }, body);
    expect(first.rawPayload.length).toBe(size);
    const scope = { keyId: t.keyId, route: TEST_FORECAST, idempotencyKey: 'k-large' };
    const digest = await canonicalDigest(Buffer.from(JSON.stringify(body)));
    const found = await t.store.idempotencyBegin(scope, digest, 'req_probe', t.clock.now(), 1000);
    expect(found.state).toBe('completed');
    if (found.state !== 'completed') return;
    expect(found.storedBytes).toBeLessThan(size / 10);
    const again = await post({ 'idempotency-key': 'k-large' }, body);
    expect(again.headers['x-idempotent-replayed']).toBe('true');
    expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
  });

  it('the digest is of the canonical JSON body: key order and whitespace do not matter', async () => {
    await post({ 'idempotency-key': 'k-canon' }, '{"a":1,"b":[1,2]}');
    const again = await post({ 'idempotency-key': 'k-canon' }, '{ "b" : [1, 2],\n "a": 1 }');
    expect(again.headers['x-idempotent-replayed']).toBe('true');
    expect(await canonicalDigest(Buffer.from('{"a":1,"b":2}'))).toBe(await canonicalDigest(Buffer.from('{"b":2, "a":1}')));
    expect(await canonicalDigest(Buffer.from('{"a":1}'))).not.toBe(await canonicalDigest(Buffer.from('{"a":2}')));
  });

  it('spellings of one number are one body: 2 and 2.0 replay each other, 2.5 does not', async () => {
    await post({ 'idempotency-key': 'k-num' }, '{"h":2,"y":[0.1,3]}');
    const again = await post({ 'idempotency-key': 'k-num' }, '{"h":2.0,"y":[1e-1,3e0]}');
    expect(again.headers['x-idempotent-replayed']).toBe('true');
    const other = await post({ 'idempotency-key': 'k-num' }, '{"h":2.5,"y":[0.1,3]}');
    expect([other.statusCode, other.json().error.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
  });

  it("past 2^53 JavaScript's and Python's spellings of one number are one body: 10000000000000000 and 1e+16 replay each other", async () => {
    // JSON.stringify(1e16) and Python's json.dumps(1e16): a retry re-serialised by the other still matches.
    expect(JSON.stringify({ y: 1e16 })).toBe('{"y":10000000000000000}');
    await post({ 'idempotency-key': 'k-big' }, '{"y":[1e+16]}');
    const again = await post({ 'idempotency-key': 'k-big' }, JSON.stringify({ y: [1e16] }));
    expect(again.headers['x-idempotent-replayed']).toBe('true');
    const other = await post({ 'idempotency-key': 'k-big' }, '{"y":[1.0000000000000002e16]}');
    expect([other.statusCode, other.json().error.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
  });

  it('the same key with a different body is 422 IDEMPOTENCY_KEY_REUSED and nothing runs', async () => {
    await post({ 'idempotency-key': 'k1' }, { n: 1 });
    const runs = t.control.runs;
    const res = await post({ 'idempotency-key': 'k1' }, { n: 2 });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', category: 'invalid_request', retryable: false });
    expect(t.control.runs).toBe(runs);
  });

  it('a body that repeats a key is a different body from the one with its last value, either way round', async () => {
    await post({ 'idempotency-key': 'k-dup' }, '{"n":2}');
    const dup = await post({ 'idempotency-key': 'k-dup' }, '{"n":5,"n":2}');
    expect(dup.json().error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    await post({ 'idempotency-key': 'k-dup2' }, '{"n":5,"n":2}');
    expect((await post({ 'idempotency-key': 'k-dup2' }, '{"n":2}')).json().error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    // The same bytes again are the same body.
    expect((await post({ 'idempotency-key': 'k-dup2' }, '{"n":5,"n":2}')).headers['x-idempotent-replayed']).toBe('true');
  });

  it('a second request while the first runs is 409 IDEMPOTENCY_IN_PROGRESS, then the finished one replays', async () => {
    const body = { gate: 'hold' };
    const first = post({ 'idempotency-key': 'k-slow' }, body);
    await waitFor(() => t.control.runs === 1);
    const second = await post({ 'idempotency-key': 'k-slow' }, body);
    expect(second.statusCode).toBe(409);
    expect(second.json().error).toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS', category: 'conflict', retryable: true });
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(0);
    t.control.open('hold');
    const done = await first;
    expect(done.statusCode).toBe(200);
    const third = await post({ 'idempotency-key': 'k-slow' }, body);
    expect(third.headers['x-idempotent-replayed']).toBe('true');
    expect(third.json().request_id).toBe(done.json().request_id);
  });

  it('a different body under a key whose first request still runs is 409 IDEMPOTENCY_IN_PROGRESS, then 422 once the first is stored', async () => {
    const first = post({ 'idempotency-key': 'k-slow-diff' }, { gate: 'hold-diff' });
    await waitFor(() => t.control.runs === 1);
    const other = await post({ 'idempotency-key': 'k-slow-diff' }, { gate: 'hold-diff', n: 2 });
    expect([other.statusCode, other.json().error.code, other.json().error.retryable]).toEqual([409, 'IDEMPOTENCY_IN_PROGRESS', true]);
    expect(t.control.runs).toBe(1);
    t.control.open('hold-diff');
    expect((await first).statusCode).toBe(200);
    const after = await post({ 'idempotency-key': 'k-slow-diff' }, { gate: 'hold-diff', n: 2 });
    expect([after.statusCode, after.json().error.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
  });

  it('two concurrent requests with one key: exactly one runs, the other gets 409', async () => {
    const body = { gate: 'race' };
    const both = [post({ 'idempotency-key': 'k-race' }, body), post({ 'idempotency-key': 'k-race' }, body)];
    // The loser answers at once while the winner waits at the gate.
    const loser = await Promise.race(both);
    expect(loser.statusCode).toBe(409);
    t.control.open('race');
    const statuses = (await Promise.all(both)).map((r) => r.statusCode).sort();
    expect(statuses).toEqual([200, 409]);
    expect(t.control.runs).toBe(1);
  });

  it('keys are scoped to the API key: another key of the same account runs anew', async () => {
    const other = String((await t.hora('key', 'create', '--account', 'acct', '--name', 'second')).key);
    const a = await post({ 'idempotency-key': 'shared' }, { n: 1 });
    const b = await post({ 'idempotency-key': 'shared' }, { n: 1 }, other);
    expect(b.statusCode).toBe(200);
    expect(b.headers['x-idempotent-replayed']).toBeUndefined();
    expect(b.json().request_id).not.toBe(a.json().request_id);
  });

  it('a deterministic 4xx is stored and replayed', async () => {
    const first = await post({ 'idempotency-key': 'k-422' }, { error: 'FREQ_UNSUPPORTED' });
    expect(first.statusCode).toBe(422);
    const again = await post({ 'idempotency-key': 'k-422' }, { error: 'FREQ_UNSUPPORTED' });
    expect(again.statusCode).toBe(422);
    expect(again.headers['x-idempotent-replayed']).toBe('true');
    expect(again.json().error.request_id).toBe(first.json().error.request_id);
    const malformed = await post({ 'idempotency-key': 'k-400' }, '{oops');
    expect(malformed.statusCode).toBe(400);
    expect((await post({ 'idempotency-key': 'k-400' }, '{oops')).headers['x-idempotent-replayed']).toBe('true');
  });

  it('a wrong Content-Type is not stored: the corrected retry of the same body runs', async () => {
    const refused = await post({ 'idempotency-key': 'typed-1', 'content-type': 'text/plain' }, { reserve: 3 });
    expect([refused.statusCode, refused.json().error.details.field]).toEqual([400, 'Content-Type']);
    const fixed = await post({ 'idempotency-key': 'typed-1' }, { reserve: 3 });
    expect(fixed.statusCode).toBe(200);
    expect(fixed.headers['x-idempotent-replayed']).toBeUndefined();
    expect(t.control.runs).toBe(1);
  });

  it('repeated Idempotency-Key headers are one key, their values joined by a comma', async () => {
    const headers = { 'content-type': 'application/json', ...bearer(t.key), 'idempotency-key': ['d1', 'd2'] };
    const first = await t.app.inject({ method: 'POST', url: TEST_FORECAST, headers, payload: '{}' });
    expect(first.statusCode).toBe(200);
    const again = await post({ 'idempotency-key': 'd1, d2' }, {});
    expect(again.headers['x-idempotent-replayed']).toBe('true');
    expect(t.control.runs).toBe(1);
  });

  it('5xx, 503 and 504 outcomes are not stored: the key may be retried and runs again', async () => {
    for (const [i, error] of (['INTERNAL_SERVER_ERROR', 'SERVICE_UNAVAILABLE', 'MODEL_BUSY', 'GATEWAY_TIMEOUT'] as const).entries()) {
      const key = `k-5xx-${i}`;
      const first = await post({ 'idempotency-key': key }, { error });
      expect(first.statusCode).toBeGreaterThanOrEqual(500);
      const retry = await post({ 'idempotency-key': key }, {});
      expect(retry.statusCode, error).toBe(200);
      expect(retry.headers['x-idempotent-replayed']).toBeUndefined();
    }
  });

  it('401, 403 and 429 are not stored', async () => {
    // A 401 to a known key (revoked): nothing is recorded under its scope.
    const revoked = await t.hora('key', 'create', '--account', 'acct', '--name', 'to revoke');
    await t.hora('key', 'revoke', String(revoked.key_id));
    expect((await post({ 'idempotency-key': 'k-401' }, { n: 1 }, String(revoked.key))).statusCode).toBe(401);
    const scope = { keyId: String(revoked.key_id), route: TEST_FORECAST, idempotencyKey: 'k-401' };
    const found = await t.store.idempotencyBegin(scope, await canonicalDigest(Buffer.from('{"n":1}')), 'req_probe', t.clock.now(), 1000);
    expect(found.state).toBe('started');

    await t.hora('account', 'update', 'acct', '--suspended', 'true');
    expect((await post({ 'idempotency-key': 'k-403' }, { n: 1 })).statusCode).toBe(403);
    await t.hora('account', 'update', 'acct', '--suspended', 'false');
    const ok = await post({ 'idempotency-key': 'k-403' }, { n: 1 });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['x-idempotent-replayed']).toBeUndefined();

    const quota = await post({ 'idempotency-key': 'k-429' }, { reserve: t.config.dailyPoints + 1 });
    expect(quota.statusCode).toBe(429);
    const after = await post({ 'idempotency-key': 'k-429' }, { reserve: 1 });
    expect(after.statusCode).toBe(200);
  });

  it('a 429 of the per-minute limit is not stored either: the same key and body run once the minute is over', async () => {
    await t.close();
    t = await makeTestApp({ HORA_FORECAST_RPM: '1' });
    expect((await post({}, { n: 0 })).statusCode).toBe(200);
    const runs = t.control.runs;
    const limited = await post({ 'idempotency-key': 'k-rpm' }, { n: 1 });
    expect([limited.statusCode, limited.json().error.code]).toEqual([429, 'RATE_LIMIT_EXCEEDED']);
    t.clock.advance(60_000);
    const retry = await post({ 'idempotency-key': 'k-rpm' }, { n: 1 });
    expect(retry.statusCode).toBe(200);
    expect(retry.headers['x-idempotent-replayed']).toBeUndefined();
    expect(t.control.runs).toBe(runs + 1);
  });

  it('records are kept for 24 hours and expire after them', async () => {
    const first = await post({ 'idempotency-key': 'k-old' }, { n: 1 });
    // One second before the 24 hours end: still replayed, and a different body is still refused.
    t.clock.advance(24 * 3600 * 1000 - 1000);
    const replay = await post({ 'idempotency-key': 'k-old' }, { n: 1 });
    expect(replay.headers['x-idempotent-replayed']).toBe('true');
    expect(replay.json().request_id).toBe(first.json().request_id);
    expect((await post({ 'idempotency-key': 'k-old' }, { n: 2 })).json().error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    // One second after (a replay does not extend the retention): the key runs a new request.
    t.clock.advance(2000);
    const later = await post({ 'idempotency-key': 'k-old' }, { n: 2 });
    expect(later.statusCode).toBe(200);
    expect(later.headers['x-idempotent-replayed']).toBeUndefined();
    expect(later.json().request_id).not.toBe(first.json().request_id);
  });

  it('a malformed key is 400 VALIDATION_ERROR naming the header, before the body is read', async () => {
    for (const bad of ['', 'x'.repeat(256), 'tab\there', 'ключ']) {
      const res = await post({ 'idempotency-key': bad }, '{not json');
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'VALIDATION_ERROR', category: 'invalid_request', retryable: false, details: { field: 'Idempotency-Key' } });
    }
    expect((await post({ 'idempotency-key': 'x'.repeat(255) }, {})).statusCode).toBe(200);
    expect((await post({ 'idempotency-key': ' spaces and ~ are printable' }, {})).statusCode).toBe(200);
  });

  it('on /v1/forecast a malformed key is judged after authentication and the account checks (step 1 order)', async () => {
    const malformed = (key: string) => post({ 'idempotency-key': 'x'.repeat(256) }, '{not json', key, '/v1/forecast');
    const outcome = async (key: string) => {
      const res = await malformed(key);
      return [res.statusCode, res.json().error.code];
    };
    expect(await outcome(`hora_live_${'x'.repeat(43)}`)).toEqual([401, 'INVALID_API_KEY']);
    expect(await outcome('hora_test_abc')).toEqual([401, 'INVALID_API_KEY']);
    const noScope = String((await t.hora('key', 'create', '--account', 'acct', '--name', 'n', '--scopes', '')).key);
    expect(await outcome(noScope)).toEqual([403, 'INSUFFICIENT_SCOPE']);
    await t.hora('endpoint', 'pause', 'forecast');
    expect(await outcome(t.key)).toEqual([503, 'SERVICE_UNAVAILABLE']);
    await t.hora('endpoint', 'resume', 'forecast');
    await t.hora('account', 'update', 'acct', '--suspended', 'true');
    expect(await outcome(t.key)).toEqual([403, 'ACCOUNT_SUSPENDED']);
    await t.hora('account', 'update', 'acct', '--suspended', 'false');
    await t.hora('org', 'update', 'acme', '--pending-deletion', 'true');
    expect(await outcome(t.key)).toEqual([403, 'ORG_PENDING_DELETION']);
    await t.hora('org', 'update', 'acme', '--pending-deletion', 'false');
    // A key that passes every account check meets the header check, before its body is read.
    const res = await malformed(t.key);
    expect([res.statusCode, res.json().error.code, res.json().error.details.field]).toEqual([400, 'VALIDATION_ERROR', 'Idempotency-Key']);
  });

  it('the deprecated X-Idempotency-Key alone is used as the key and answered with a Deprecation header', async () => {
    const first = await post({ 'x-idempotency-key': 'legacy-1' }, { n: 1 });
    expect(first.statusCode).toBe(200);
    expect(first.headers.deprecation).toBe(DEPRECATION_HEADER_VALUE);
    const viaNew = await post({ 'idempotency-key': 'legacy-1' }, { n: 1 });
    expect(viaNew.headers['x-idempotent-replayed']).toBe('true');
    expect(viaNew.headers.deprecation).toBeUndefined();
    // Every response to the alias alone carries it, refusals before the key is read included.
    const unauthorized = await post({ 'x-idempotency-key': 'legacy-2' }, { n: 1 }, 'hora_live_unknown');
    expect(unauthorized.statusCode).toBe(401);
    expect(unauthorized.headers.deprecation).toBe(DEPRECATION_HEADER_VALUE);
    const malformed = await post({ 'x-idempotency-key': 'x'.repeat(300) }, {});
    expect(malformed.statusCode).toBe(400);
    expect(malformed.headers.deprecation).toBe(DEPRECATION_HEADER_VALUE);
  });

  it('both headers with different values are 400 VALIDATION_ERROR with details.field Idempotency-Key', async () => {
    const res = await post({ 'idempotency-key': 'a-key', 'x-idempotency-key': 'b-key' }, {});
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.field).toBe('Idempotency-Key');
    const same = await post({ 'idempotency-key': 'a-key', 'x-idempotency-key': 'a-key' }, {});
    expect(same.statusCode).toBe(200);
    expect(same.headers.deprecation).toBeUndefined();
  });

  it('a malformed alias names X-Idempotency-Key', async () => {
    const res = await post({ 'x-idempotency-key': 'x'.repeat(300) }, {});
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.field).toBe('X-Idempotency-Key');
  });

  it('/clean ignores Idempotency-Key: nothing replayed, no key reuse, no header check', async () => {
    const body = { series: seasonalRows('a', 48), freq: 'h' };
    const a = await post({ 'idempotency-key': 'c1' }, body, t.key, '/v1/clean');
    const same = await post({ 'idempotency-key': 'c1' }, body, t.key, '/v1/clean');
    const other = await post({ 'idempotency-key': 'c1' }, { ...body, series: seasonalRows('b', 48) }, t.key, '/v1/clean');
    expect([a.statusCode, same.statusCode, other.statusCode], other.body.slice(0, 300)).toEqual([200, 200, 200]);
    expect(same.headers['x-idempotent-replayed']).toBeUndefined();
    expect(same.headers['x-request-id']).not.toBe(a.headers['x-request-id']);
    expect(other.json().cleaning_report.series[0].unique_id).toBe('b');
    // Not read at all: a value that would be malformed on the forecast is no 400 here.
    expect((await post({ 'idempotency-key': '' }, body, t.key, '/v1/clean')).statusCode).toBe(200);
    expect((await post({ 'x-idempotency-key': 'legacy' }, body, t.key, '/v1/clean')).headers.deprecation).toBeUndefined();
  });
});

import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, ERROR_CODES, envelope, envelopeJson, envelopePieces, fromEngineError, headerValidationError, isRetryableStatus, jsonPointerToPath } from '../src/errors.js';
import { joinBytes } from '../src/native.js';
import { spliceObject } from '../src/serialize.js';
import { bearer, makeTestApp, type TestApp } from './helpers/app.js';
import { TEST_FORECAST } from './helpers/routes.js';

// The contract's error table: code, HTTP status(es), category.
const CONTRACT_TABLE: Array<[string, number[], string]> = [
  ['MALFORMED_JSON', [400], 'invalid_request'],
  ['VALIDATION_ERROR', [422, 400], 'invalid_request'],
  ['IDEMPOTENCY_KEY_REUSED', [422], 'invalid_request'],
  ['CLEANING_OPTION_UNSUPPORTED', [422], 'invalid_request'],
  ['INVALID_API_KEY', [401], 'auth'],
  ['INSUFFICIENT_SCOPE', [403], 'auth'],
  ['ACCOUNT_SUSPENDED', [403], 'auth'],
  ['ORG_PENDING_DELETION', [403], 'auth'],
  ['IDEMPOTENCY_IN_PROGRESS', [409], 'conflict'],
  ['FUTURE_COVARIATES_INVALID', [422], 'data_invalid'],
  ['COVARIATE_COLUMN_MISMATCH', [422], 'data_invalid'],
  ['SERIES_DISCONTINUOUS', [422], 'data_invalid'],
  ['TIMESTAMP_IRREGULAR', [422], 'data_invalid'],
  ['FREQ_INFERENCE_FAILED', [422], 'data_invalid'],
  ['FREQ_AMBIGUOUS', [422], 'data_invalid'],
  ['FREQ_UNSUPPORTED', [422], 'data_invalid'],
  ['SERIES_EMPTY', [422], 'data_invalid'],
  ['SERIES_TOO_SHORT', [422], 'data_invalid'],
  ['AMBIGUOUS_DATE_FORMAT', [422], 'data_invalid'],
  ['RAW_INPUT_INVALID', [422], 'data_invalid'],
  ['POINTS_EXCEEDED', [422], 'limit_exceeded'],
  ['SERIES_TOO_LONG', [422], 'limit_exceeded'],
  ['HORIZON_EXCEEDS_MODEL', [422], 'limit_exceeded'],
  ['MODEL_NOT_AVAILABLE', [422], 'model_unavailable'],
  ['MODEL_OPTION_UNSUPPORTED', [422], 'model_unavailable'],
  ['QUANTILE_UNSUPPORTED', [422], 'model_unavailable'],
  ['RATE_LIMIT_EXCEEDED', [429], 'rate_limited'],
  ['INTERNAL_SERVER_ERROR', [500], 'server'],
  ['SERVICE_UNAVAILABLE', [503], 'server'],
  ['MODEL_BUSY', [503], 'server'],
  ['GATEWAY_TIMEOUT', [504], 'server'],
];

describe('error registry', () => {
  it('holds exactly the codes of the contract table with their statuses and categories', () => {
    expect(Object.keys(ERROR_CODES).sort()).toEqual(CONTRACT_TABLE.map(([c]) => c).sort());
    for (const [code, statuses, category] of CONTRACT_TABLE) {
      const spec = ERROR_CODES[code as keyof typeof ERROR_CODES];
      expect(spec.status, code).toBe(statuses[0]);
      expect([...spec.statuses].sort(), code).toEqual([...statuses].sort());
      expect(spec.category, code).toBe(category);
    }
  });

  it('retryable is true only for 409, 429, 500, 503 and 504', () => {
    for (const [code, statuses] of CONTRACT_TABLE) {
      for (const status of statuses) {
        const e = new ApiError(code as any, 'm', { status });
        expect(e.retryable, `${code} ${status}`).toBe([409, 429, 500, 503, 504].includes(status));
      }
    }
    expect(isRetryableStatus(422)).toBe(false);
  });

  it('VALIDATION_ERROR is 422 for the body and 400 only when asked for a header', () => {
    expect(new ApiError('VALIDATION_ERROR', 'body').status).toBe(422);
    // The header checks build their error with headerValidationError: that one is the 400.
    expect(headerValidationError('Idempotency-Key', 'header')).toMatchObject({ status: 400, details: { field: 'Idempotency-Key' } });
    // No other status is registered for it (contract: 422, or 400 for a header), nor 422 for MALFORMED_JSON.
    expect(() => new ApiError('VALIDATION_ERROR', 'x', { status: 409 })).toThrow();
    expect(() => new ApiError('MALFORMED_JSON', 'x', { status: 422 })).toThrow();
  });

  it('the envelope carries code, category, retryable, message, request_id and details only when given', () => {
    expect(envelope(new ApiError('SERIES_EMPTY', 'no y'), 'req_1')).toEqual({
      error: { code: 'SERIES_EMPTY', category: 'data_invalid', retryable: false, message: 'no y', request_id: 'req_1' },
    });
    expect(envelope(new ApiError('POINTS_EXCEEDED', 'm', { details: { points: 3, cap: 2 } }), 'req_2').error.details).toEqual({ points: 3, cap: 2 });
  });

  it('an engine error\'s details bytes are spliced into the envelope unparsed, and parsed only when read', () => {
    const text = '{"cleaning_report":{"series":[{"unique_id":"a"}]},"unique_id":"a"}';
    const err = fromEngineError({ code: 'SERIES_TOO_SHORT', message: 'short', detailsJson: Buffer.from(text) });
    const json = envelopeJson(err, 'req_3');
    // Bytes, never a JS string: details past V8's longest string still go out.
    expect(Buffer.isBuffer(json)).toBe(true);
    expect(json.toString()).toBe(`{"error":{"code":"SERIES_TOO_SHORT","category":"data_invalid","retryable":false,"message":"short","request_id":"req_3","details":${text}}}`);
    expect(err.unreadDetailsJson()?.toString()).toBe(text);
    // Read once, the details are an object and the envelope is built from it, with the same text.
    expect(err.details).toEqual(JSON.parse(text));
    expect(err.unreadDetailsJson()).toBeUndefined();
    expect(envelopeJson(err, 'req_3').toString()).toBe(json.toString());
    expect(envelopeJson(fromEngineError({ code: 'MALFORMED_JSON', message: 'bad', detailsJson: Buffer.from('{}') }), 'r')).not.toContain('details');
  });

  it('bodies are joined on the thread pool byte for byte: envelope pieces, spliced members, nothing', async () => {
    const err = fromEngineError({ code: 'SERIES_TOO_SHORT', message: 'short', detailsJson: Buffer.from('{"unique_id":"é"}') });
    const pieces = envelopePieces(err, 'req_4');
    expect(Array.isArray(pieces)).toBe(true);
    const joined = await joinBytes(pieces as Buffer[]);
    expect(joined.equals(envelopeJson(err, 'req_4') as Buffer)).toBe(true);
    expect(JSON.parse(joined.toString()).error.details).toEqual({ unique_id: 'é' });
    expect((await spliceObject([['a', '1'], ['b', Buffer.from('[2]')]])).toString()).toBe('{"a":1,"b":[2]}');
    expect((await spliceObject([])).toString()).toBe('{}');
    expect((await joinBytes([])).length).toBe(0);
    // Without unread engine details the envelope is plain text, no join needed.
    expect(typeof envelopePieces(new ApiError('SERIES_EMPTY', 'no y'), 'req_5')).toBe('string');
  });

  it('engine errors are looked up by code, and unknown codes become 500', () => {
    expect(fromEngineError({ code: 'FREQ_UNSUPPORTED', message: 'bad', detailsJson: Buffer.from('{"freq":"x"}') })).toMatchObject({ status: 422, details: { freq: 'x' } });
    // Empty details are left out of the envelope (the field is optional) rather than sent as {}.
    expect(fromEngineError({ code: 'MALFORMED_JSON', message: 'bad', detailsJson: Buffer.from('{}') }).details).toBeUndefined();
    expect(fromEngineError({ code: 'NOPE', message: 'bad', detailsJson: Buffer.from('{}') }).code).toBe('INTERNAL_SERVER_ERROR');
  });

  it("JSON pointers become the contract's field paths", () => {
    expect(jsonPointerToPath('/series/3/y')).toBe('series[3].y');
    expect(jsonPointerToPath('/options/cleaning')).toBe('options.cleaning');
    expect(jsonPointerToPath('')).toBe('');
    // RFC 6901 escapes are decoded: ~1 is '/', ~0 is '~'.
    expect(jsonPointerToPath('/options/cleaning/a~1b~0c')).toBe('options.cleaning.a/b~c');
  });
});

describe('error handling over HTTP', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await makeTestApp({ HORA_BODY_LIMIT_BYTES: '4096' });
  });
  afterEach(async () => t.close());

  const post = (payload: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    t.app.inject({ method: 'POST', url: TEST_FORECAST, headers: { ...bearer(t.key), ...headers }, payload });

  it('an ApiError thrown by a handler is sent in the envelope with its status', async () => {
    const res = await post(JSON.stringify({ error: 'SERIES_TOO_SHORT' }));
    expect(res.statusCode).toBe(422);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.json().error).toMatchObject({ code: 'SERIES_TOO_SHORT', category: 'data_invalid', retryable: false, request_id: res.headers['x-request-id'] });
  });

  it('an unexpected exception is 500 INTERNAL_SERVER_ERROR without its message or a stack, and the server keeps serving', async () => {
    const res = await post(JSON.stringify({ crash: true }));
    expect(res.statusCode).toBe(500);
    expect(res.json().error).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', category: 'server', retryable: true });
    expect(res.body).not.toMatch(/secret internal detail|at .*\.ts/);
    expect((await post('{}')).statusCode).toBe(200);
  });

  it('a body over the limit is 422 POINTS_EXCEEDED, answered from Content-Length before reading it', async () => {
    const res = await post('{"pad":"' + 'x'.repeat(5000) + '"}');
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'POINTS_EXCEEDED', category: 'limit_exceeded', details: { cap: 200000, max_body_bytes: 4096 } });
  });

  it('a body of exactly HORA_BODY_LIMIT_BYTES is read, one byte more is POINTS_EXCEEDED, declared or streamed', async () => {
    const body = (bytes: number) => '{"pad":"' + 'x'.repeat(bytes - 10) + '"}';
    expect(body(4096)).toHaveLength(4096);
    expect((await post(body(4096))).statusCode).toBe(200);
    expect((await post(body(4097))).json().error.code).toBe('POINTS_EXCEEDED');
    // Without Content-Length the body is counted as it arrives.
    const streamed = (bytes: number) =>
      t.app.inject({ method: 'POST', url: TEST_FORECAST, headers: { ...bearer(t.key), 'content-type': 'application/json' }, payload: Readable.from([body(bytes)]) });
    const atLimit = await streamed(4096);
    expect(atLimit.statusCode, atLimit.body.slice(0, 200)).toBe(200);
    expect((await streamed(4097)).json().error.code).toBe('POINTS_EXCEEDED');
  });

  it('a body sent without the JSON content type is 400 VALIDATION_ERROR naming Content-Type', async () => {
    const res = await post('{}', { 'content-type': 'text/plain' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'Content-Type' } });
    const none = await t.app.inject({ method: 'POST', url: TEST_FORECAST, headers: bearer(t.key), payload: '{}' });
    expect(none.statusCode).toBe(400);
    expect(none.json().error.details.field).toBe('Content-Type');
  });

  it('a compressed body is 400 VALIDATION_ERROR naming Content-Encoding, even when it happens to be plain JSON', async () => {
    const gzipped = await post(gzipSync(Buffer.from('{}')), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect([gzipped.statusCode, gzipped.json().error.code, gzipped.json().error.details.field]).toEqual([400, 'VALIDATION_ERROR', 'Content-Encoding']);
    const mislabelled = await post('{}', { 'content-type': 'application/json', 'content-encoding': 'br' });
    expect(mislabelled.json().error.details.field).toBe('Content-Encoding');
    expect((await post('{}', { 'content-type': 'application/json', 'content-encoding': 'identity' })).statusCode).toBe(200);
    // Content codings are case-insensitive (RFC 9110 8.4.1).
    expect((await post('{}', { 'content-type': 'application/json', 'content-encoding': 'Identity' })).statusCode).toBe(200);
    expect((await post(gzipSync(Buffer.from('{}')), { 'content-type': 'application/json', 'content-encoding': 'GZIP' })).json().error.details.field).toBe('Content-Encoding');
    // A list of codings is judged entry by entry (Node joins a header sent twice into such a list).
    expect((await post('{}', { 'content-type': 'application/json', 'content-encoding': 'identity, identity' })).statusCode).toBe(200);
    expect((await post('{}', { 'content-type': 'application/json', 'content-encoding': 'identity, gzip' })).json().error.details.field).toBe('Content-Encoding');
  });

  it('a refusal for the headers comes before one for the size (step 3 before step 4), declared or streamed', async () => {
    // A single other media type was refused first already; a coding or a second Content-Type now is too.
    const big = '{"pad":"' + 'x'.repeat(5000) + '"}';
    const streamed = (headers: Record<string, string>) =>
      t.app.inject({ method: 'POST', url: TEST_FORECAST, headers: { ...bearer(t.key), ...headers }, payload: Readable.from([big]) });
    const cases: Array<[Record<string, string>, string]> = [
      [{ 'content-type': 'text/plain' }, 'Content-Type'],
      [{ 'content-type': 'application/json', 'content-encoding': 'gzip' }, 'Content-Encoding'],
    ];
    for (const [headers, field] of cases) {
      for (const res of [await post(big, headers), await streamed(headers)]) {
        expect([res.statusCode, res.json().error.code, res.json().error.details.field], field).toEqual([400, 'VALIDATION_ERROR', field]);
      }
    }
    const twoTypes = await t.app.inject({ method: 'POST', url: TEST_FORECAST, headers: { ...bearer(t.key), 'content-type': ['application/json', 'text/plain'] }, payload: big });
    expect([twoTypes.statusCode, twoTypes.json().error.details.field]).toEqual([400, 'Content-Type']);
  });

  it('a transfer coding other than chunked is 400 VALIDATION_ERROR naming Transfer-Encoding, even over plain JSON', async () => {
    for (const coding of ['gzip, chunked', 'Deflate,chunked']) {
      const res = await post('{}', { 'content-type': 'application/json', 'transfer-encoding': coding });
      expect([res.statusCode, res.json().error.code, res.json().error.details.field]).toEqual([400, 'VALIDATION_ERROR', 'Transfer-Encoding']);
    }
    expect((await post('{}', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' })).statusCode).toBe(200);
  });

  it('an empty JSON body reaches the handler as empty bytes (its parser answers MALFORMED_JSON)', async () => {
    const res = await post('');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('MALFORMED_JSON');
  });

  it('the JSON parser keeps the raw bytes untouched (duplicate keys, NaN literals reach the engine as sent)', async () => {
    await post('{"a":1,"a":NaN}');
    expect(t.control.lastRaw?.toString('utf8')).toBe('{"a":1,"a":NaN}');
    await post('{"y":1e999}', { 'content-type': 'application/json; charset=utf-8' });
    expect(t.control.lastRaw?.toString('utf8')).toBe('{"y":1e999}');
  });
});

describe('one registry across the boundary', () => {
  it('every code the Rust engine can raise is in the service registry', async () => {
    const { engineErrorCodes } = await import('../src/native.js');
    const engine = engineErrorCodes();
    expect(engine.length).toBeGreaterThan(15);
    expect(engine.filter((code) => !(code in ERROR_CODES))).toEqual([]);
  });

  it('every code a blocking entry can carry is one the engine raises, in the data_invalid or limit_exceeded category', async () => {
    const { engineErrorCodes, REPORT_SHAPE } = await import('../src/native.js');
    const engine = new Set(engineErrorCodes());
    expect(REPORT_SHAPE.blockingCodes.length).toBeGreaterThan(5);
    for (const code of REPORT_SHAPE.blockingCodes) {
      expect(engine.has(code), code).toBe(true);
      expect(['data_invalid', 'limit_exceeded'], code).toContain(ERROR_CODES[code as keyof typeof ERROR_CODES].category);
    }
  });
});

// The same codes and headers through a real listening server (port 0), not only inject.
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, makeTestApp, waitFor, type TestApp } from './helpers/app.js';
import { TEST_CLEAN, TEST_FORECAST } from './helpers/routes.js';

let t: TestApp;
let base: string;
let port: number;

beforeAll(async () => {
  t = await makeTestApp({ HORA_FORECAST_RPM: '1000', HORA_BODY_LIMIT_BYTES: String(1024 * 1024), HORA_DAILY_POINTS: '1000' });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const addr = t.app.server.address();
  port = typeof addr === 'object' && addr ? addr.port : 0;
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => t.close());

async function post(body: unknown, headers: Record<string, string> = {}, url = TEST_FORECAST) {
  const res = await fetch(base + url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(t.key), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

describe('over a listening server', () => {
  it('success carries X-Request-Id, X-Client-Request-Id and every X-RateLimit-* header', async () => {
    const r = await post({}, { 'x-request-id': 'trace-abcdef12' });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-request-id')).toBe(r.json().request_id);
    expect(r.headers.get('x-client-request-id')).toBe('trace-abcdef12');
    for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-ratelimit-limit-type', 'x-ratelimit-policy']) {
      expect(r.headers.get(h), h).not.toBeNull();
    }
  });

  it('auth errors: 401 INVALID_API_KEY, 403 INSUFFICIENT_SCOPE, 403 ACCOUNT_SUSPENDED, 403 ORG_PENDING_DELETION, 503 paused', async () => {
    expect((await post({}, { authorization: 'Bearer hora_test_x' })).json().error.code).toBe('INVALID_API_KEY');
    const noScope = String((await t.hora('key', 'create', '--account', 'acct', '--name', 'ns', '--scopes', '')).key);
    const scope = await post({}, bearer(noScope));
    expect([scope.status, scope.json().error.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    await t.hora('endpoint', 'pause', 'forecast');
    const paused = await post({});
    expect([paused.status, paused.json().error.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    expect(paused.headers.get('retry-after')).toBe('30');
    await t.hora('endpoint', 'resume', 'forecast');
    await t.hora('account', 'update', 'acct', '--suspended', 'true');
    expect((await post({})).json().error.code).toBe('ACCOUNT_SUSPENDED');
    await t.hora('account', 'update', 'acct', '--suspended', 'false');
    await t.hora('org', 'update', 'acme', '--pending-deletion', 'true');
    expect((await post({})).json().error.code).toBe('ORG_PENDING_DELETION');
    await t.hora('org', 'update', 'acme', '--pending-deletion', 'false');
  });

  it('idempotency: replay, KEY_REUSED, IN_PROGRESS, Deprecation and header errors', async () => {
    const first = await post({ n: 1 }, { 'idempotency-key': 'srv-1' });
    const replay = await post({ n: 1 }, { 'idempotency-key': 'srv-1' });
    expect(replay.headers.get('x-idempotent-replayed')).toBe('true');
    expect(replay.json().request_id).toBe(first.json().request_id);
    expect(replay.headers.get('x-request-id')).toBe(first.json().request_id);
    expect((await post({ n: 2 }, { 'idempotency-key': 'srv-1' })).json().error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const runs = t.control.runs;
    const slow = post({ gate: 'srv' }, { 'idempotency-key': 'srv-2' });
    await waitFor(() => t.control.runs === runs + 1);
    const busy = await post({ gate: 'srv' }, { 'idempotency-key': 'srv-2' });
    expect([busy.status, busy.json().error.code]).toEqual([409, 'IDEMPOTENCY_IN_PROGRESS']);
    t.control.open('srv');
    expect((await slow).status).toBe(200);
    const alias = await post({ n: 3 }, { 'x-idempotency-key': 'srv-3' });
    expect(alias.headers.get('deprecation')).toBe('@1791417600');
    const conflict = await post({}, { 'idempotency-key': 'a', 'x-idempotency-key': 'b' });
    expect([conflict.status, conflict.json().error.details.field]).toEqual([400, 'Idempotency-Key']);
  });

  it('429 for the daily quota carries Retry-After and the daily headers', async () => {
    const r = await post({ reserve: 5000 });
    expect(r.status).toBe(429);
    expect(r.headers.get('x-ratelimit-limit-type')).toBe('daily');
    expect(r.headers.get('x-ratelimit-policy')).toBe('forecast-daily-points');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a handler crash is a 500 envelope and the server keeps serving', async () => {
    const r = await post({ crash: true });
    expect([r.status, r.json().error.code]).toEqual([500, 'INTERNAL_SERVER_ERROR']);
    expect(r.text).not.toMatch(/secret/);
    expect((await post({})).status).toBe(200);
  });

  it('a keyed request whose client disconnects after its whole body runs to its end, and the retry replays it', async () => {
    const body = JSON.stringify({ gate: 'disconnect', reserve: 10, settle: { input: 4, forecast: 2 } });
    const runs = t.control.runs;
    const billed = Number((await t.hora('usage', 'acct')).billed_points);
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(`POST ${TEST_FORECAST} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\nContent-Type: application/json\r\nIdempotency-Key: gone-1\r\nContent-Length: ${body.length}\r\n\r\n${body}`),
    );
    await waitFor(() => t.control.runs === runs + 1);
    socket.destroy();
    await new Promise((r) => setTimeout(r, 50));
    t.control.open('disconnect');
    // 409 while the first still finishes, then its stored outcome.
    let retry = await post(body, { 'idempotency-key': 'gone-1' });
    for (let i = 0; i < 100 && retry.status === 409; i++) {
      await new Promise((r) => setTimeout(r, 20));
      retry = await post(body, { 'idempotency-key': 'gone-1' });
    }
    expect(retry.status).toBe(200);
    expect(retry.headers.get('x-idempotent-replayed')).toBe('true');
    expect(t.control.runs).toBe(runs + 1);
    // Billed once, for the run whose answer was lost.
    expect(Number((await t.hora('usage', 'acct')).billed_points)).toBe(billed + 6);
  });

  it('a client that half-closes after sending its request gets the answer, and it is billed once', async () => {
    const body = JSON.stringify({ gate: 'half-close', reserve: 10, settle: { input: 4, forecast: 2 } });
    const runs = t.control.runs;
    const billed = Number((await t.hora('usage', 'acct')).billed_points);
    // The FIN reaches the server while the handler is held at its gate.
    const exchange = rawExchange(`POST ${TEST_FORECAST} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    await waitFor(() => t.control.runs === runs + 1);
    await new Promise((r) => setTimeout(r, 50));
    t.control.open('half-close');
    const text = await exchange;
    expect(text.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(text.split('HTTP/1.1 ').length - 1).toBe(1);
    expect(Number((await t.hora('usage', 'acct')).billed_points)).toBe(billed + 6);
  });

  it('two Authorization headers are 401 INVALID_API_KEY, whichever comes first', async () => {
    const body = '{"a":1}';
    const send = (first: string, second: string) =>
      rawExchange(`POST ${TEST_CLEAN} HTTP/1.1\r\nHost: x\r\nAuthorization: ${first}\r\nauthorization: ${second}\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    for (const [first, second] of [[`Bearer ${t.key}`, 'Basic Zm9vOmJhcg=='], [`Bearer ${t.key}`, `Bearer ${t.key}`]]) {
      const text = await send(first!, second!);
      expect(text.split('\r\n')[0]).toBe('HTTP/1.1 401 Unauthorized');
      expect(JSON.parse(text.split('\r\n\r\n')[1]).error.code).toBe('INVALID_API_KEY');
    }
  });

  it('two Content-Type headers are 400 VALIDATION_ERROR naming Content-Type, whichever comes first', async () => {
    const body = '{"a":1}';
    for (const [first, second] of [['application/json', 'text/plain'], ['text/plain', 'application/json'], ['application/json', 'application/json']]) {
      const text = await rawExchange(
        `POST ${TEST_CLEAN} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\nContent-Type: ${first}\r\ncontent-type: ${second}\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      expect(text.split('\r\n')[0], `${first}, ${second}`).toBe('HTTP/1.1 400 Bad Request');
      expect(JSON.parse(text.split('\r\n\r\n')[1]).error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'Content-Type' } });
    }
  });

  it('unopened paths are a plain 404', async () => {
    const r = await fetch(`${base}/cn/v1/forecast`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(404);
    expect(await r.text()).toBe('Not Found');
  });

  it('clean endpoint: clean-rpm headers on success', async () => {
    const r = await post({}, {}, TEST_CLEAN);
    expect(r.headers.get('x-ratelimit-policy')).toBe('clean-rpm');
  });

  it('a declared 100 MB body is answered 422 POINTS_EXCEEDED before it is sent in full', async () => {
    const declared = 100 * 1024 * 1024;
    const result = await new Promise<{ status: number; body: string; sentAtAnswer: number }>((resolve, reject) => {
      let sent = 0;
      let sentAtAnswer = -1;
      const req = request({ host: '127.0.0.1', port, method: 'POST', path: TEST_FORECAST, headers: { 'content-type': 'application/json', 'content-length': declared, ...bearer(t.key) } }, (res) => {
        sentAtAnswer = sent;
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, sentAtAnswer }));
      });
      req.on('error', (e) => (sent > 0 ? undefined : reject(e)));
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      // Keeps sending, up to the whole declared body, until the answer comes.
      const pump = (): void => {
        while (sentAtAnswer < 0 && sent < declared) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
      };
      pump();
    });
    expect(result.status).toBe(422);
    expect(JSON.parse(result.body).error.code).toBe('POINTS_EXCEEDED');
    // Answered on the declared length: a server that read the body first would answer at 100 MB.
    expect(result.sentAtAnswer).toBeGreaterThanOrEqual(0);
    expect(result.sentAtAnswer).toBeLessThan(8 * 1024 * 1024);
  });

  it('a chunked body without Content-Length is cut at the limit with POINTS_EXCEEDED', async () => {
    const result = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method: 'POST', path: TEST_FORECAST, headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...bearer(t.key) } }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', () => undefined);
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      let sent = 0;
      const pump = (): void => {
        while (sent < 3 * 1024 * 1024) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
      setTimeout(() => reject(new Error('no answer')), 10_000).unref();
    });
    expect(result.status).toBe(422);
    expect(JSON.parse(result.body).error.code).toBe('POINTS_EXCEEDED');
  });

  it('a body sent in small pieces, with or without Content-Length, is read whole', async () => {
    const rows = Array.from({ length: 64 }, (_, i) => ({ unique_id: 'é-1', ds: new Date(Date.UTC(2024, 0, 1, i)).toISOString(), y: Math.sin(i / 3) }));
    const bytes = Buffer.from(JSON.stringify({ series: rows, h: 3, freq: 'h' }));
    for (const framing of [{ 'content-length': String(bytes.length) }, { 'transfer-encoding': 'chunked' }]) {
      const result = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/forecast', headers: { 'content-type': 'application/json', ...framing, ...bearer(t.key) } }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        // Pieces of 7 bytes: a multi-byte character is split between two of them.
        let at = 0;
        const pump = (): void => {
          if (at >= bytes.length) return void req.end();
          req.write(bytes.subarray(at, at + 7));
          at += 7;
          setImmediate(pump);
        };
        pump();
      });
      expect(result.status, result.body.slice(0, 200)).toBe(200);
      expect(JSON.parse(result.body).forecast, result.body.slice(0, 300)).toHaveLength(3);
    }
  });
});

/**
 * Sends raw bytes and reads until the server closes. With `halfClose` the client ends its side
 * at once (Node then aborts requests still running); without it, it only writes.
 */
function rawExchange(bytes: string, halfClose = true, more: string[] = []): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      if (halfClose) socket.end(bytes);
      else socket.write(bytes);
      more.forEach((chunk, i) => setTimeout(() => socket.writable && socket.write(chunk), 20 * (i + 1)));
    });
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

describe('bytes the HTTP parser refuses', () => {
  const head = (extra: string) =>
    `POST /v1/forecast HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\nContent-Type: application/json\r\n${extra}\r\n`;

  it('a malformed chunk after the idempotency key alias alone carries Deprecation, as every answer to such a request does', async () => {
    const chunked = (key: string) => head(`${key}\r\nTransfer-Encoding: chunked\r\n`) + 'zz\r\n{"a":1}\r\n0\r\n\r\n';
    const alias = (await rawExchange(chunked('X-Idempotency-Key: k-chunk'))).split('\r\n\r\n')[0]!.toLowerCase();
    expect(alias.startsWith('http/1.1 400')).toBe(true);
    expect(alias).toContain('deprecation: @1791417600');
    const primary = (await rawExchange(chunked('Idempotency-Key: k-chunk'))).split('\r\n\r\n')[0]!.toLowerCase();
    expect(primary.startsWith('http/1.1 400')).toBe(true);
    expect(primary).not.toContain('deprecation');
    // So does the Host refusal, made by a root hook before any plugin's.
    const hostless = (await rawExchange(chunked('X-Idempotency-Key: k-chunk').replace('Host: x\r\n', ''))).toLowerCase();
    expect(hostless.startsWith('http/1.1 400')).toBe(true);
    expect(hostless).toContain('deprecation: @1791417600');
  });

  it('a malformed Content-Length, chunk or header gets the envelope with a request id, never a bare 400', async () => {
    const cases: Array<[string, number, string]> = [
      [head('Content-Length: abc\r\n') + '{"a":1}', 400, 'MALFORMED_JSON'],
      [head('Content-Length: 7\r\nTransfer-Encoding: chunked\r\n') + '{"a":1}', 400, 'MALFORMED_JSON'],
      [head('Transfer-Encoding: chunked\r\n') + 'zz\r\n{"a":1}\r\n0\r\n\r\n', 400, 'MALFORMED_JSON'],
      [head('Idempotency-Key: a\x7fb\r\nContent-Length: 7\r\n') + '{"a":1}', 400, 'VALIDATION_ERROR'],
      [head(`X-Filler: ${'x'.repeat(20_000)}\r\nContent-Length: 7\r\n`) + '{"a":1}', 400, 'VALIDATION_ERROR'],
    ];
    for (const [bytes, status, code] of cases) {
      const text = await rawExchange(bytes);
      const [headers, body] = text.split('\r\n\r\n');
      expect(headers.split('\r\n')[0], bytes.slice(0, 200)).toBe(`HTTP/1.1 ${status} Bad Request`);
      const json = JSON.parse(body);
      expect(json.error.code).toBe(code);
      expect(json.error.request_id).toMatch(/^req_/);
      expect(headers).toContain(`X-Request-Id: ${json.error.request_id}`);
      // Every response carries X-Client-Request-Id; here no header was read to echo.
      expect(headers).toMatch(/\r\nX-Client-Request-Id: \r\n/);
    }
  });

  it('a control character in a header value is 400 VALIDATION_ERROR naming that header', async () => {
    const refusal = async (bytes: string) => {
      const text = await rawExchange(bytes);
      expect(text.split('\r\n')[0], bytes.slice(0, 200)).toBe('HTTP/1.1 400 Bad Request');
      return JSON.parse(text.split('\r\n\r\n')[1]).error;
    };
    const body = 'Content-Length: 7\r\n';
    // Named as the contract spells it, whatever the case it was sent in.
    const key = await refusal(head(`idempotency-key: a\x01b\r\n${body}`) + '{"a":1}');
    expect(key.code).toBe('VALIDATION_ERROR');
    expect(key.details).toEqual({ field: 'Idempotency-Key' });
    expect(key.message).toBe('Idempotency-Key must be 1 to 255 printable ASCII characters.');
    expect((await refusal(head(`X-Idempotency-Key: a\x7fb\r\n${body}`) + '{"a":1}')).details).toEqual({ field: 'X-Idempotency-Key' });
    const id = await refusal(head(`X-Request-Id: abc\x01defgh\r\n${body}`) + '{"a":1}');
    expect(id.details).toEqual({ field: 'X-Request-Id' });
    expect(id.message).toBe('The X-Request-Id header could not be read: its value holds a control character.');
    // Behind a request answered on the same connection, the line is found in the later request.
    const get = 'GET /v1/nowhere HTTP/1.1\r\nHost: x\r\n\r\n';
    const text = await rawExchange(get + head(`Idempotency-Key: a\x01b\r\n${body}`) + '{"a":1}');
    expect(text.startsWith('HTTP/1.1 404 Not Found')).toBe(true);
    expect(JSON.parse(text.split('\r\n\r\n').at(-1) as string).error.details).toEqual({ field: 'Idempotency-Key' });
    // A byte the parser refuses in a header's name leaves no header to name.
    expect((await refusal(head(`Bad Name: v\r\n${body}`) + '{"a":1}')).details).toEqual({ field: 'headers' });
  });

  it('an Idempotency-Key sent after 2,000 other headers is still read', async () => {
    // Node's default drops headers past the 2,000th unseen; a key too long shows it was read.
    const text = await rawExchange(head(`${'a:\r\n'.repeat(2001)}Idempotency-Key: ${'k'.repeat(256)}\r\nContent-Length: 7\r\n`) + '{"a":1}');
    expect(text.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(text.split('\r\n\r\n')[1]).error.details).toEqual({ field: 'Idempotency-Key' });
  });

  it('bad bytes pipelined behind a request are refused only after that request is answered in full', async () => {
    const body = JSON.stringify({ gate: 'pipelined', bytes: 300_000 });
    const good = `POST ${TEST_FORECAST} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const runs = t.control.runs;
    // More bytes after the bad ones: Node reports the error again for each chunk, and it is
    // answered once.
    const exchange = rawExchange(good + head('Content-Length: abc\r\n') + '{}', false, ['x'.repeat(70_000), 'y'.repeat(70_000)]);
    await waitFor(() => t.control.runs === runs + 1);
    t.control.open('pipelined');
    const text = await exchange;
    const [first, second] = text.split('HTTP/1.1 ').slice(1);
    expect(first.startsWith('200 OK')).toBe(true);
    const length = Number(/content-length: (\d+)/i.exec(first)![1]);
    expect(length).toBe(300_000);
    expect(first.split('\r\n\r\n')[1].length).toBe(length);
    expect(second.startsWith('400 Bad Request')).toBe(true);
    expect(JSON.parse(second.split('\r\n\r\n')[1]).error.code).toBe('MALFORMED_JSON');
    expect(text.split('HTTP/1.1 ').length - 1).toBe(2);
  });

  it('a malformed request line is refused as such, not blamed on the body framing', async () => {
    for (const line of ['POST v1/forecast HTTP/1.1', 'POST /v1/forecast HTTP/1.2']) {
      const text = await rawExchange(`${line}\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}`);
      expect(text.split('\r\n')[0], line).toBe('HTTP/1.1 400 Bad Request');
      expect(JSON.parse(text.split('\r\n\r\n')[1]).error.message, line).toBe('The request line (method, path, HTTP version) could not be read.');
    }
    // An HTTP/2 preface (prior knowledge, no upgrade) is a request line HTTP/1.1 cannot read.
    const h2 = await rawExchange('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
    expect(h2.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(h2.split('\r\n\r\n')[1]).error.message).toBe('The request line (method, path, HTTP version) could not be read.');
  });

  it('an HTTP/1.0 request with Transfer-Encoding is refused and its connection closed: a request in its chunks never runs', async () => {
    const hidden = JSON.stringify({ gate: 'never' });
    const inner = `POST ${TEST_CLEAN} HTTP/1.0\r\nAuthorization: Bearer ${t.key}\r\nContent-Type: application/json\r\nContent-Length: ${hidden.length}\r\n\r\n${hidden}`;
    const chunk = `${inner.length.toString(16)}\r\n${inner}\r\n0\r\n\r\n`;
    const runs = t.control.runs;
    const text = await rawExchange(
      `POST ${TEST_FORECAST} HTTP/1.0\r\nAuthorization: Bearer ${t.key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n${chunk}${inner}`,
    );
    expect(text.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(text.split('\r\n\r\n')[1]).error.code).toBe('MALFORMED_JSON');
    expect(text.toLowerCase()).toContain('connection: close');
    // One answer only: neither the chunks nor the request after them ran.
    expect(text.split('HTTP/1.1 ').length - 1).toBe(1);
    expect(t.control.runs).toBe(runs);
  });

  it('a URL that cannot be decoded is an unopened path: the plain 404, with the ids every response carries', async () => {
    const r = await post({}, { 'x-request-id': 'client-id-1' }, '/v1/forecast%zz');
    expect(r.status).toBe(404);
    expect(r.text).toBe('Not Found');
    expect(r.headers.get('x-request-id')).toMatch(/^req_/);
    expect(r.headers.get('x-client-request-id')).toBe('client-id-1');
  });

  it('an HTTP/1.1 request without Host is 400 VALIDATION_ERROR naming Host, in the envelope', async () => {
    const body = '{"a":1}';
    const text = await rawExchange(
      `POST ${TEST_CLEAN} HTTP/1.1\r\nAuthorization: Bearer ${t.key}\r\nContent-Type: application/json\r\nX-Request-Id: no-host-1\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    const [headers, json] = text.split('\r\n\r\n');
    expect(headers.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    const error = JSON.parse(json).error;
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'Host' } });
    expect(headers.toLowerCase()).toContain(`x-request-id: ${error.request_id}`);
    expect(headers.toLowerCase()).toContain('x-client-request-id: no-host-1');
    expect(headers.toLowerCase()).toContain('connection: close');
    // On every path, an unopened one too: the Host rule comes before routing.
    const unopened = await rawExchange(`GET /nowhere HTTP/1.1\r\nX-Request-Id: no-host-2\r\n\r\n`);
    const [unopenedHeaders, unopenedJson] = unopened.split('\r\n\r\n');
    expect(unopenedHeaders.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(unopenedHeaders.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(unopenedJson).error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'Host' } });
    // HTTP/1.0 has no Host requirement.
    const old = await rawExchange(`GET /openapi.json HTTP/1.0\r\n\r\n`);
    expect(old.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    // Two Host headers, or one that is not `host [":" port]`, are refused alike.
    for (const hosts of ['Host: a\r\nHost: b\r\n', 'Host: a b\r\n', 'Host: ::1\r\n', 'Host: [::1\r\n', 'Host: x:abc\r\n', 'Host: a:b:c\r\n', 'Host: ex%zzmple\r\n', 'Host: [:]\r\n', 'Host: [...]\r\n', 'Host: [::1]x\r\n']) {
      const text = await rawExchange(`GET /openapi.json HTTP/1.1\r\n${hosts}\r\n`);
      expect(text.split('\r\n')[0], hosts).toBe('HTTP/1.1 400 Bad Request');
    }
    for (const host of ['', '[::1]:8080', '[v1.fe]', 'x:8080', 'EXAMPLE.com.', 'a%41b', '127.0.0.1']) {
      const text = await rawExchange(`GET /openapi.json HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(text.split('\r\n')[0], host).toBe('HTTP/1.1 200 OK');
    }
  });

  it('an unopened path is the plain 404 whatever else is wrong: QUERY without a Content-Type, a compressed body', async () => {
    const body = '{"a":1}';
    for (const head of ['QUERY /cn/v1/forecast HTTP/1.1\r\n', 'QUERY /v1/clean HTTP/1.1\r\n', `POST /cn/v1/forecast HTTP/1.1\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: ${body.length}\r\n`]) {
      const text = await rawExchange(`${head}Host: x\r\nConnection: close\r\n\r\n${head.startsWith('POST') ? body : ''}`);
      expect(text.split('\r\n')[0], head).toBe('HTTP/1.1 404 Not Found');
      expect(text.endsWith('\r\n\r\nNot Found')).toBe(true);
    }
  });

  it('bad chunks after a request was answered before its body get no second response', async () => {
    for (const head of ['POST /cn/v1/forecast HTTP/1.1\r\nHost: x\r\n', `POST ${TEST_CLEAN} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n`]) {
      // The 404 (or 401: no key) is sent at the headers; the bad chunk arrives 100 ms later.
      const text = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(`${head}Transfer-Encoding: chunked\r\n\r\n`);
          setTimeout(() => socket.writable && socket.write('zz\r\n{"a":1}\r\n0\r\n\r\n'), 100);
        });
        let out = '';
        socket.on('data', (c: Buffer) => (out += c.toString('latin1')));
        socket.on('close', () => resolve(out));
        socket.on('error', reject);
      });
      expect(text.match(/HTTP\/1\.1 \d{3} /g), head).toHaveLength(1);
    }
  });

  it('an Expect other than 100-continue is ignored, not answered with a bare 417', async () => {
    const body = '{"a":1}';
    const live = await rawExchange(
      `POST ${TEST_CLEAN} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\nContent-Type: application/json\r\nExpect: foo\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(live.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    const unopened = await rawExchange('GET /cn/v1/forecast HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nConnection: close\r\n\r\n');
    expect(unopened.split('\r\n')[0]).toBe('HTTP/1.1 404 Not Found');
  });

  it('100 Continue is sent only when the body is about to be read, not before a refusal at the headers', async () => {
    // The body goes only after 100 Continue, as curl sends a large one.
    const exchange = (head: string, body: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(head));
        let text = '';
        socket.on('data', (c: Buffer) => {
          const first = text === '';
          text += c.toString('latin1');
          if (first && text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) socket.write(body);
        });
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
    const body = '{"a":1}';
    const head = (key: string, extra = '') =>
      `POST ${TEST_CLEAN} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nConnection: close\r\n${extra}`;
    const read = await exchange(head(t.key, `Content-Length: ${body.length}\r\n\r\n`), body);
    expect(read.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 100', 'HTTP/1.1 200']);
    // Refused at the headers: the final answer alone, and the connection closed after it.
    const refused: Array<[string, string]> = [
      [head('hora_live_not_a_key', `Content-Length: ${body.length}\r\n\r\n`), 'HTTP/1.1 401'],
      [head(t.key, `Content-Length: ${2 * 1024 * 1024}\r\n\r\n`), 'HTTP/1.1 422'],
      [head(t.key, `Content-Length: ${body.length}\r\n\r\n`).replace('application/json', 'text/csv'), 'HTTP/1.1 400'],
      // JSON named first, then a second media type, or a coding the parser does not undo: as refused
      // at the headers as a single other media type, in either order.
      [head(t.key, `Content-Type: text/plain\r\nContent-Length: ${body.length}\r\n\r\n`), 'HTTP/1.1 400'],
      [head(t.key, `Content-Encoding: gzip\r\nContent-Length: ${body.length}\r\n\r\n`), 'HTTP/1.1 400'],
      // An unopened path: its plain 404, the body never asked for.
      [head(t.key, `Content-Length: ${body.length}\r\n\r\n`).replace(TEST_CLEAN, '/v1/jobs'), 'HTTP/1.1 404'],
    ];
    for (const [bytes, status] of refused) {
      const text = await exchange(bytes, body);
      expect(text.match(/HTTP\/1\.1 \d{3}/g), status).toEqual([status]);
      expect(text.toLowerCase()).toContain('connection: close');
    }
  });

  it('an unopened path answers its 404 at the headers, without waiting for a body it never reads', async () => {
    // 1,000,000 bytes declared (under the limit), 10 sent: the answer comes without the rest.
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () =>
        socket.write(`POST /v1/nothing HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{"a": 1, "`),
      );
      let got = '';
      const timer = setTimeout(() => {
        socket.destroy();
        resolve(got);
      }, 3000);
      socket.on('data', (c: Buffer) => {
        got += c.toString('latin1');
        if (got.endsWith('Not Found')) socket.destroy();
      });
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(got);
      });
      socket.on('error', reject);
    });
    expect(text.startsWith('HTTP/1.1 404')).toBe(true);
  });

  it('a request pipelined behind an unopened path with a body is answered on the same connection', async () => {
    const body = '{"a":1}';
    const lost = `POST /v1/nothing HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const good = `POST ${TEST_CLEAN} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const text = await rawExchange(lost + good);
    expect(text.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 404', 'HTTP/1.1 200']);
  });

  it('a request pipelined behind one without Host is never run, since the 400 closes the connection', async () => {
    const body = '{"a":1}';
    const good = `POST ${TEST_FORECAST} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const runs = t.control.runs;
    const text = await rawExchange(good.replace('Host: x\r\n', '') + good);
    expect(text.match(/HTTP\/1\.1 \d{3} /g)).toEqual(['HTTP/1.1 400 ']);
    await new Promise((r) => setTimeout(r, 50));
    expect(t.control.runs).toBe(runs);
  });

  it('CONNECT pipelined behind a request is answered after that request, in full', async () => {
    const body = JSON.stringify({ bytes: 200_000 });
    const good = `POST ${TEST_FORECAST} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const text = await rawExchange(good + 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    const [first, second] = text.split('HTTP/1.1 ').slice(1);
    expect(first!.startsWith('200 OK')).toBe(true);
    expect(first!.split('\r\n\r\n')[1]!.length).toBe(200_000);
    expect(second!.startsWith('404 Not Found')).toBe(true);
  });

  it('a method the parser does not know, and CONNECT, open no path: the plain 404', async () => {
    for (const bytes of [`FOO ${TEST_CLEAN} HTTP/1.1\r\nHost: x\r\n\r\n`, `post ${TEST_CLEAN} HTTP/1.1\r\nHost: x\r\n\r\n`, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n']) {
      const text = await rawExchange(bytes);
      const [headers, body] = text.split('\r\n\r\n');
      expect(headers.split('\r\n')[0], bytes.slice(0, 20)).toBe('HTTP/1.1 404 Not Found');
      expect(body).toBe('Not Found');
      expect(headers).toMatch(/\r\nX-Request-Id: req_[0-9a-f]+\r\n/);
    }
    // The caller's own id is echoed there too.
    const connect = await rawExchange('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nX-Request-Id: trace-connect-1\r\n\r\n');
    expect(connect.split('\r\n\r\n')[0]).toMatch(/\r\nX-Client-Request-Id: trace-connect-1\r\n/);
  });
});

describe('over a listening server with tight limits', () => {
  let s: TestApp;
  let url: string;
  beforeAll(async () => {
    s = await makeTestApp({ HORA_FORECAST_RPM: '4', HORA_CLEAN_CAPACITY: '1', HORA_INFERENCE_SLOTS: '1', HORA_INFERENCE_QUEUE: '0', HORA_REQUEST_BUDGET_MS: '100' });
    await s.app.listen({ host: '127.0.0.1', port: 0 });
    const addr = s.app.server.address();
    url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  });
  afterAll(async () => s.close());

  const send = async (path: string, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) => {
    const res = await fetch(url + path, { method: 'POST', headers: { ...bearer(s.key), ...headers }, body: JSON.stringify(body) });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };

  it('503 MODEL_BUSY, 504 GATEWAY_TIMEOUT, 503 cleaning capacity, 400 Content-Type, 429 forecast-rpm', async () => {
    const running = send(TEST_FORECAST, { infer_gate: 'srv-late' });
    await waitFor(() => s.app.capacity.inference.running === 1);
    const busy = await send(TEST_FORECAST, { infer_ms: 1 });
    expect([busy.status, busy.body.error.code, busy.headers.get('retry-after')]).toEqual([503, 'MODEL_BUSY', '1']);
    const late = await running;
    expect([late.status, late.body.error.code]).toEqual([504, 'GATEWAY_TIMEOUT']);
    s.control.open('srv-late');

    const cleaning = send(TEST_CLEAN, { gate: 'tight' });
    await waitFor(() => s.app.capacity.cleaning.running === 1);
    const full = await send(TEST_CLEAN, {});
    expect([full.status, full.body.error.code, full.headers.get('retry-after')]).toEqual([503, 'SERVICE_UNAVAILABLE', '1']);
    s.control.open('tight');
    expect((await cleaning).status).toBe(200);

    const media = await send(TEST_FORECAST, {}, { 'content-type': 'text/csv' });
    expect([media.status, media.body.error.code, media.body.error.details.field]).toEqual([400, 'VALIDATION_ERROR', 'Content-Type']);
    const malformed = await fetch(url + TEST_FORECAST, { method: 'POST', headers: { ...bearer(s.key), 'content-type': 'application/json' }, body: '{"a":' });
    expect([malformed.status, ((await malformed.json()) as any).error.code]).toEqual([400, 'MALFORMED_JSON']);

    // Four forecast calls counted this minute (the 504, the 503 MODEL_BUSY, the bad media type
    // and the malformed body: both refused while parsing, after the per-minute step).
    const limited = await send(TEST_FORECAST, {});
    expect([limited.status, limited.body.error.code, limited.headers.get('x-ratelimit-policy')]).toEqual([429, 'RATE_LIMIT_EXCEEDED', 'forecast-rpm']);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

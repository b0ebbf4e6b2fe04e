// A client that stops mid-request is cut by the request timeout, and a shutdown closes what is
// still open after its grace period (short timeouts through the app's overrides).
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { REQUEST_TIMEOUT_MS } from '../src/app.js';
import { utcDay } from '../src/plugins/limits.js';
import { closeGracefully, shutdownGraceMs } from '../src/shutdown.js';
import { SqliteStore } from '../src/store/sqlite.js';
import { makeTestApp, waitFor, type TestApp } from './helpers/app.js';
import { TEST_FORECAST } from './helpers/routes.js';

let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

async function listening(requestTimeoutMs: number): Promise<{ app: TestApp; port: number }> {
  t = await makeTestApp({}, { requestTimeoutMs });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const addr = t.app.server.address();
  return { app: t, port: typeof addr === 'object' && addr ? addr.port : 0 };
}

/** A raw connection that records what the server sends and when it closes. */
function rawClient(port: number): { socket: Socket; received: () => string; closed: () => boolean } {
  const socket = connect(port, '127.0.0.1');
  let data = '';
  let closed = false;
  socket.on('data', (d) => (data += d.toString('latin1')));
  socket.on('error', () => {});
  socket.on('close', () => (closed = true));
  return { socket, received: () => data, closed: () => closed };
}

/** A raw POST to the test forecast route announcing `length` body bytes, followed by `sent`. */
function rawPost(key: string, sent: string, length = sent.length): string {
  return `POST ${TEST_FORECAST} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n${sent}`;
}

/** A forecast on the test route that waits at `gate` until the test opens it. */
function gatedForecast(port: number, key: string, gate: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}${TEST_FORECAST}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ gate }),
  });
}

/** Reads the closed app's store: its usage today and the idempotency state of `key`'s record. */
async function afterClose(app: TestApp, key?: string): Promise<{ billed: number; forecasts: number; record?: unknown }> {
  const store = await SqliteStore.open(app.config.dataDir);
  try {
    const usage = await store.usageForDay('acct', utcDay(app.clock.now()));
    // Another body under the key: "reused" when the first's outcome was stored.
    const scope = { keyId: app.keyId, route: TEST_FORECAST, idempotencyKey: key ?? '' };
    const record = key === undefined ? undefined : (await store.idempotencyBegin(scope, 'another body', 'req_probe', app.clock.now(), 60_000)).state;
    return { billed: usage.billedPoints, forecasts: usage.requests.forecast, record };
  } finally {
    await store.close();
  }
}

/**
 * Two forecasts pipelined on one connection, the connection reset while both run, then both let
 * finish (`extra` goes into each body).
 */
async function pipelinedThenReset(app: TestApp, port: number, gates: [string, string], extra: Record<string, unknown> = {}): Promise<void> {
  const client = rawClient(port);
  client.socket.write(gates.map((gate) => rawPost(app.key, JSON.stringify({ gate, ...extra }))).join(''));
  await waitFor(() => app.control.runs === 2);
  client.socket.resetAndDestroy();
  await waitFor(client.closed, 1000);
  for (const gate of gates) app.control.open(gate);
}

/** Headers announcing a 1000-byte body, then 10 bytes of it, then nothing. */
function stallMidBody(socket: Socket, key: string): void {
  socket.write(rawPost(key, '{"n": 1234', 1000));
}

describe('request timeout and shutdown', () => {
  it('the service sets a request timeout: Fastify would otherwise wait for a body forever', async () => {
    // No override: the app's own default applies.
    t = await makeTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    expect(REQUEST_TIMEOUT_MS).toBe(120_000);
    expect(t.app.server.requestTimeout).toBe(REQUEST_TIMEOUT_MS);
    expect(t.app.server.headersTimeout).toBe(60_000);
  });

  it('a client that stops sending mid-body gets a 400 MALFORMED_JSON envelope and its connection is closed', async () => {
    const { app, port } = await listening(300);
    const client = rawClient(port);
    client.socket.write(rawPost(app.key, '{"n": 1234', 1000).replace('\r\n\r\n', '\r\nX-Request-Id: client-trace-01\r\n\r\n'));
    await waitFor(client.closed, 5000);
    const [head, body] = client.received().split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(head).toContain('Connection: close');
    // Its headers were read: the caller's id is echoed as on any response.
    expect(head).toContain('X-Client-Request-Id: client-trace-01');
    const requestId = /X-Request-Id: (req_\w+)/.exec(head)?.[1];
    expect(JSON.parse(body!).error).toMatchObject({ code: 'MALFORMED_JSON', category: 'invalid_request', request_id: requestId });
    expect(app.control.runs).toBe(0);
    // The service goes on answering.
    const ok = await app.app.inject({ method: 'POST', url: TEST_FORECAST, headers: { authorization: `Bearer ${app.key}`, 'content-type': 'application/json' }, payload: '{}' });
    expect(ok.statusCode).toBe(200);
  });

  it('a request timed out behind one still running is refused after that one is answered, and never runs', async () => {
    const { app, port } = await listening(300);
    const client = rawClient(port);
    const gated = JSON.stringify({ gate: 'ahead' });
    client.socket.write(rawPost(app.key, gated));
    await waitFor(() => app.control.runs === 1);
    stallMidBody(client.socket, app.key);
    // Past the timeout (Node checks a tenth of it at a time), then the rest of the stalled body.
    await new Promise((r) => setTimeout(r, 700));
    client.socket.write(`}${' '.repeat(989)}`);
    app.control.open('ahead');
    await waitFor(client.closed, 5000);
    const answers = client.received().split('HTTP/1.1 ').slice(1);
    expect(answers.map((a) => a.slice(0, 3))).toEqual(['200', '400']);
    expect(app.control.runs).toBe(1);
  });

  it('the timeout is on receiving the request: a handler that runs longer is still answered', async () => {
    const { app, port } = await listening(300);
    const pending = gatedForecast(port, app.key, 'slow');
    await waitFor(() => app.control.runs === 1);
    await new Promise((r) => setTimeout(r, 900));
    app.control.open('slow');
    expect((await pending).status).toBe(200);
  });

  it('a shutdown closes a connection still sending its body once the grace period is over', async () => {
    const { app, port } = await listening(60_000);
    const client = rawClient(port);
    stallMidBody(client.socket, app.key);
    await new Promise((r) => setTimeout(r, 50));
    // A close held past its 200 ms grace would show as this test's own timeout.
    await closeGracefully(app.app, 200);
    await waitFor(client.closed, 1000);
  });

  it('a shutdown lets a request in flight finish within the grace period', async () => {
    const { app, port } = await listening(60_000);
    const pending = gatedForecast(port, app.key, 'shutdown');
    await waitFor(() => app.control.runs === 1);
    // A grace longer than this test's timeout: the close must end because the connection went
    // idle, not because the deadline passed.
    const closing = closeGracefully(app.app, 120_000);
    setTimeout(() => app.control.open('shutdown'), 100);
    const res = await pending;
    expect(res.status).toBe(200);
    await closing;
  });

  it('a shutdown refuses new connections at once while a request in flight finishes', async () => {
    const { app, port } = await listening(60_000);
    const pending = gatedForecast(port, app.key, 'refuse');
    await waitFor(() => app.control.runs === 1);
    const closing = closeGracefully(app.app, 10_000);
    const refused = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.on('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');
    app.control.open('refuse');
    expect((await pending).status).toBe(200);
    await closing;
  });

  it('a shutdown sends a large response in full to a client that reads it slowly', async () => {
    const { app, port } = await listening(60_000);
    const size = 24 * 1024 * 1024;
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closed = false;
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', () => {});
    socket.on('close', () => (closed = true));
    socket.write(rawPost(app.key, JSON.stringify({ bytes: size })));
    // The response is ended on the server while most of it still waits in the socket.
    socket.pause();
    await waitFor(() => app.control.runs === 1);
    await new Promise((r) => setTimeout(r, 200));
    const closing = closeGracefully(app.app, 20_000);
    await new Promise((r) => setTimeout(r, 600));
    socket.resume();
    await waitFor(() => closed, 15_000);
    await closing;
    const received = Buffer.concat(chunks);
    const headEnd = received.indexOf('\r\n\r\n');
    const head = received.subarray(0, headEnd).toString('latin1');
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head).toContain(`content-length: ${size}`);
    expect(received.length - headEnd - 4).toBe(size);
  }, 30_000);

  it('a shutdown answers every request pipelined on one connection before closing it', async () => {
    const { app, port } = await listening(60_000);
    const client = rawClient(port);
    const request = (body: unknown) => rawPost(app.key, JSON.stringify(body));
    client.socket.write(request({ gate: 'pipelined' }) + request({ n: 2 }) + request({ n: 3 }));
    await waitFor(() => app.control.runs === 3);
    const closing = closeGracefully(app.app, 10_000);
    setTimeout(() => app.control.open('pipelined'), 100);
    await closing;
    await waitFor(client.closed, 2000);
    const heads = client.received().split('HTTP/1.1 ').slice(1);
    expect(heads.map((h) => h.slice(0, 3))).toEqual(['200', '200', '200']);
    // The first, answered during the shutdown, must not close the connection ahead of the two
    // queued behind it (Node would drop their responses after they ran).
    expect(/connection: close/i.test(heads[0]!)).toBe(false);
    expect(heads.map((h) => JSON.parse(h.slice(h.indexOf('\r\n\r\n') + 4)).run)).toEqual([1, 2, 3]);
    expect(app.control.runs).toBe(3);
  });

  it('during a shutdown a request sent behind a response that closes its connection is not run', async () => {
    const { app, port } = await listening(60_000);
    const size = 24 * 1024 * 1024;
    const client = rawClient(port);
    const request = (body: unknown) => rawPost(app.key, JSON.stringify(body));
    client.socket.write(request({ gate: 'last', bytes: size }));
    client.socket.pause();
    await waitFor(() => app.control.runs === 1);
    const closing = closeGracefully(app.app, 20_000);
    app.control.open('last');
    await new Promise((r) => setTimeout(r, 300));
    // Its response now carries Connection: close and is still being sent.
    client.socket.write(request({ n: 2 }));
    await new Promise((r) => setTimeout(r, 300));
    client.socket.resume();
    await closing;
    await waitFor(client.closed, 5000);
    expect(app.control.runs).toBe(1);
    expect(client.received().split('HTTP/1.1 ').length - 1).toBe(1);
    expect(client.received().toLowerCase()).toContain('connection: close');
  }, 30_000);

  it('a shutdown waits for a keyed request whose client reset its connection: it runs to its end and is billed', async () => {
    const { app, port } = await listening(60_000);
    const client = rawClient(port);
    const body = JSON.stringify({ gate: 'reset', reserve: 10, settle: { input: 4, forecast: 2 } });
    client.socket.write(rawPost(app.key, body).replace('\r\n\r\n', '\r\nIdempotency-Key: reset-1\r\n\r\n'));
    await waitFor(() => app.control.runs === 1);
    // A reset, not a FIN (a half-closed client is still reading): the connection is gone at once.
    client.socket.resetAndDestroy();
    await waitFor(client.closed, 1000);
    let closed = false;
    const closing = closeGracefully(app.app, 20_000).then(() => (closed = true));
    // Longer than the shutdown's idle check: a close that counted requests per connection ended
    // here, and its process exit dropped the run, its billing and its stored outcome.
    await new Promise((r) => setTimeout(r, 600));
    expect(closed).toBe(false);
    app.control.open('reset');
    await closing;
    // Billed, and its outcome stored.
    expect(await afterClose(app, 'reset-1')).toEqual({ billed: 6, forecasts: 1, record: 'reused' });
  });

  it('a request whose client resets its connection during a shutdown still runs to its end and is billed', async () => {
    const { app, port } = await listening(60_000);
    const client = rawClient(port);
    const body = JSON.stringify({ gate: 'reset-late', reserve: 10, settle: { input: 4, forecast: 2 } });
    client.socket.write(rawPost(app.key, body));
    await waitFor(() => app.control.runs === 1);
    let closed = false;
    const closing = closeGracefully(app.app, 20_000).then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 100));
    client.socket.resetAndDestroy();
    await waitFor(client.closed, 1000);
    await new Promise((r) => setTimeout(r, 600));
    expect(closed).toBe(false);
    app.control.open('reset-late');
    await closing;
    expect((await afterClose(app)).billed).toBe(6);
  });

  it('a request whose client reset its connection is let go once its response ends, not at the next request', async () => {
    const { app, port } = await listening(60_000);
    const client = rawClient(port);
    client.socket.write(rawPost(app.key, JSON.stringify({ gate: 'orphan', reserve: 10, settle: { input: 4, forecast: 2 } })));
    await waitFor(() => app.control.runs === 1);
    client.socket.resetAndDestroy();
    await waitFor(client.closed, 1000);
    expect(app.app.connections.pending).toBe(1);
    app.control.open('orphan');
    // Held until then, it kept its request and body (up to the body limit) on an idle server.
    await waitFor(() => app.app.connections.pending === 0, 2000);
    expect(Number((await app.hora('usage', 'acct')).billed_points)).toBe(6);
  });

  it('a shutdown does not wait for pipelined requests whose client reset their connection once they are answered', async () => {
    const { app, port } = await listening(60_000);
    await pipelinedThenReset(app, port, ['first', 'second'], { reserve: 10, settle: { input: 4, forecast: 2 } });
    await new Promise((r) => setTimeout(r, 100));
    // Both ran to their end and were billed; the second's response, queued behind the first's on
    // a connection that is gone, gets no prefinish: a grace longer than this test's timeout must
    // not be waited out for it.
    await closeGracefully(app.app, 120_000);
    expect(app.app.connections.pending).toBe(0);
    expect((await afterClose(app)).billed).toBe(12);
  });

  it('pipelined requests whose client reset their connection are let go on an idle server once answered', async () => {
    const { app, port } = await listening(60_000);
    await pipelinedThenReset(app, port, ['idle-first', 'idle-second']);
    // No other request comes: the second's queued response gets no prefinish, and a sweep each
    // second finds it ended (it held its body until the next request).
    await waitFor(() => app.app.connections.pending === 0, 3000);
  });

  it('a shutdown stops waiting at its deadline for a request whose client reset its connection', async () => {
    const { app, port } = await listening(60_000);
    const client = rawClient(port);
    client.socket.write(rawPost(app.key, JSON.stringify({ gate: 'never' })));
    await waitFor(() => app.control.runs === 1);
    client.socket.resetAndDestroy();
    await waitFor(client.closed, 1000);
    // A close held past its 300 ms grace would show as this test's own timeout.
    await closeGracefully(app.app, 300);
    app.control.open('never');
  });

  it('a shutdown does not wait for a request whose client reset its connection mid-body', async () => {
    const { app, port } = await listening(60_000);
    const client = rawClient(port);
    stallMidBody(client.socket, app.key);
    await new Promise((r) => setTimeout(r, 50));
    client.socket.resetAndDestroy();
    await waitFor(client.closed, 1000);
    // A grace longer than this test's timeout: the close must end because nothing is left to run.
    await closeGracefully(app.app, 120_000);
  });

  it('the grace period is the model wait plus the request budget plus 10 s, as docs/service.md states (45 s with the defaults)', () => {
    expect(shutdownGraceMs({ inferenceWaitMs: 5_000, requestBudgetMs: 30_000 })).toBe(45_000);
    expect(shutdownGraceMs({ inferenceWaitMs: 1_000, requestBudgetMs: 2_000 })).toBe(13_000);
  });

  it("the grace period never passes Node's longest timer, which would fire at once and cut the requests in flight", () => {
    const longest = 2 ** 31 - 1;
    expect(shutdownGraceMs({ inferenceWaitMs: 5_000, requestBudgetMs: longest })).toBe(longest);
    expect(shutdownGraceMs({ inferenceWaitMs: longest, requestBudgetMs: longest })).toBe(longest);
  });
});

// Test-only routes, registered through buildApp overrides, that drive the plugins the way the
// real forecast and clean handlers do (quota, capacity, ApiError), with knobs a test sets per
// request (gates, a reservation, a failure after it) that the real routes cannot offer.
import type { FastifyInstance } from 'fastify';
import { ApiError, type ErrorCode } from '../../src/errors.js';

export const TEST_FORECAST = '/v1/test/forecast';
export const TEST_CLEAN = '/v1/test/clean';

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}

/** Lets a test hold a handler at a named gate and count how many handlers ran. */
export class TestControl {
  runs = 0;
  /** The raw body bytes of the last request a test route saw. */
  lastRaw: Buffer | null = null;
  private readonly gates = new Map<string, Deferred>();

  private gate(name: string): Deferred {
    let d = this.gates.get(name);
    if (!d) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      d = { promise, resolve };
      this.gates.set(name, d);
    }
    return d;
  }

  wait(name: string): Promise<void> {
    return this.gate(name).promise;
  }

  open(name: string): void {
    this.gate(name).resolve();
  }
}

interface TestBody {
  error?: ErrorCode;
  crash?: boolean;
  reserve?: number;
  settle?: { input: number; forecast: number };
  gate?: string;
  infer_ms?: number;
  /** Inference that lasts until the gate opens. */
  infer_gate?: string;
  fail_after_reserve?: ErrorCode;
  clean?: boolean;
  /** Answers with this many bytes as a Buffer (see bufferBody). */
  bytes?: number;
}

/**
 * `n` bytes that are not UTF-8 (0xff recurs) and compress well: a stored copy that went through
 * a string would come back different, and a large one is worth compressing.
 */
export function bufferBody(n: number): Buffer {
  const out = Buffer.alloc(n);
  for (let i = 0; i < n; i++) out[i] = i % 7 === 0 ? 0xff : 0x61 + (i % 13);
  return out;
}

function parseBody(raw: Buffer): TestBody {
  try {
    const v: unknown = JSON.parse(raw.toString('utf8'));
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
    return v as TestBody;
  } catch {
    throw new ApiError('MALFORMED_JSON', 'The request body is not valid JSON.');
  }
}

export function testRoutes(control: TestControl) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post(TEST_FORECAST, { config: { hora: { endpoint: 'forecast', rpmPolicy: 'forecast-rpm', idempotent: true } } }, async (req, reply) => {
      control.lastRaw = req.rawBody;
      const body = parseBody(req.rawBody);
      control.runs++;
      const run = control.runs;
      if (body.error) throw new ApiError(body.error, `test error ${body.error}`);
      if (body.crash) throw new Error('secret internal detail');
      const reservation = body.reserve !== undefined ? await app.limits.reserve(req, body.reserve) : null;
      if (body.gate) await control.wait(body.gate);
      if (body.infer_ms !== undefined) {
        const ms = body.infer_ms;
        await app.capacity.runInference(() => new Promise((r) => setTimeout(r, ms)));
      }
      if (body.infer_gate) {
        const gate = body.infer_gate;
        await app.capacity.runInference(() => control.wait(gate));
      }
      if (body.fail_after_reserve) throw new ApiError(body.fail_after_reserve, 'test failure after the reservation');
      if (reservation && body.settle) reservation.settle({ inputDataPoints: body.settle.input, forecastDataPoints: body.settle.forecast });
      if (body.bytes !== undefined) return reply.type('application/octet-stream').send(bufferBody(body.bytes));
      return { request_id: req.id, run, tenant: req.tenant };
    });
    app.post(TEST_CLEAN, { config: { hora: { endpoint: 'clean', rpmPolicy: 'clean-rpm', idempotent: false } } }, async (req) => {
      const body = parseBody(req.rawBody);
      control.runs++;
      app.capacity.acquireCleaning(req);
      if (body.gate) await control.wait(body.gate);
      return { request_id: req.id, run: control.runs };
    });
  };
}

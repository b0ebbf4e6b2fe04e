// Per-account limits: the per-minute counters (validation order step 2, preHandler after
// idempotency), the daily point quota (step 7, reserved by the handler), the usage ledger, and
// the X-RateLimit-* headers on every success and every 429.
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../errors.js';
import { refusedByHeaders } from './body.js';
import type { PreparedOutcome, QuotaHold, Store, UsageRow } from '../store/store.js';
import { requestLeaseMs } from './lease.js';
import { requireTenant, routePolicy } from './route-policy.js';
import type { Clock } from './types.js';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

export type LimitType = 'rpm' | 'daily';
export type LimitPolicy = 'forecast-rpm' | 'clean-rpm' | 'forecast-daily-points';
/** The per-minute policies: every limit but the daily quota. */
export type RpmPolicy = Exclude<LimitPolicy, 'forecast-daily-points'>;
/** Each policy's X-RateLimit-Limit-Type (the OpenAPI document declares the same). */
export const LIMIT_TYPE = { 'forecast-rpm': 'rpm', 'clean-rpm': 'rpm', 'forecast-daily-points': 'daily' } as const satisfies Record<LimitPolicy, LimitType>;

/** One limit's state as the X-RateLimit-* headers show it (units in docs/service.md). */
export interface RateLimitState {
  type: LimitType;
  policy: LimitPolicy;
  /** Requests per minute, or points per UTC day. */
  limit: number;
  remaining: number;
  /** Whole seconds until the window (minute or UTC day) resets, at least 1. */
  resetSeconds: number;
}

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function secondsUntil(endMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((endMs - nowMs) / 1000));
}

function rateLimitHeaders(s: RateLimitState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(s.limit),
    'X-RateLimit-Remaining': String(Math.max(0, s.remaining)),
    'X-RateLimit-Reset': String(s.resetSeconds),
    'X-RateLimit-Limit-Type': s.type,
    'X-RateLimit-Policy': s.policy,
  };
}

function rateLimited(s: RateLimitState, message: string, extra: Record<string, unknown> = {}): ApiError {
  return new ApiError('RATE_LIMIT_EXCEEDED', message, {
    details: { limit_type: s.type, policy: s.policy, limit: s.limit, retry_after_s: s.resetSeconds, ...extra },
    headers: { ...rateLimitHeaders(s), 'Retry-After': String(s.resetSeconds) },
  });
}

/** Points actually handled by a successful forecast (validation order step 10). */
export interface SettledPoints {
  inputDataPoints: number;
  forecastDataPoints: number;
}

/**
 * A daily-quota reservation. `settle` and `release` may be called once (the first call wins).
 * Settling is committed when the response is a 2xx: the unused part of the reservation is given
 * back and one usage-ledger row is written. Any other response, or neither call, releases it all.
 * If the process dies first, the store's sweep returns it when its lease ends.
 */
export class QuotaReservation {
  private settled: SettledPoints | null = null;
  private done = false;
  private outcome: PreparedOutcome | null = null;

  constructor(
    private readonly store: Store,
    private readonly hold: QuotaHold,
  ) {}

  /** Records the points the model actually handled; billed when the response is a 2xx. */
  settle(points: SettledPoints): void {
    if (this.done || this.settled) return;
    this.settled = { inputDataPoints: points.inputDataPoints, forecastDataPoints: points.forecastDataPoints };
  }

  /** A success will be billed: settled points and not finished yet. */
  get bills(): boolean {
    return !this.done && this.settled !== null;
  }

  /** The stored outcome of a keyed success, completed in the billing transaction. */
  completeWith(outcome: PreparedOutcome): void {
    this.outcome = outcome;
  }

  /** Gives the whole reservation back now (an error after the reservation). */
  async release(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.store.quotaSettle(this.hold, 0);
  }

  /**
   * Called by the limits plugin when the response status is known. The ledger row goes to the
   * reservation's UTC day, the day whose quota the points were taken from, even when the response
   * is sent after midnight.
   */
  async finish(success: boolean, usage: (p: SettledPoints, day: string) => UsageRow): Promise<void> {
    if (this.done) return;
    if (!success || !this.settled) return this.release();
    this.done = true;
    // The day's count and the ledger row in one transaction: they never part.
    const used = this.settled.inputDataPoints + this.settled.forecastDataPoints;
    try {
      await this.store.quotaSettle(this.hold, used, usage(this.settled, this.hold.day), this.outcome ?? undefined);
    } catch (err) {
      // Not billed, so not delivered (the caller gets a 500): the points go back now if the store
      // takes a write again, else when the reservation's lease ends.
      await this.store.quotaSettle(this.hold, 0).catch(() => undefined);
      throw err;
    }
  }
}

export class Limits {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    readonly rpm: Record<RpmPolicy, number>,
    readonly dailyPoints: number,
    /** How long a reservation outlives a process that died holding it. */
    readonly reservationLeaseMs: number,
  ) {}

  /** Step 2: counts the request in its account's minute window, or throws 429 (not counted). */
  async consumeRpm(account: string, policy: RpmPolicy): Promise<RateLimitState> {
    const now = this.clock.now();
    const windowStart = Math.floor(now / MINUTE_MS) * MINUTE_MS;
    const limit = this.rpm[policy];
    const r = await this.store.rpmConsume(account, policy, windowStart, limit);
    const state: RateLimitState = { type: LIMIT_TYPE[policy], policy, limit, remaining: limit - r.count, resetSeconds: secondsUntil(windowStart + MINUTE_MS, now) };
    if (!r.allowed) throw rateLimited({ ...state, remaining: 0 }, `More than ${limit} requests per minute for this account.`);
    return state;
  }

  /** The minute window's state without counting (replays). */
  async peekRpm(account: string, policy: RpmPolicy): Promise<RateLimitState> {
    const now = this.clock.now();
    const windowStart = Math.floor(now / MINUTE_MS) * MINUTE_MS;
    const limit = this.rpm[policy];
    const count = await this.store.rpmPeek(account, policy, windowStart);
    return { type: LIMIT_TYPE[policy], policy, limit, remaining: limit - count, resetSeconds: secondsUntil(windowStart + MINUTE_MS, now) };
  }

  async peekDaily(account: string): Promise<RateLimitState> {
    const now = this.clock.now();
    const used = await this.store.quotaUsed(account, utcDay(now));
    return this.dailyState(now, this.dailyPoints - used);
  }

  private dailyState(now: number, remaining: number): RateLimitState {
    const midnight = Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
    return { type: LIMIT_TYPE['forecast-daily-points'], policy: 'forecast-daily-points', limit: this.dailyPoints, remaining, resetSeconds: secondsUntil(midnight, now) };
  }

  /**
   * Step 7: reserves `points` (rows plus h times entities) of the account's UTC-day quota, or
   * throws 429 RATE_LIMIT_EXCEEDED (forecast-daily-points). The reservation is attached to the
   * request: it is settled or released with the response, whatever the handler does.
   */
  async reserve(req: FastifyRequest, points: number): Promise<QuotaReservation> {
    if (!Number.isSafeInteger(points) || points < 0) throw new Error(`invalid point count ${points}`);
    if (req.quotaReservation) throw new Error('a quota reservation already exists for this request');
    const tenant = requireTenant(req);
    const now = this.clock.now();
    const day = utcDay(now);
    const r = await this.store.quotaReserve(tenant.accountId, day, points, this.dailyPoints, now, this.reservationLeaseMs);
    if (!r.reserved || !r.hold) {
      const state = this.dailyState(now, this.dailyPoints - r.used);
      throw rateLimited(state, dailyRefusal(state.remaining, points, this.dailyPoints), { requested_points: points });
    }
    const reservation = new QuotaReservation(this.store, r.hold);
    req.quotaReservation = reservation;
    return reservation;
  }
}

/** Says why a reservation did not fit: nothing left, too little left, or more than a whole day's quota. */
function dailyRefusal(remaining: number, requested: number, limit: number): string {
  if (requested > limit) {
    return `This request needs ${requested} points, more than the account's whole daily point quota of ${limit}; send fewer rows or a shorter horizon.`;
  }
  if (remaining <= 0) return 'The daily point quota of this account is used up until the next UTC midnight.';
  return `This request needs ${requested} points and the account's daily point quota has ${remaining} left until the next UTC midnight.`;
}

/** The limit the success headers show: the one closest to exhaustion (rpm on ties). */
function closer(a: RateLimitState, b: RateLimitState): RateLimitState {
  return b.remaining / b.limit < a.remaining / a.limit ? b : a;
}

export default fp(
  async (app) => {
    const rpm = { 'forecast-rpm': app.config.forecastRpm, 'clean-rpm': app.config.cleanRpm };
    const limits = new Limits(app.store, app.clock, rpm, app.config.dailyPoints, requestLeaseMs(app.config));
    app.decorate('limits', limits);
    app.decorateRequest('rateLimit', null);
    app.decorateRequest('quotaReservation', null);

    app.addHook('preHandler', async (req) => {
      const policy = routePolicy(req);
      if (!policy || !req.tenant || req.idempotency?.replayed || req.rateLimit) return;
      req.rateLimit = await limits.consumeRpm(req.tenant.accountId, policy.rpmPolicy);
    });

    // Some bodies are refused while parsing, before the preHandler step: one larger than the limit
    // (422 POINTS_EXCEEDED, step 4), one of another media type or compressed (400 naming the
    // header; body parsing, step 3). The per-minute limit (step 2) is applied to them first, so the
    // order holds for them too: before any byte when the headers already say so, and when a
    // chunked body is cut at the limit.
    const countRefusedBody = async (req: FastifyRequest): Promise<void> => {
      const policy = routePolicy(req);
      if (policy && req.tenant && !req.rateLimit) req.rateLimit = await limits.consumeRpm(req.tenant.accountId, policy.rpmPolicy);
    };
    app.decorate('countRefusedBody', countRefusedBody);
    app.addHook('preParsing', async (req, _reply, payload) => {
      if (Number(req.headers['content-length'] ?? 0) > app.config.bodyLimitBytes || refusedByHeaders(req)) await countRefusedBody(req);
      return payload;
    });

    // Once per request: the error answer that follows a failed billing write passes through
    // onSend again and must not write (or fail) twice.
    const finished = new WeakSet<FastifyRequest>();
    async function finishRequest(req: FastifyRequest, reply: FastifyReply): Promise<void> {
      const policy = routePolicy(req);
      const tenant = req.tenant;
      if (!policy || !tenant || req.idempotency?.replayed || finished.has(req)) return;
      finished.add(req);
      const success = reply.statusCode >= 200 && reply.statusCode < 300;
      const usage = (p: SettledPoints, day = utcDay(app.clock.now())): UsageRow =>
        ({ account: tenant.accountId, keyId: tenant.keyId, endpoint: policy.endpoint, requestId: req.id, day, ...p });
      const reservation = req.quotaReservation;
      if (reservation) {
        req.quotaReservation = null;
        await reservation.finish(success, usage);
      } else if (policy.endpoint === 'clean' && req.rateLimit) {
        // /clean is never billed; each call is recorded with zero billable points, its errors
        // too. A call the per-minute limit refused was never counted (as on the forecast route),
        // nor one refused before it (key, pause, account).
        await app.store.recordUsage(usage({ inputDataPoints: 0, forecastDataPoints: 0 }));
      }
    }

    app.addHook('onSend', async (req, reply, payload) => {
      const success = reply.statusCode >= 200 && reply.statusCode < 300;
      try {
        await finishRequest(req, reply);
      } catch (err) {
        // A success that could not be billed is not delivered: the caller gets the 500 and may
        // retry. Its key's outcome, completed only in the billing transaction, was not stored;
        // the key is released so the retry runs (and is billed), or frees itself at its lease.
        // An error answer is delivered as it is; only its ledger row (a /clean call) is lost.
        req.log.error({ err }, 'billing write failed');
        if (!success) return payload;
        await app.withdrawStoredOutcome(req);
        throw err;
      }
      const policy = routePolicy(req);
      if (policy && req.tenant && success) {
        let shown = req.rateLimit;
        try {
          shown ??= await limits.peekRpm(req.tenant.accountId, policy.rpmPolicy);
          if (policy.endpoint === 'forecast') shown = closer(shown, await limits.peekDaily(req.tenant.accountId));
        } catch (err) {
          // The answer is billed already: it is delivered with the per-minute state step 2 saw.
          req.log.error({ err }, 'rate-limit read failed');
        }
        if (shown) for (const [name, value] of Object.entries(rateLimitHeaders(shown))) reply.header(name, value);
      }
      return payload;
    });
    // A request that never reaches onSend (aborted) still gives its reservation back.
    app.addHook('onResponse', async (req) => {
      const reservation = req.quotaReservation;
      req.quotaReservation = null;
      await reservation?.release();
    });
  },
  { name: 'hora-limits', fastify: '5.x', dependencies: ['hora-auth', 'hora-idempotency', 'hora-store'] },
);

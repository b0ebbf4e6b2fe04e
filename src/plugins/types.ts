// Request and instance decorations shared by the plugins and the route handlers.
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { CleaningDefaultsByLevel } from '../policy/effective.js';
import type { Store } from '../store/store.js';
import type { Capacity } from './capacity.js';
import type { IdempotencyState } from './idempotency.js';
import type { Limits, QuotaReservation, RateLimitState } from './limits.js';
import type { Connections } from '../shutdown.js';
import type { RoutePolicy } from './route-policy.js';

/** Who is calling, set by the auth plugin on every authenticated request. */
export interface Tenant {
  keyId: string;
  accountId: string;
  orgId: string;
  scopes: string[];
  defaults: CleaningDefaultsByLevel;
}

export interface Clock {
  /** Milliseconds since the epoch; tests move it. */
  now(): number;
}

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    clock: Clock;
    store: Store;
    limits: Limits;
    capacity: Capacity;
    /** Connections and their requests in flight, for a graceful shutdown (src/shutdown.ts). */
    connections: Connections;
    /** Counts a request whose body was refused while parsing (its size, media type or encoding) toward the per-minute limit (once). */
    countRefusedBody(req: FastifyRequest): Promise<void>;
    /** Withdraws the idempotent outcome a request stored (its billing failed); never throws. */
    withdrawStoredOutcome(req: FastifyRequest): Promise<void>;
  }
  interface FastifyRequest {
    /** Set by the auth plugin; null only on routes without a policy (and the 404 handler). */
    tenant: Tenant | null;
    /** The request body bytes as received (empty when no body was sent). */
    rawBody: Buffer;
    idempotency: IdempotencyState | null;
    rateLimit: RateLimitState | null;
    quotaReservation: QuotaReservation | null;
    /** Monotonic receipt time (performance.now()), for usage.latency_ms. */
    receivedAt: number;
  }
  interface FastifyContextConfig {
    /** Overrides the built-in route table (test routes). */
    hora?: RoutePolicy;
  }
}

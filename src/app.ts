// Builds the Fastify instance: plugins in the contract's validation order, then the routes.
// Tests build the app the same way, adding test-only routes through `overrides.routes`.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import bodyPlugin from './plugins/body.js';
import authPlugin from './plugins/auth.js';
import capacityPlugin from './plugins/capacity.js';
import errorsPlugin from './plugins/errors.js';
import idempotencyPlugin, { markDeprecatedAlias } from './plugins/idempotency.js';
import limitsPlugin from './plugins/limits.js';
import requestIdPlugin, { newRequestId } from './plugins/request-id.js';
import storePlugin from './plugins/store.js';
import { clientErrorHandler, frameworkErrors, ignoreUnknownExpectations, refuseConnect, refuseHttp10Chunking, requireHost } from './plugins/transport-errors.js';
import type { Clock } from './plugins/types.js';
import cleanRoute from './routes/v1/clean.js';
import forecastRoute from './routes/v1/forecast.js';
import openApiRoute from './routes/openapi.js';
import { trackConnections } from './shutdown.js';
import type { Store } from './store/store.js';

export interface AppOverrides {
  /** Use this store instead of opening the SQLite one under config.dataDir. */
  store?: Store;
  /** Clock for limits and idempotency (tests move time). */
  clock?: Clock;
  /** Extra routes registered after the plugins (tests only). */
  routes?: (app: FastifyInstance) => Promise<void>;
  logger?: FastifyServerOptions['logger'];
  /** Overrides REQUEST_TIMEOUT_MS (tests use a short one). */
  requestTimeoutMs?: number;
}

/**
 * Longest time to receive a whole request, headers and body, before the client gets 400
 * MALFORMED_JSON and its connection is closed (transport-errors.ts). Fastify's default is 0
 * (never), which let a client that stops mid-body hold its connection, its buffered bytes and a
 * graceful shutdown forever. 120 s is twice Node's header timeout; a 256 MiB body (the limit)
 * needs 18 Mbit/s to arrive in it, a typical 12 MB one 0.8 Mbit/s. It does not bound the work
 * after the last byte: the model has its own budget.
 */
export const REQUEST_TIMEOUT_MS = 120_000;
/** Node's own header timeout; a request timeout shorter than it (tests) lowers it to match. */
const HEADERS_TIMEOUT_MS = 60_000;

/** Node's HTTP options for a request timeout: how often to look for expired requests, too. */
function httpTimeouts(requestTimeout: number) {
  return {
    requestTimeout,
    headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeout),
    // Node looks every 30 s by default, so a timeout could fire up to 30 s late; a tenth of the
    // timeout keeps it within 10 % (12 s at 120 s).
    connectionsCheckingInterval: Math.max(10, Math.min(30_000, Math.floor(requestTimeout / 10))),
  };
}

export async function buildApp(config: Config, overrides: AppOverrides = {}): Promise<FastifyInstance> {
  const timeouts = httpTimeouts(overrides.requestTimeoutMs ?? REQUEST_TIMEOUT_MS);
  const app = Fastify({
    logger: overrides.logger ?? { level: config.logLevel },
    genReqId: () => newRequestId(),
    requestIdHeader: false,
    bodyLimit: config.bodyLimitBytes,
    // Fastify sets the server's requestTimeout from its own option (default 0) after creating it.
    requestTimeout: timeouts.requestTimeout,
    // Node answers an HTTP/1.1 request without Host with a bare 400 of its own; `requireHost`
    // refuses it instead, in the envelope with its ids.
    http: { ...timeouts, requireHostHeader: false },
    clientErrorHandler,
    frameworkErrors,
  });
  app.decorate('config', config);
  // A client that half-closes after its request (shuts down its write side, as `nc -N` does)
  // still reads. Node's default aborts such a request and ends the socket, so the request ran and
  // was billed with no answer; with this the answer is written, then the connection ends. The
  // property is undocumented but read by Node's HTTP server since 0.x (20 and 22 included).
  Object.assign(app.server, { httpAllowHalfOpen: true });
  // Node drops every header past the 2,000th without a word, so an Idempotency-Key sent after
  // them was lost and its retry ran and was billed again. The 16 KiB header block (Node's
  // maxHeaderSize) bounds the count instead.
  app.server.maxHeadersCount = 0;
  app.server.on('connect', refuseConnect);
  ignoreUnknownExpectations(app);
  trackConnections(app);
  // First, so every answer to the request carries it, the root hooks' refusals included.
  markDeprecatedAlias(app);
  requireHost(app);
  refuseHttp10Chunking(app);
  app.decorate('clock', overrides.clock ?? { now: () => Date.now() });

  await app.register(errorsPlugin);
  await app.register(requestIdPlugin);
  await app.register(bodyPlugin);
  await app.register(storePlugin, { store: overrides.store });
  await app.register(authPlugin); // onRequest: step 1 (auth, scope, pause, account checks)
  await app.register(idempotencyPlugin); // onRequest: header check; preHandler: claim or replay (step 1)
  await app.register(limitsPlugin); // preHandler: rpm (step 2); quota and ledger for handlers
  await app.register(capacityPlugin);

  await app.register(forecastRoute);
  await app.register(cleanRoute);
  await app.register(openApiRoute);
  if (overrides.routes) await app.register(overrides.routes);
  return app;
}

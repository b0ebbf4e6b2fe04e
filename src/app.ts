// Builds the Fastify instance: plugins in the contract's validation order, then the routes.
// Tests build the app the same way, adding test-only routes through `overrides.routes`.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import bodyPlugin from './plugins/body.js';
import authPlugin from './plugins/auth.js';
import capacityPlugin from './plugins/capacity.js';
import errorsPlugin from './plugins/errors.js';
import idempotencyPlugin from './plugins/idempotency.js';
import limitsPlugin from './plugins/limits.js';
import requestIdPlugin, { newRequestId } from './plugins/request-id.js';
import storePlugin from './plugins/store.js';
import { clientErrorHandler, frameworkErrors } from './plugins/transport-errors.js';
import type { Clock } from './plugins/types.js';
import cleanRoute from './routes/v1/clean.js';
import forecastRoute from './routes/v1/forecast.js';
import openApiRoute from './routes/openapi.js';
import type { Store } from './store/store.js';

export interface AppOverrides {
  /** Use this store instead of opening the SQLite one under config.dataDir. */
  store?: Store;
  /** Clock for limits and idempotency (tests move time). */
  clock?: Clock;
  /** Extra routes registered after the plugins (tests only). */
  routes?: (app: FastifyInstance) => Promise<void>;
  logger?: FastifyServerOptions['logger'];
}

export async function buildApp(config: Config, overrides: AppOverrides = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: overrides.logger ?? { level: config.logLevel },
    genReqId: () => newRequestId(),
    requestIdHeader: false,
    bodyLimit: config.bodyLimitBytes,
    clientErrorHandler,
    frameworkErrors,
  });
  app.decorate('config', config);
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

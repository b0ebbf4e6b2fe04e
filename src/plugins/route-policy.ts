// The routes the plugins serve (auth, idempotency, limits): each one's endpoint, per-minute
// policy and idempotency support, and how a request finds its own.
import type { FastifyRequest } from 'fastify';
import type { Endpoint } from '../store/store.js';
import type { RpmPolicy } from './limits.js';
import type { Tenant } from './types.js';

/** What the plugins do for a route: its endpoint name, rpm policy and idempotency support. */
export interface RoutePolicy {
  endpoint: Endpoint;
  rpmPolicy: RpmPolicy;
  idempotent: boolean;
}

const ROUTES: Record<string, RoutePolicy> = {
  '/v1/forecast': { endpoint: 'forecast', rpmPolicy: 'forecast-rpm', idempotent: true },
  '/v1/clean': { endpoint: 'clean', rpmPolicy: 'clean-rpm', idempotent: false },
};

/** The policy of the matched route, or null (unauthenticated routes, 404s). */
export function routePolicy(req: FastifyRequest): RoutePolicy | null {
  if (req.is404) return null;
  const own = req.routeOptions.config?.hora;
  if (own) return own;
  const url = req.routeOptions.url;
  return url !== undefined ? (ROUTES[url] ?? null) : null;
}

/** The tenant of an authenticated request; a handler on a policy route can rely on it. */
export function requireTenant(req: FastifyRequest): Tenant {
  if (!req.tenant) throw new Error('route has no authenticated tenant (missing route policy?)');
  return req.tenant;
}

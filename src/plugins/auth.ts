// Validation order step 1 (onRequest): authentication, scope, then the account checks in the
// contract's order: paused endpoint (503), suspended account or org, org pending deletion.
// Every request reads the store, so an operator change is seen by the next request.
import fp from 'fastify-plugin';
import { ApiError } from '../errors.js';
import { rawHeaderValues } from '../raw-headers.js';
import { digestKey, digestsEqual, REQUIRED_SCOPE } from '../store/keys.js';
import { routePolicy } from './route-policy.js';

/** Seconds a caller is told to wait while an endpoint is paused (docs/service.md). */
export const PAUSED_RETRY_AFTER_S = 30;

// The contract's form: the scheme (any case), one or more spaces as RFC 7235 allows, the key,
// nothing after it.
const BEARER_RE = /^Bearer +(\S+)$/i;

function invalidKey(message: string): ApiError {
  return new ApiError('INVALID_API_KEY', message);
}

export default fp(
  async (app) => {
    const livePrefix = `${app.config.keyPrefix}_live_`;
    const testPrefix = `${app.config.keyPrefix}_test_`;
    app.decorateRequest('tenant', null);

    app.addHook('onRequest', async (req) => {
      const policy = routePolicy(req);
      if (!policy) return;
      const header = req.headers.authorization;
      // Node keeps the first of repeated Authorization headers and drops the rest; two keys (or a
      // key and other credentials) are ambiguous, not the first one.
      if (rawHeaderValues(req.raw.rawHeaders, 'authorization').length > 1) throw invalidKey('Send one Authorization header, "Authorization: Bearer <API_KEY>".');
      const match = typeof header === 'string' ? BEARER_RE.exec(header) : null;
      if (!match) throw invalidKey('Send the API key as "Authorization: Bearer <API_KEY>".');
      const token = match[1]!;
      if (token.startsWith(testPrefix)) throw invalidKey('Test keys are not accepted; use a live key.');
      if (!token.startsWith(livePrefix)) throw invalidKey('The API key is not valid.');

      const digest = digestKey(token);
      const found = await app.store.findKeyByDigest(digest);
      if (!found || !digestsEqual(found.digest, digest) || found.key.revoked) throw invalidKey('The API key is not valid.');
      if (!found.key.scopes.includes(REQUIRED_SCOPE)) {
        throw new ApiError('INSUFFICIENT_SCOPE', `The API key lacks the ${REQUIRED_SCOPE} scope.`, { details: { required_scope: REQUIRED_SCOPE } });
      }
      if (await app.store.isEndpointPaused(policy.endpoint)) {
        throw new ApiError('SERVICE_UNAVAILABLE', `The ${policy.endpoint} endpoint is paused by the operator.`, {
          details: { endpoint: policy.endpoint },
          headers: { 'Retry-After': String(PAUSED_RETRY_AFTER_S) },
        });
      }
      if (found.account.suspended || found.org.suspended) {
        throw new ApiError('ACCOUNT_SUSPENDED', 'The account or its workspace is suspended.');
      }
      if (found.org.pendingDeletion) {
        throw new ApiError('ORG_PENDING_DELETION', 'The workspace is pending deletion; its keys are paused until the deletion is cancelled.');
      }
      req.tenant = {
        keyId: found.key.keyId,
        accountId: found.account.account,
        orgId: found.org.org,
        scopes: found.key.scopes,
        defaults: {
          key: { preset: found.key.preset, version: found.key.version },
          org: { preset: found.org.preset, version: found.org.version },
        },
      };
    });
  },
  { name: 'hora-auth', fastify: '5.x', dependencies: ['hora-store', 'hora-request-id'] },
);

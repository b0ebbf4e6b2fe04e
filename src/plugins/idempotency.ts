// Idempotency exactly as the contract's section: the header is checked in onRequest (step 1,
// before the body is read), the record is claimed in preHandler once the body bytes are in, and
// the outcome is stored (2xx, deterministic 4xx) or forgotten (everything else) in onSend.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError, headerValidationError } from '../errors.js';
import { canonicalDigest } from '../native.js';
import type { IdempotencyScope } from '../store/store.js';
import { requestLeaseMs } from './lease.js';
import { routePolicy } from './route-policy.js';

/** RFC 9745 value: deprecated since 2026-10-08T00:00:00Z. */
export const DEPRECATION_HEADER_VALUE = '@1791417600';
export const RETENTION_MS = 24 * 60 * 60 * 1000;
/** Seconds a caller is told to wait on 409 IDEMPOTENCY_IN_PROGRESS. */
export const IN_PROGRESS_RETRY_AFTER_S = 1;

/** The contract's key: 1 to 255 printable ASCII characters, space through tilde (the OpenAPI document's schema too). */
export const IDEMPOTENCY_KEY = { minLength: 1, maxLength: 255, pattern: '^[ -~]+$' } as const;
const KEY_RE = new RegExp(`^[ -~]{${IDEMPOTENCY_KEY.minLength},${IDEMPOTENCY_KEY.maxLength}}$`);

export interface IdempotencyState {
  key: string;
  /** Set once this request owns the record. */
  scope: IdempotencyScope | null;
  /** The response is a replay of a stored one. */
  replayed: boolean;
  finished: boolean;
}

/** Outcomes stored for replay: 2xx and the deterministic 4xx (400, 422). Not 401, 403, 409, 429, 5xx. */
export function isStoredOutcome(status: number): boolean {
  return (status >= 200 && status < 300) || status === 400 || status === 422;
}

function headerValue(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** Only the deprecated X-Idempotency-Key was sent (its responses carry `Deprecation`). */
function sentAliasAlone(headers: IncomingHttpHeaders): boolean {
  return headers['idempotency-key'] === undefined && headers['x-idempotency-key'] !== undefined;
}

/** Marks a raw request whose answers carry `Deprecation`. */
const DEPRECATED = Symbol('hora.deprecated');
type Marked = IncomingMessage & { [DEPRECATED]?: boolean };

/** Whether the answers to `raw` carry `Deprecation`: those written by Fastify and below it. */
export function answersDeprecated(raw: IncomingMessage): boolean {
  return (raw as Marked)[DEPRECATED] === true;
}

/**
 * A root hook run synchronously when the router has matched the request, as `requireHost` is, so
 * the mark is there before the parser reads the body: a malformed chunk in the same packet is
 * refused below Fastify, by that packet's parse, before any asynchronous hook has run.
 */
export function markDeprecatedAlias(app: FastifyInstance): void {
  app.addHook('onRequest', (req, _reply, done) => {
    if (routePolicy(req)?.idempotent && sentAliasAlone(req.headers)) (req.raw as Marked)[DEPRECATED] = true;
    done();
  });
}

/** The two headers that carry the key, as the contract spells them. */
export type KeyHeader = 'Idempotency-Key' | 'X-Idempotency-Key';

/** 400 VALIDATION_ERROR for a key header whose value is not 1 to 255 printable ASCII characters. */
export function malformedKey(header: KeyHeader): ApiError {
  return headerValidationError(header, `${header} must be ${IDEMPOTENCY_KEY.minLength} to ${IDEMPOTENCY_KEY.maxLength} printable ASCII characters.`);
}

/** The key of a request, or a 400 VALIDATION_ERROR naming the header. */
export function readIdempotencyKey(req: FastifyRequest): string | null {
  const primary = headerValue(req, 'idempotency-key');
  const alias = headerValue(req, 'x-idempotency-key');
  if (primary !== undefined) {
    if (!KEY_RE.test(primary)) throw malformedKey('Idempotency-Key');
    if (alias !== undefined && alias !== primary) {
      throw headerValidationError('Idempotency-Key', 'Idempotency-Key and the deprecated X-Idempotency-Key differ; send only Idempotency-Key.');
    }
    return primary;
  }
  if (alias !== undefined) {
    if (!KEY_RE.test(alias)) throw malformedKey('X-Idempotency-Key');
    return alias;
  }
  return null;
}

function keyReused(): ApiError {
  return new ApiError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request body in the last 24 hours; nothing ran.');
}

export default fp(
  async (app) => {
    // A record whose request never finishes (a crashed process) frees its key after this lease.
    const leaseMs = requestLeaseMs(app.config);
    app.decorateRequest('idempotency', null);

    // Store failures here are logged, never thrown: a throw in onSend while the error answer
    // itself is being sent would replace the envelope with Fastify's fallback body. A record
    // left behind frees its key when its lease ends.
    async function quietly(req: FastifyRequest, what: string, write: () => Promise<void>): Promise<void> {
      try {
        await write();
      } catch (err) {
        req.log.error({ err }, what);
      }
    }

    async function forget(req: FastifyRequest): Promise<void> {
      const state = req.idempotency;
      if (!state?.scope || state.finished) return;
      state.finished = true;
      const scope = state.scope;
      await quietly(req, 'idempotency record could not be released', () => app.store.idempotencyWithdraw(scope, req.id));
    }

    /** Withdraws the outcome this request stored, when its answer is not delivered as stored. */
    app.decorate('withdrawStoredOutcome', async (req: FastifyRequest): Promise<void> => {
      const scope = req.idempotency?.scope;
      if (scope) await quietly(req, 'stored outcome could not be withdrawn', () => app.store.idempotencyWithdraw(scope, req.id));
    });

    app.addHook('onRequest', async (req) => {
      const policy = routePolicy(req);
      if (!policy?.idempotent) return;
      const key = readIdempotencyKey(req);
      if (key === null) return;
      req.idempotency = { key, scope: null, replayed: false, finished: false };
    });

    // On every response to a request that sent the deprecated alias alone, whatever refused it
    // (a 401 from step 1's key check runs before the header is read above).
    app.addHook('onSend', async (req, reply, payload) => {
      if (answersDeprecated(req.raw)) {
        reply.header('Deprecation', DEPRECATION_HEADER_VALUE);
      }
      return payload;
    });

    app.addHook('preHandler', async (req, reply: FastifyReply) => {
      const state = req.idempotency;
      if (!state || !req.tenant) return;
      const scope: IdempotencyScope = { keyId: req.tenant.keyId, route: req.routeOptions.url ?? req.url, idempotencyKey: state.key };
      const digest = await canonicalDigest(req.rawBody);
      const found = await app.store.idempotencyBegin(scope, digest, req.id, app.clock.now(), leaseMs);
      if (found.state === 'started') {
        state.scope = scope;
        return;
      }
      if (found.state === 'reused') throw keyReused();
      if (found.state === 'in_progress') {
        throw new ApiError('IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still running; retry later with the same key.', {
          headers: { 'Retry-After': String(IN_PROGRESS_RETRY_AFTER_S) },
        });
      }
      // Replay: the stored response with its original request_id; nothing runs or is billed.
      state.replayed = true;
      const stored = found.response;
      reply
        .code(stored.status)
        .header('Content-Type', stored.contentType)
        .header('X-Request-Id', stored.requestId)
        .header('X-Idempotent-Replayed', 'true');
      return reply.send(stored.body);
    });

    app.addHook('onSend', async (req, reply, payload) => {
      const state = req.idempotency;
      if (!state?.scope || state.finished) return payload;
      const status = reply.statusCode;
      // Kept as bytes: a Buffer payload can be longer than V8's longest string (a forecast of
      // over 512 MiB failed here with ERR_STRING_TOO_LONG when it was turned into one).
      const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.isBuffer(payload) ? payload : null;
      if (!isStoredOutcome(status) || body === null) {
        await forget(req);
        return payload;
      }
      state.finished = true;
      const contentType = String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8');
      const response = { status, contentType, body, requestId: req.id };
      try {
        // A billed success becomes the key's outcome in the transaction that bills it (limits),
        // so a stored success is always a billed one; anything else is stored here.
        const reservation = req.quotaReservation;
        if (reservation?.bills) reservation.completeWith(await app.store.idempotencyPrepare(state.scope, response, app.clock.now(), RETENTION_MS));
        else await app.store.idempotencyComplete(state.scope, response, app.clock.now(), RETENTION_MS);
      } catch (err) {
        // A success not stored is not delivered: the caller gets the 500 (nothing is billed) and
        // may retry. An error answer is delivered as it is, in its envelope.
        req.log.error({ err }, 'outcome could not be stored');
        await app.withdrawStoredOutcome(req);
        if (status >= 300) return payload;
        throw err;
      }
      return payload;
    });

    // A request that ends without onSend (aborted, or a 504 whose run still goes on) frees its key.
    app.addHook('onResponse', async (req) => forget(req));
    app.addHook('onRequestAbort', async (req) => forget(req));
  },
  { name: 'hora-idempotency', fastify: '5.x', dependencies: ['hora-auth', 'hora-store'] },
);

// The OpenAPI 3.1 document, generated from the typebox schemas (JSON Schema 2020-12 already).
import { CleanRequest, ForecastRequest } from './request.js';
import { CleanResponse, ErrorEnvelope, ForecastResponse } from './response.js';
import { LIMIT_TYPE, type LimitPolicy } from '../plugins/limits.js';
import { IDEMPOTENCY_KEY } from '../plugins/idempotency.js';
import { CLIENT_REQUEST_ID_PATTERN } from '../plugins/request-id.js';

/** `required`: the header is on every response of that status. */
type Headers = Record<string, { schema: Record<string, unknown>; description?: string; required?: boolean }>;

const always = (headers: Headers): Headers => Object.fromEntries(Object.entries(headers).map(([name, h]) => [name, { ...h, required: true }]));

// A route declares only the limits it applies, each with its X-RateLimit-Limit-Type.
const rateLimitHeaders = (policies: LimitPolicy[]): Headers => ({
  'X-RateLimit-Limit': { schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { schema: { type: 'integer' } },
  'X-RateLimit-Reset': { schema: { type: 'integer' }, description: 'Seconds until the window resets.' },
  'X-RateLimit-Limit-Type': { schema: { enum: [...new Set(policies.map((p) => LIMIT_TYPE[p]))] } },
  'X-RateLimit-Policy': { schema: { enum: policies } },
});
// On every 429. A success shows the closer of its route's limits, unless the store could not be
// read for a replay (the stored answer is delivered without them).
const forecastLimits = rateLimitHeaders(['forecast-rpm', 'forecast-daily-points']);
const cleanLimits = rateLimitHeaders(['clean-rpm']);

// Each header once; the responses below say which statuses carry it.
const requestIdHeaders: Headers = always({
  'X-Request-Id': { schema: { type: 'string', pattern: '^req_' } },
  'X-Client-Request-Id': { schema: { type: 'string' }, description: `Echo of a valid client X-Request-Id; empty when none was sent or it did not match ${CLIENT_REQUEST_ID_PATTERN}.` },
});
const retryAfterHeader: Headers = { 'Retry-After': { schema: { type: 'integer', minimum: 1 }, description: 'Seconds to wait before retrying.' } };
// On every 409 and 429; on a 503 when the service knows when to come back (paused, busy), not
// when the model itself failed.
const retryAfter = always(retryAfterHeader);
const replayed: Headers = {
  'X-Idempotent-Replayed': {
    schema: { const: 'true' },
    description: 'This is the stored outcome (2xx, 400 or 422) of an earlier request with the same Idempotency-Key, replayed; nothing ran.',
  },
};
const deprecation: Headers = {
  Deprecation: {
    schema: { type: 'string' },
    description: 'RFC 9745: on any response to a request that sent the deprecated X-Idempotency-Key without Idempotency-Key.',
  },
};
const serverTiming: Headers = {
  'Server-Timing': {
    schema: { type: 'string' },
    description: 'Stage durations in milliseconds (parse, clean, and on /v1/forecast inference, serialize) and total. Not on a replayed response.',
  },
};

interface Response {
  description: string;
  headers: Headers;
  content: { 'application/json': { schema: { $ref: string } } };
}
const response = (description: string, schema: string, headers: Headers = {}): Response => ({
  description,
  headers: { ...requestIdHeaders, ...headers },
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
});
const errorResponse = (description: string, headers: Headers = {}) => response(description, 'ErrorEnvelope', headers);
const withHeaders = (r: Response, headers: Headers): Response => ({ ...r, headers: { ...r.headers, ...headers } });

const errors = (limits: Headers) => ({
  '400': errorResponse('MALFORMED_JSON, or VALIDATION_ERROR about a header.'),
  '401': errorResponse('INVALID_API_KEY'),
  '403': errorResponse('INSUFFICIENT_SCOPE, ACCOUNT_SUSPENDED, ORG_PENDING_DELETION'),
  '422': errorResponse('Validation, data, limit and model errors (see the contract).'),
  '429': errorResponse('RATE_LIMIT_EXCEEDED (the X-RateLimit-* headers name the limit that refused)', { ...retryAfter, ...always(limits) }),
  '500': errorResponse('INTERNAL_SERVER_ERROR'),
});

/** The stored outcomes (2xx, 400, 422) replay, and the deprecated alias marks every response. */
function forecastResponses(): Record<string, Response> {
  const own = errors(forecastLimits);
  const responses: Record<string, Response> = {
    '200': response('The forecast.', 'ForecastResponse', { ...forecastLimits, ...serverTiming, ...replayed }),
    ...own,
    '400': withHeaders(own['400'], replayed),
    '422': withHeaders(own['422'], replayed),
    '409': errorResponse('IDEMPOTENCY_IN_PROGRESS', retryAfter),
    '503': errorResponse('SERVICE_UNAVAILABLE (endpoint paused, or the model or a stage unavailable) or MODEL_BUSY', retryAfterHeader),
    '504': errorResponse('GATEWAY_TIMEOUT'),
  };
  return Object.fromEntries(Object.entries(responses).map(([status, r]) => [status, withHeaders(r, deprecation)]));
}

function cleanResponses(): Record<string, Response> {
  return {
    '200': response('The cleaning report and the effective policy.', 'CleanResponse', { ...cleanLimits, ...serverTiming }),
    ...errors(cleanLimits),
    // /clean never calls the model, so never MODEL_BUSY.
    '503': errorResponse('SERVICE_UNAVAILABLE (endpoint paused, or cleaning capacity full)', retryAfterHeader),
  };
}

// Else 400 VALIDATION_ERROR naming the header.
const idempotencyKey = { type: 'string', ...IDEMPOTENCY_KEY };
const trace = [
  { name: 'X-Request-Id', in: 'header', required: false, schema: { type: 'string', pattern: CLIENT_REQUEST_ID_PATTERN } },
  { name: 'X-Service-Region', in: 'header', required: false, schema: { enum: ['cn-mainland', 'global'] } },
];

export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: { title: 'Hora time-series forecasting and cleaning API', version: '1.0.0' },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths: {
      '/v1/forecast': {
        post: {
          operationId: 'forecast',
          summary: 'Forecast one or more entities (billed).',
          parameters: [
            ...trace,
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              schema: idempotencyKey,
              // HTTP strips a header value's leading and trailing whitespace before any server sees it.
              description: 'Leading and trailing spaces are not part of the value (HTTP strips them): "k " is the key "k", and a key of spaces alone is empty (400).',
            },
            {
              name: 'X-Idempotency-Key',
              in: 'header',
              required: false,
              deprecated: true,
              schema: idempotencyKey,
              description: 'Deprecated alias of Idempotency-Key; if both are sent they must be equal. Its leading and trailing spaces are stripped too.',
            },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ForecastRequest' } } } },
          responses: forecastResponses(),
        },
      },
      '/v1/clean': {
        post: {
          operationId: 'clean',
          summary: 'Cleaning dry run (beta, not billed).',
          parameters: trace,
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/CleanRequest' } } } },
          responses: cleanResponses(),
        },
      },
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { ForecastRequest, CleanRequest, ForecastResponse, CleanResponse, ErrorEnvelope },
    },
  };
}

// The OpenAPI 3.1 document, generated from the typebox schemas (JSON Schema 2020-12 already).
import { CleanRequest, ForecastRequest } from './request.js';
import { CleanResponse, ErrorEnvelope, ForecastResponse } from './response.js';

const rateLimitHeaders = {
  'X-RateLimit-Limit': { schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { schema: { type: 'integer' } },
  'X-RateLimit-Reset': { schema: { type: 'integer' }, description: 'Seconds until the window resets.' },
  'X-RateLimit-Limit-Type': { schema: { enum: ['rpm', 'daily'] } },
  'X-RateLimit-Policy': { schema: { enum: ['forecast-rpm', 'clean-rpm', 'forecast-daily-points'] } },
};
const requestIdHeaders = {
  'X-Request-Id': { schema: { type: 'string', pattern: '^req_' } },
  'X-Client-Request-Id': { schema: { type: 'string' }, description: 'Echo of a valid client X-Request-Id.' },
};
const errorResponse = (description: string, retryAfter = false, limits = false) => ({
  description,
  headers: { ...requestIdHeaders, ...(retryAfter ? { 'Retry-After': { schema: { type: 'integer' } } } : {}), ...(limits ? rateLimitHeaders : {}) },
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
});
const errors = {
  '400': errorResponse('MALFORMED_JSON, or VALIDATION_ERROR about a header.'),
  '401': errorResponse('INVALID_API_KEY'),
  '403': errorResponse('INSUFFICIENT_SCOPE, ACCOUNT_SUSPENDED, ORG_PENDING_DELETION'),
  '422': errorResponse('Validation, data, limit and model errors (see the contract).'),
  '429': errorResponse('RATE_LIMIT_EXCEEDED (the X-RateLimit-* headers name the limit that refused)', true, true),
  '500': errorResponse('INTERNAL_SERVER_ERROR'),
  '503': errorResponse('SERVICE_UNAVAILABLE or MODEL_BUSY', true),
};
const trace = [
  { name: 'X-Request-Id', in: 'header', required: false, schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{8,64}$' } },
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
            { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } },
            { name: 'X-Idempotency-Key', in: 'header', required: false, deprecated: true, schema: { type: 'string' } },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ForecastRequest' } } } },
          responses: {
            '200': {
              description: 'The forecast.',
              headers: {
                ...requestIdHeaders,
                ...rateLimitHeaders,
                'X-Idempotent-Replayed': { schema: { const: 'true' } },
                Deprecation: { schema: { type: 'string' } },
              },
              content: { 'application/json': { schema: { $ref: '#/components/schemas/ForecastResponse' } } },
            },
            ...errors,
            '409': errorResponse('IDEMPOTENCY_IN_PROGRESS'),
            '504': errorResponse('GATEWAY_TIMEOUT'),
          },
        },
      },
      '/v1/clean': {
        post: {
          operationId: 'clean',
          summary: 'Cleaning dry run (beta, not billed).',
          parameters: trace,
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/CleanRequest' } } } },
          responses: {
            '200': {
              description: 'The cleaning report and the effective policy.',
              headers: { ...requestIdHeaders, ...rateLimitHeaders },
              content: { 'application/json': { schema: { $ref: '#/components/schemas/CleanResponse' } } },
            },
            ...errors,
          },
        },
      },
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { ForecastRequest, CleanRequest, ForecastResponse, CleanResponse, ErrorEnvelope },
    },
  };
}

// The one registry of the contract's error codes, the ApiError every path throws, and the envelope.
// Errors raised in Rust cross the boundary as {code, message, detailsJson} and are looked up here;
// no free text is parsed.
import type { Static } from 'typebox';
import type { ErrorEnvelope as ErrorEnvelopeSchema } from './schemas/response.js';
// Type-only: erased at build, so this module does not load the addon.
import type { EngineError } from './native.js';
import { isEmptyJson } from './json-bytes.js';

/** Every error category; the envelope schema's description lists them from here. */
export const ERROR_CATEGORIES = [
  'invalid_request',
  'data_invalid',
  'limit_exceeded',
  'model_unavailable',
  'auth',
  'conflict',
  'rate_limited',
  'server',
] as const;

export type ErrorCategory = (typeof ERROR_CATEGORIES)[number];

export interface ErrorSpec {
  /** The status a code answers with by default. */
  readonly status: number;
  /** Every status the contract allows for the code (VALIDATION_ERROR: 422 body, 400 headers). */
  readonly statuses: readonly number[];
  readonly category: ErrorCategory;
}

function spec(status: number, category: ErrorCategory, extra: readonly number[] = []): ErrorSpec {
  return { status, statuses: [status, ...extra], category };
}

/** Every code of the contract's error table. */
export const ERROR_CODES = {
  MALFORMED_JSON: spec(400, 'invalid_request'),
  // 422 for the body; 400 for headers (Idempotency-Key, its alias, Content-Type).
  VALIDATION_ERROR: spec(422, 'invalid_request', [400]),
  IDEMPOTENCY_KEY_REUSED: spec(422, 'invalid_request'),
  CLEANING_OPTION_UNSUPPORTED: spec(422, 'invalid_request'),
  INVALID_API_KEY: spec(401, 'auth'),
  INSUFFICIENT_SCOPE: spec(403, 'auth'),
  ACCOUNT_SUSPENDED: spec(403, 'auth'),
  ORG_PENDING_DELETION: spec(403, 'auth'),
  IDEMPOTENCY_IN_PROGRESS: spec(409, 'conflict'),
  FUTURE_COVARIATES_INVALID: spec(422, 'data_invalid'),
  COVARIATE_COLUMN_MISMATCH: spec(422, 'data_invalid'),
  SERIES_DISCONTINUOUS: spec(422, 'data_invalid'),
  TIMESTAMP_IRREGULAR: spec(422, 'data_invalid'),
  FREQ_INFERENCE_FAILED: spec(422, 'data_invalid'),
  FREQ_AMBIGUOUS: spec(422, 'data_invalid'),
  FREQ_UNSUPPORTED: spec(422, 'data_invalid'),
  SERIES_EMPTY: spec(422, 'data_invalid'),
  SERIES_TOO_SHORT: spec(422, 'data_invalid'),
  AMBIGUOUS_DATE_FORMAT: spec(422, 'data_invalid'),
  RAW_INPUT_INVALID: spec(422, 'data_invalid'),
  POINTS_EXCEEDED: spec(422, 'limit_exceeded'),
  SERIES_TOO_LONG: spec(422, 'limit_exceeded'),
  HORIZON_EXCEEDS_MODEL: spec(422, 'limit_exceeded'),
  MODEL_NOT_AVAILABLE: spec(422, 'model_unavailable'),
  MODEL_OPTION_UNSUPPORTED: spec(422, 'model_unavailable'),
  QUANTILE_UNSUPPORTED: spec(422, 'model_unavailable'),
  RATE_LIMIT_EXCEEDED: spec(429, 'rate_limited'),
  INTERNAL_SERVER_ERROR: spec(500, 'server'),
  SERVICE_UNAVAILABLE: spec(503, 'server'),
  MODEL_BUSY: spec(503, 'server'),
  GATEWAY_TIMEOUT: spec(504, 'server'),
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([409, 429, 500, 503, 504]);

/** The contract: `retryable` is true only for 409, 429, 500, 503 and 504. */
export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODES, code);
}

export type ErrorDetails = Record<string, unknown>;

/** What an ApiError carries besides its code and message; each part is optional. */
export interface ApiErrorOptions {
  details?: ErrorDetails;
  /** Extra response headers, such as Retry-After or X-RateLimit-*. */
  headers?: Record<string, string>;
  /**
   * Overrides the code's default status, only with a status the registry lists for it (the 400 of
   * VALIDATION_ERROR); anything else is a programming error.
   */
  status?: number;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly category: ErrorCategory;
  readonly retryable: boolean;
  /** Details as the addon's UTF-8 JSON bytes, while nobody has read them. */
  private detailsBytes: Buffer | undefined;
  private parsedDetails: ErrorDetails | undefined;
  /** Extra response headers, such as Retry-After or X-RateLimit-*. */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, { details, headers, status }: ApiErrorOptions = {}) {
    super(message);
    this.name = 'ApiError';
    const entry: ErrorSpec = ERROR_CODES[code];
    const chosen = status ?? entry.status;
    if (!entry.statuses.includes(chosen)) {
      throw new Error(`status ${chosen} is not registered for ${code}`);
    }
    this.code = code;
    this.status = chosen;
    this.category = entry.category;
    this.retryable = isRetryableStatus(chosen);
    this.parsedDetails = details;
    this.headers = { ...(headers ?? {}) };
  }

  /** `details` as an object (an engine error's text is parsed on first read). */
  get details(): ErrorDetails | undefined {
    if (this.detailsBytes !== undefined) {
      this.parsedDetails = JSON.parse(this.detailsBytes.toString('utf8')) as ErrorDetails;
      this.detailsBytes = undefined;
    }
    return this.parsedDetails;
  }

  /**
   * An engine error with its details as the addon's JSON bytes (`{}`: none). They stay bytes
   * until read: a report of 50,000 entities is tens of megabytes (one of long ids can pass V8's
   * longest string), and the envelope splices the bytes in rather than parsing and serialising
   * them again on the event loop.
   */
  static withDetailsJson(code: ErrorCode, message: string, detailsJson: Buffer): ApiError {
    const err = new ApiError(code, message);
    if (!isEmptyJson(detailsJson, '{}')) err.detailsBytes = detailsJson;
    return err;
  }

  /** The details' JSON bytes, if they are still unread addon bytes. */
  unreadDetailsJson(): Buffer | undefined {
    return this.detailsBytes;
  }
}

/** Refusals of the request's framing (Host, HTTP/1.0 chunking), told apart from other errors on an unopened path. */
const framingRefusals = new WeakSet<ApiError>();

/** An error answered on any path, opened or not, that closes the connection after it. */
function framingRefusal(err: ApiError): ApiError {
  framingRefusals.add(err);
  return err;
}

/**
 * 400 VALIDATION_ERROR for an HTTP/1.1 request without one valid Host; it closes the connection.
 * Answered on an unopened path instead of its plain 404 (RFC 9112 §3.2).
 */
export function hostRefusal(): ApiError {
  return framingRefusal(new ApiError('VALIDATION_ERROR', 'An HTTP/1.1 request must carry one valid Host header.', { details: { field: 'Host' }, headers: { Connection: 'close' }, status: 400 }));
}

/**
 * 400 MALFORMED_JSON for an HTTP/1.0 request with Transfer-Encoding, whose framing RFC 9112 §6.1
 * calls faulty; it closes the connection, on any path.
 */
export function http10ChunkingRefusal(): ApiError {
  return framingRefusal(new ApiError('MALFORMED_JSON', 'The request could not be read: an HTTP/1.0 request cannot use Transfer-Encoding.', { headers: { Connection: 'close' } }));
}

export function isFramingRefusal(err: unknown): boolean {
  return err instanceof ApiError && framingRefusals.has(err);
}

/**
 * `s` cut to at most `maxBytes` UTF-8 bytes at a character boundary, with its length after it, or
 * as it is when it fits: a message need not echo a megabyte value its details already hold.
 */
export function cutForMessage(s: string, maxBytes: number): string {
  const cut = cutAt(s, maxBytes);
  return cut === null ? s : `${cut}… (${Buffer.byteLength(s)} bytes)`;
}

/** `s` quoted for a message, cut after 64 bytes as the engine's messages cut a value: `"abc"… (N bytes)`. */
export function quotedForMessage(s: string): string {
  const cut = cutAt(s, 64);
  return cut === null ? JSON.stringify(s) : `${JSON.stringify(cut)}… (${Buffer.byteLength(s)} bytes)`;
}

/** The longest prefix of `s` of at most `maxBytes` UTF-8 bytes, or null when all of `s` fits. */
function cutAt(s: string, maxBytes: number): string | null {
  if (Buffer.byteLength(s) <= maxBytes) return null;
  let used = 0;
  let end = 0;
  for (const ch of s) {
    used += Buffer.byteLength(ch);
    if (used > maxBytes) break;
    end += ch.length;
  }
  return s.slice(0, end);
}

/** 400 VALIDATION_ERROR about a request header; `details.field` names the header. */
export function headerValidationError(field: string, message: string, extra?: ErrorDetails): ApiError {
  return new ApiError('VALIDATION_ERROR', message, { details: { field, ...(extra ?? {}) }, status: 400 });
}

/** Maps an error object that crossed from the addon (`details` as JSON text) to an ApiError. */
export function fromEngineError(err: EngineError): ApiError {
  if (!isErrorCode(err.code)) {
    return new ApiError('INTERNAL_SERVER_ERROR', 'Unexpected engine error.');
  }
  return ApiError.withDetailsJson(err.code, err.message, err.detailsJson);
}

/** The envelope as the published schema has it (src/schemas/response.ts). */
export type ErrorEnvelope = Static<typeof ErrorEnvelopeSchema>;

function envelopeHead(err: ApiError, requestId: string): ErrorEnvelope['error'] {
  return { code: err.code, category: err.category, retryable: err.retryable, message: err.message, request_id: requestId };
}

export function envelope(err: ApiError, requestId: string): ErrorEnvelope {
  const body = envelopeHead(err, requestId);
  if (err.details !== undefined) body.details = err.details;
  return { error: body };
}

/**
 * The envelope's JSON: text, or the byte pieces that splice in an engine error's unread details
 * (which can be hundreds of megabytes: the service joins them off the event loop).
 */
export function envelopePieces(err: ApiError, requestId: string): string | Buffer[] {
  const bytes = err.unreadDetailsJson();
  if (bytes === undefined) return JSON.stringify(envelope(err, requestId));
  // `{"error":{...}}` without its two closing braces, then the details, then the braces.
  const head = `${JSON.stringify({ error: envelopeHead(err, requestId) }).slice(0, -2)},"details":`;
  return [Buffer.from(head), bytes, Buffer.from('}}')];
}

/** The envelope's JSON, joined here: text, or bytes with an engine error's unread details. */
export function envelopeJson(err: ApiError, requestId: string): string | Buffer {
  const pieces = envelopePieces(err, requestId);
  return typeof pieces === 'string' ? pieces : Buffer.concat(pieces);
}

// ---- Mapping anything thrown to an ApiError --------------------------------------------------

interface FastifyLikeError {
  code?: unknown;
  statusCode?: unknown;
}

/** `/series/3/y` -> `series[3].y`, the contract's path notation. */
export function jsonPointerToPath(pointer: string): string {
  if (pointer === '' || pointer === '/') return '';
  let out = '';
  for (const raw of pointer.replace(/^\//, '').split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(part)) out += `[${part}]`;
    else out += out === '' ? part : `.${part}`;
  }
  return out;
}

/**
 * Maps every thrown thing to a contract error: ApiError as is, Fastify's own errors to the
 * matching code, anything else to 500 INTERNAL_SERVER_ERROR (its message is not shown).
 */
export function toApiError(err: unknown, limits: { bodyLimitBytes: number; maxRows: number }): ApiError {
  if (err instanceof ApiError) return err;
  const e = (typeof err === 'object' && err !== null ? err : {}) as FastifyLikeError;
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      // The body is refused before it is read in full, so its rows are not counted (see docs/service.md).
      return new ApiError('POINTS_EXCEEDED', `The request body exceeds this service's limit of ${limits.bodyLimitBytes} bytes; send fewer rows per request (the cap is ${limits.maxRows} rows).`, {
        details: { cap: limits.maxRows, max_body_bytes: limits.bodyLimitBytes },
      });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_TYPE':
      return headerValidationError('Content-Type', 'The request body must be sent as Content-Type: application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_TYPE':
      return new ApiError('MALFORMED_JSON', 'The request body is not valid JSON.');
    default:
      break;
  }
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
  if (status === 400) return new ApiError('MALFORMED_JSON', 'The request could not be read.');
  if (status > 400 && status < 500) return headerValidationError('request', 'The request could not be processed.');
  return new ApiError('INTERNAL_SERVER_ERROR', 'An unexpected error occurred.');
}

// The JSON content-type parser only collects the raw bytes: the addon parses and validates them
// in the handler (validation order step 3). An oversized body is refused before it is read in
// full (a declared Content-Length first, and a chunked body at the limit).
//
// A body with a Content-Length is copied chunk by chunk, as it arrives, into one buffer of that
// size: no list of chunks joined at the end (a 12 MB body made that join a few milliseconds of
// copying after the last byte, on the event loop). The errors are Fastify's own, so they map to
// the contract's codes like any other body error (src/errors.ts).
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { headerValidationError } from '../errors.js';
import { rawHeaderValues } from '../raw-headers.js';

const EMPTY = Buffer.alloc(0);

type Done = (err: Error | null, body?: unknown) => void;

/** Where a request sent with `Expect: 100-continue` keeps the call that sends its `100 Continue`. */
const SEND_CONTINUE = Symbol('hora.sendContinue');
type Expecting = IncomingMessage & { [SEND_CONTINUE]?: () => void };

/**
 * `Expect: 100-continue` is answered `100 Continue` only when the body is about to be read: after
 * authentication and the other checks made at the headers, and not for a declared length over
 * the limit. A request refused before its body gets its final answer alone, so the
 * client does not upload a body nobody will read (curl sends the expectation for bodies over
 * 1 MB). Node's own handling sent `100 Continue` as the headers arrived. A final answer without
 * `100 Continue` closes the connection (Node's rule), since the client may or may not send the
 * body after it.
 */
export function deferContinue(app: FastifyInstance): void {
  app.server.on('checkContinue', (req: Expecting, res: ServerResponse) => {
    req[SEND_CONTINUE] = () => {
      if (!res.headersSent && !res.writableEnded) res.writeContinue();
    };
    app.server.emit('request', req, res);
  });
}

/** Whether the client waits for `100 Continue` before it sends the body (not sent yet). */
function awaitsContinue(req: FastifyRequest): boolean {
  return (req.raw as Expecting)[SEND_CONTINUE] !== undefined;
}

/** Sends a deferred `100 Continue`, once. */
function sendContinue(req: FastifyRequest): void {
  const raw = req.raw as Expecting;
  const send = raw[SEND_CONTINUE];
  raw[SEND_CONTINUE] = undefined;
  send?.();
}

/** Reads `payload` into one Buffer of at most `limit` bytes. */
export function readBody(req: FastifyRequest, payload: Readable, limit: number, done: Done): void {
  const declared = req.headers['content-length'] === undefined ? Number.NaN : Number(req.headers['content-length']);
  if (declared > limit) return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
  sendContinue(req);
  const known = Number.isSafeInteger(declared) && declared >= 0;
  // With a declared length, one buffer filled in place; without (chunked), chunks joined once.
  const whole = known ? Buffer.allocUnsafeSlow(declared) : null;
  const chunks: Buffer[] = [];
  let received = 0;

  const finish = (err: Error | null, body?: Buffer) => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onError);
    done(err, body);
  };
  function onData(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (received + bytes.length > limit) return finish(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    if (whole) {
      if (received + bytes.length > whole.length) return finish(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      bytes.copy(whole, received);
    } else {
      chunks.push(bytes);
    }
    received += bytes.length;
  }
  function onEnd(): void {
    if (whole) {
      if (received !== whole.length) return finish(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      return finish(null, whole);
    }
    finish(null, Buffer.concat(chunks, received));
  }
  function onError(err: Error & { statusCode?: number }): void {
    if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
    finish(err);
  }
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
  payload.resume();
}

/**
 * Content-Type is a singleton (RFC 9110 §8.3): with two, which one counts would depend on their
 * order (Node keeps the first), so the body has no one media type.
 */
function hasSeveralMediaTypes(req: FastifyRequest): boolean {
  return rawHeaderValues(req.raw.rawHeaders, 'content-type').length > 1;
}

/** The media type the parser takes: `application/json`, any parameters, any case. */
function isJsonMediaType(req: FastifyRequest): boolean {
  if (hasSeveralMediaTypes(req)) return false;
  const type = req.headers['content-type'];
  // Without Content-Type only an empty body gets through (Fastify parses nothing then).
  if (type === undefined) return !(Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined);
  return type.split(';', 1)[0].trim().toLowerCase() === 'application/json';
}

/** Why a body under each coding header is refused. */
const CODING_REFUSED = {
  'Content-Encoding': 'The request body must be sent uncompressed (no Content-Encoding, or identity).',
  'Transfer-Encoding': 'The request body must be sent uncompressed (Transfer-Encoding: chunked only).',
} as const;

/**
 * The header declaring a coding the parser does not undo, if any: a content coding other than
 * `identity`, or a transfer coding other than `chunked` (Node's parser removes only the chunking,
 * so `Transfer-Encoding: gzip, chunked` would hand it gzip bytes).
 */
function encodingHeader(req: FastifyRequest): keyof typeof CODING_REFUSED | null {
  // Both are lists (Node joins a repeated header with commas): every entry is judged.
  if (codings(req.headers['content-encoding']).some((c) => c !== 'identity')) return 'Content-Encoding';
  if (codings(req.headers['transfer-encoding']).some((c) => c !== 'chunked' && c !== 'identity')) return 'Transfer-Encoding';
  return null;
}

function codings(header: string | undefined): string[] {
  return header === undefined ? [] : header.split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '');
}

/** The body will be refused for its headers alone (media type or coding). */
export function refusedByHeaders(req: FastifyRequest): boolean {
  return !isJsonMediaType(req) || encodingHeader(req) !== null;
}

/**
 * The refusal of a body the JSON parser received for its headers: a coding it does not undo, or
 * a second Content-Type. (A single other media type never reaches the parser.)
 */
function headerRefusal(req: FastifyRequest): Error | null {
  const encoded = encodingHeader(req);
  if (encoded) return headerValidationError(encoded, CODING_REFUSED[encoded]);
  if (hasSeveralMediaTypes(req)) return headerValidationError('Content-Type', 'The request body must be sent with one Content-Type header, application/json.');
  return null;
}

export default fp(
  async (app) => {
    app.decorateRequest('rawBody', null as unknown as Buffer);
    deferContinue(app);
    app.addHook('onRequest', async (req) => {
      req.rawBody = EMPTY;
    });
    // Only JSON bodies are accepted: any other media type answers 400 VALIDATION_ERROR (Content-Type).
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', (req, payload, done) => {
      // An unopened path answers its plain 404 at the headers, as a 401 is: the body is never
      // buffered (a caller without a key could otherwise make the server hold up to the body
      // limit); Node discards what still arrives once the answer is sent, so the connection
      // stays usable. A client waiting for `100 Continue` is not asked to upload it at all.
      if (req.is404) return done(null, undefined);
      // A compressed body read as text would be a misleading MALFORMED_JSON (or, worse, plain
      // JSON labelled gzip would pass): the coding is refused by name, as a second Content-Type
      // is, once the bytes are in (up to the limit), so a client still sending reads the answer
      // rather than a reset; Fastify then closes the connection, as after any body-parser error.
      // A client still waiting for `100 Continue` is refused at once and uploads nothing. The
      // header's refusal comes before the size's either way, as a single other media type's
      // does (step 3 before step 4).
      const refusal = headerRefusal(req);
      if (refusal && awaitsContinue(req)) return done(refusal, undefined);
      readBody(req, payload as unknown as Readable, app.config.bodyLimitBytes, (err, body) => {
        if (refusal) return done(refusal, undefined);
        if (err) return done(err, undefined);
        req.rawBody = body as Buffer;
        done(null, undefined);
      });
    });
  },
  { name: 'hora-body', fastify: '5.x' },
);

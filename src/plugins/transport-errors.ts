// Requests that fail before Fastify routes them still get the contract's error envelope: Node's
// HTTP parser refusing the bytes (a bad Content-Length, chunk size or header), and a URL that
// cannot be decoded. Passed to the Fastify constructor (`clientErrorHandler`, `frameworkErrors`).
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, envelopeJson, headerValidationError } from '../errors.js';
import { sendEnvelope, sendNotFound } from './errors.js';
import { newRequestId } from './request-id.js';

/** Parser errors about the header block; the others concern the body's framing. */
const HEADER_ERRORS = new Set(['HPE_INVALID_HEADER_TOKEN', 'HPE_LF_EXPECTED', 'HPE_CR_EXPECTED']);

/** The contract error for bytes Node's parser refused. */
function parserError(code: string | undefined): ApiError {
  if (code === 'HPE_HEADER_OVERFLOW') return headerValidationError('headers', 'The request headers are too large.');
  if (code !== undefined && HEADER_ERRORS.has(code)) return headerValidationError('headers', 'A request header could not be read.');
  return new ApiError('MALFORMED_JSON', 'The request could not be read: its Content-Length, Transfer-Encoding or chunks are malformed.');
}

/**
 * Answers on the raw socket, once, and closes it: the connection's byte stream cannot be trusted
 * after a framing error. A client timeout keeps Node's own 408 (no contract code covers it).
 */
export function clientErrorHandler(err: { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let status: number;
  let body: string;
  let requestId = '';
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    status = 408;
    body = JSON.stringify({ error: STATUS_CODES[408], message: 'Client Timeout', statusCode: 408 });
  } else {
    const api = parserError(err.code);
    requestId = newRequestId();
    status = api.status;
    body = envelopeJson(api, requestId);
  }
  if (socket.writable) {
    const head = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      ...(requestId ? [`X-Request-Id: ${requestId}`] : []),
      'Connection: close',
    ];
    socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
  }
  socket.destroy();
}

/**
 * Errors Fastify raises before routing. A URL that cannot be decoded names no opened path: the
 * plain 404 of unopened paths. Anything else gets the envelope.
 */
export function frameworkErrors(error: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_BAD_URL') {
    sendNotFound(reply);
    return;
  }
  const api = error.code === 'FST_ERR_ASYNC_CONSTRAINT' ? new ApiError('INTERNAL_SERVER_ERROR', 'An unexpected error occurred.') : new ApiError('MALFORMED_JSON', 'The request could not be read.');
  sendEnvelope(reply.header('X-Request-Id', req.id), api, req.id);
}

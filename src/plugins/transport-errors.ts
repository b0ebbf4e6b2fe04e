// The edges of HTTP that Node or Fastify would answer on their own, answered as the contract and
// docs/service.md say: bytes Node's parser refuses (a bad Content-Length, chunk size, header or
// method token), a URL that cannot be decoded, CONNECT, an HTTP/1.1 request without one valid
// Host, an unknown Expect. Passed to the Fastify constructor (`clientErrorHandler`,
// `frameworkErrors`) or registered by buildApp.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIPv6, type Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, envelopeJson, headerValidationError, hostRefusal, http10ChunkingRefusal } from '../errors.js';
import { sendEnvelope, sendNotFound } from './errors.js';
import { rawHeaderValues } from '../raw-headers.js';
import { answersDeprecated, DEPRECATION_HEADER_VALUE, malformedKey } from './idempotency.js';
import { clientRequestId, newRequestId, setRequestIds } from './request-id.js';
import { connectionsOf } from '../shutdown.js';

/** Parser errors about the header block; the others concern the body's framing. */
const HEADER_ERRORS = new Set(['HPE_INVALID_HEADER_TOKEN', 'HPE_LF_EXPECTED', 'HPE_CR_EXPECTED']);
/** Parser errors about the request line (a path without its slash, `HTTP/1.2`, an HTTP/2 preface). */
const REQUEST_LINE_ERRORS = new Set(['HPE_INVALID_URL', 'HPE_INVALID_VERSION', 'HPE_INVALID_CONSTANT', 'HPE_PAUSED_H2_UPGRADE']);

/**
 * The contract error for bytes Node's parser refused (`header`: the header it stopped in, when
 * known), or a request that never arrived in full;
 * null for a method token the parser does not know (`FOO`, `post`), which opens no path: the
 * plain 404, as for any other method on a live path.
 */
function parserError(code: string | undefined, header: string | null): ApiError | null {
  if (code === 'HPE_INVALID_METHOD') return null;
  // The contract has no 408 and every error gets the envelope: what arrived is not a whole JSON
  // body, so it is refused as one (MALFORMED_JSON, 400).
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new ApiError('MALFORMED_JSON', 'The request did not arrive in full within the request timeout; send it again whole.');
  if (code === 'HPE_HEADER_OVERFLOW') return headerValidationError('headers', 'The request headers are too large.');
  if (code !== undefined && HEADER_ERRORS.has(code)) return unreadableHeader(header);
  if (code !== undefined && REQUEST_LINE_ERRORS.has(code)) return new ApiError('MALFORMED_JSON', 'The request line (method, path, HTTP version) could not be read.');
  return new ApiError('MALFORMED_JSON', 'The request could not be read: its Content-Length, Transfer-Encoding or chunks are malformed.');
}

/**
 * Where Node's parser stopped: the bytes it was given (`rawPacket`, a Buffer; Fastify's type
 * says otherwise) and the offset of the refused one.
 */
export interface ParseErrorPlace {
  rawPacket?: unknown;
  bytesParsed?: number;
}

/** A header name (RFC 9110 token), as the parser would have read it. */
const TOKEN_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The name of the header whose value holds the byte the parser refused (a control character,
 * a CR without its LF), or null when the error lies in a name or the line did not start in the
 * bytes at hand. `bytesParsed` is the offset of the refused byte in `rawPacket`, which may also
 * hold earlier pipelined requests; its line is the one after the last line break before it.
 */
export function headerAt(at: ParseErrorPlace): string | null {
  const { rawPacket, bytesParsed } = at;
  if (!Buffer.isBuffer(rawPacket) || bytesParsed === undefined || bytesParsed > rawPacket.length) return null;
  const before = rawPacket.subarray(0, bytesParsed);
  const lineStart = before.lastIndexOf(0x0a);
  if (lineStart < 0) return null;
  const line = before.subarray(lineStart + 1).toString('latin1');
  const colon = line.indexOf(':');
  if (colon <= 0) return null;
  const name = line.slice(0, colon);
  return TOKEN_RE.test(name) ? name : null;
}

/** `idempotency-key` → `Idempotency-Key`: header names as the contract writes them. */
function canonicalHeaderName(name: string): string {
  return name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1).toLowerCase())
    .join('-');
}

/** The 400 for a header block the parser refused, naming the header when it is known. */
function unreadableHeader(name: string | null): ApiError {
  if (name === null) return headerValidationError('headers', 'A request header could not be read.');
  const field = canonicalHeaderName(name);
  if (field === 'Idempotency-Key' || field === 'X-Idempotency-Key') return malformedKey(field);
  return headerValidationError(field, `The ${field} header could not be read: its value holds a control character.`);
}

/** How long a refused connection lingers after its 400 before it is destroyed. */
const REFUSAL_LINGER_MS = 2_000;

/** Connections with a refusal pending or sent: Node reports the error again for each later chunk. */
const refusing = new WeakSet<Socket>();

/**
 * Answers on the raw socket, once, and closes it: the connection's byte stream cannot be trusted
 * after a framing error or a request cut off by the timeout.
 */
export function clientErrorHandler(err: { code?: string } & ParseErrorPlace, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed || refusing.has(socket)) return;
  refusing.add(socket);
  // Nothing read from here on can be trusted or run: reading stops (no more request can complete,
  // nothing piles up in memory while earlier requests finish).
  socket.pause();
  // Requests received in full before the bad bytes are answered first: their responses (run, and
  // billed) must reach the client whole, and this 400 must follow them, not replace them.
  const code = err.code;
  // Read now: the packet is not kept while earlier requests finish.
  const header = HEADER_ERRORS.has(code ?? '') ? headerAt(err) : null;
  const connections = connectionsOf(socket);
  // The rest of a body whose request was already answered: no request is left to answer, and a
  // second response would be read as the answer to the client's next request. Closed quietly.
  if (connections?.answeredBeforeItsBody(socket)) {
    endAfterLinger(socket);
    return;
  }
  // When the error concerns a request whose headers were read (a bad chunk, the timeout), its
  // X-Request-Id is echoed as on any other response; a header error leaves nothing to echo.
  const receiving = connections?.receiving(socket);
  const clientId = clientRequestId(receiving?.headers['x-request-id']);
  // So is the `Deprecation` of a request that sent the idempotency key's alias alone.
  const extra = receiving !== undefined && answersDeprecated(receiving) ? [`Deprecation: ${DEPRECATION_HEADER_VALUE}`] : [];
  afterEarlierAnswered(socket, () => refuse(code, header, clientId, socket, extra));
}

/** Runs `fn` once the requests received in full on `socket` have been answered (at once if none). */
function afterEarlierAnswered(socket: Socket, fn: () => void): void {
  const connections = connectionsOf(socket);
  if (connections) connections.afterAnswered(socket, fn);
  else fn();
}

/**
 * Ends the connection (after `last`, if given), then destroys it after a short linger: destroyed
 * at once, a client still sending would get a reset that can drop the answer.
 */
function endAfterLinger(socket: Socket, last?: string | Buffer): void {
  if (socket.writable) socket.end(last ?? '');
  setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS).unref();
}

function refuse(code: string | undefined, header: string | null, clientId: string, socket: Socket, extra: string[]): void {
  const api = parserError(code, header);
  if (api) answerRaw(socket, api.status, 'application/json; charset=utf-8', (requestId) => envelopeJson(api, requestId), clientId, extra);
  else answerRaw(socket, 404, 'text/plain; charset=utf-8', () => NOT_FOUND_BODY, clientId, extra);
}

/** The plain 404's body, as `sendNotFound` writes it. */
const NOT_FOUND_BODY = 'Not Found';

/** One response written on the raw socket with the service's ids, then the connection closed. */
function answerRaw(socket: Socket, status: number, contentType: string, body: (requestId: string) => string | Buffer, clientId: string, extra: string[] = []): void {
  if (socket.destroyed) return;
  const requestId = newRequestId();
  const text = body(requestId);
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    `Content-Type: ${contentType}`,
    `Content-Length: ${Buffer.byteLength(text)}`,
    `X-Request-Id: ${requestId}`,
    `X-Client-Request-Id: ${clientId}`,
    ...extra,
    'Connection: close',
  ];
  // Reading stays paused (after a timeout the parser would still complete the request and run it).
  endAfterLinger(socket, Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), typeof text === 'string' ? Buffer.from(text) : text]));
}

/**
 * `CONNECT` opens no path (the service is no proxy): the plain 404. Node hands it to the server's
 * `connect` event, and without a listener it closes the connection with no answer at all. Node
 * reads nothing more from the connection after it; requests received before it on the same
 * connection are answered in full first, as after a parser error.
 */
export function refuseConnect(req: IncomingMessage, socket: Socket): void {
  socket.pause();
  afterEarlierAnswered(socket, () => answerRaw(socket, 404, 'text/plain; charset=utf-8', () => NOT_FOUND_BODY, clientRequestId(req.headers['x-request-id'])));
}

/**
 * An `Expect` other than `100-continue` is ignored, as RFC 9110 §10.1.1 allows: the request is
 * answered as if it had none. Without a listener Node answers it with a bare 417 of its own (no
 * envelope, no ids), a status the contract does not have.
 */
export function ignoreUnknownExpectations(app: FastifyInstance): void {
  app.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => app.server.emit('request', req, res));
}

/**
 * RFC 9112 §3.2: an HTTP/1.1 request without Host, with several, or with one that is not a host
 * is answered 400, here in the envelope naming the header (Node's own refusal of a missing one,
 * `requireHostHeader`, is a bare 400; it lets the others through), and the connection is closed
 * after it. A root hook run synchronously when the request arrives, so the connection is
 * marked before the parser reads a request pipelined behind this one: that one could never be
 * answered after the close, and is not run (nor billed).
 */
export function requireHost(app: FastifyInstance): void {
  app.addHook('onRequest', (req, reply, done) => {
    if (req.raw.httpVersion !== '1.1' || hostIsValid(req.raw.rawHeaders)) {
      done();
      return;
    }
    connectionsOf(req.raw.socket)?.markLast(req.raw.socket);
    setRequestIds(req, reply);
    done(hostRefusal());
  });
}

/**
 * RFC 9112 §6.1: an HTTP/1.0 message with Transfer-Encoding has faulty framing, even with a
 * Content-Length, and the connection is closed after the answer (an HTTP/1.0 intermediary would
 * not have read the chunks as the body, so a request hidden in them must never run). Node's
 * parser reads the chunks; this root hook refuses the request first, as `requireHost` does.
 */
export function refuseHttp10Chunking(app: FastifyInstance): void {
  app.addHook('onRequest', (req, reply, done) => {
    if (req.raw.httpVersion !== '1.0' || req.headers['transfer-encoding'] === undefined) {
      done();
      return;
    }
    connectionsOf(req.raw.socket)?.markLast(req.raw.socket);
    setRequestIds(req, reply);
    done(http10ChunkingRefusal());
  });
}

/**
 * RFC 3986 `host [":" port]`: a reg-name or IPv4 address (unreserved, sub-delims,
 * percent-encoded octets) or an IP literal in brackets (an IPv6 address, or IPvFuture
 * `v<hex>.<chars>`), then digits after one colon. Empty is allowed (RFC 9112 §3.2: a target
 * without authority).
 */
const REG_NAME_RE = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
const IP_FUTURE_RE = /^v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+$/;
const PORT_RE = /^(?::[0-9]*)?$/;

function isHost(value: string): boolean {
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    const literal = value.slice(1, close);
    return close > 0 && (isIPv6(literal) || IP_FUTURE_RE.test(literal)) && PORT_RE.test(value.slice(close + 1));
  }
  const colon = value.indexOf(':');
  const name = colon < 0 ? value : value.slice(0, colon);
  return REG_NAME_RE.test(name) && PORT_RE.test(colon < 0 ? '' : value.slice(colon));
}

/** Exactly one Host header, whose value is a host (RFC 9112 §3.2 refuses none, several, or an invalid one). */
function hostIsValid(raw: readonly string[]): boolean {
  const hosts = rawHeaderValues(raw, 'host');
  return hosts.length === 1 && isHost(hosts[0]!);
}

/**
 * Errors Fastify raises before routing. A URL that cannot be decoded names no opened path: the
 * plain 404 of unopened paths. Anything else gets the envelope.
 */
export function frameworkErrors(error: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_BAD_URL') {
    // Before the request-id plugin's hook: its headers are set here, as on every other 404.
    sendNotFound(setRequestIds(req, reply));
    return;
  }
  const api = error.code === 'FST_ERR_ASYNC_CONSTRAINT' ? new ApiError('INTERNAL_SERVER_ERROR', 'An unexpected error occurred.') : new ApiError('MALFORMED_JSON', 'The request could not be read.');
  sendEnvelope(setRequestIds(req, reply), api, req.id);
}

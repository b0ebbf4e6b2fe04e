// How the SQLite store keeps an idempotent outcome's body: as bytes, compressed when large, in
// chunks. Never as one JS string: a forecast response can pass V8's longest string (about
// 512 MiB), and a body turned into a string would not come back byte for byte anyway.
import { promisify } from 'node:util';
import { deflate, inflate } from 'node:zlib';

export type BodyEncoding = 'identity' | 'deflate';

/** Bodies from this size on are stored deflated; smaller ones are not worth a thread-pool trip. */
export const COMPRESS_MIN_BYTES = 64 * 1024;

/**
 * Stored bytes per chunk row: a few milliseconds of copying each, so the event loop gets a turn
 * between the chunks of a large body.
 */
export const CHUNK_BYTES = 4 * 1024 * 1024;

// Level 1: a forecast response compresses almost as well as at level 6 (2.5x against 2.8x on
// random-walk quantiles) at three times the speed, and the first response waits for it.
const DEFLATE_OPTIONS = { level: 1, chunkSize: 1024 * 1024 };
const deflateAsync = promisify(deflate);
const inflateAsync = promisify(inflate);

export interface EncodedBody {
  encoding: BodyEncoding;
  bytes: Buffer;
}

/** The bytes to store for `body`; zlib runs on the thread pool, off the event loop. */
export async function encodeBody(body: Buffer): Promise<EncodedBody> {
  if (body.length < COMPRESS_MIN_BYTES) return { encoding: 'identity', bytes: body };
  const packed = await deflateAsync(body, DEFLATE_OPTIONS);
  // Incompressible bytes are kept as they are rather than grown.
  return packed.length < body.length ? { encoding: 'deflate', bytes: packed } : { encoding: 'identity', bytes: body };
}

/** The response body of stored bytes. */
export async function decodeBody(encoding: BodyEncoding, bytes: Buffer): Promise<Buffer> {
  return encoding === 'deflate' ? inflateAsync(bytes, DEFLATE_OPTIONS) : bytes;
}

/** `bytes` cut into chunks of at most CHUNK_BYTES (at least one, for an empty body). */
export function* chunks(bytes: Buffer): Generator<Buffer> {
  if (bytes.length === 0) {
    yield bytes;
    return;
  }
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES) yield bytes.subarray(at, at + CHUNK_BYTES);
}

export function isBodyEncoding(v: unknown): v is BodyEncoding {
  return v === 'identity' || v === 'deflate';
}

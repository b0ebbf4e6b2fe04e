// Idempotency records and their stored bodies, a chunk per row, in the SQLite store. A stored
// outcome's body can be hundreds of MB: it is written and read a chunk per call, with a turn of
// the event loop between chunks.
import type { SqliteDb } from '../addon.js';
import { chunks, decodeBody, encodeBody, isBodyEncoding, type EncodedBody } from '../outcome.js';
import type { IdempotencyBegin, IdempotencyScope, PreparedOutcome, StoredResponse } from '../store.js';
import { nextTurn, num, one, text, transaction, type Row } from './sql.js';

/** The columns that tie a stored body's chunks to its record and the request that stored it. */
const chunkOwner = (scope: IdempotencyScope, requestId: string): string[] => [scope.keyId, scope.route, scope.idempotencyKey, requestId];

export class SqliteIdempotency {
  constructor(private readonly db: SqliteDb) {}

  async begin(scope: IdempotencyScope, bodyDigest: string, requestId: string, nowMs: number, leaseMs: number): Promise<IdempotencyBegin> {
    const pk = [scope.keyId, scope.route, scope.idempotencyKey];
    const found = transaction(this.db, (): IdempotencyBegin | { state: 'stored'; row: Row } => {
      const row = one(this.db, 'SELECT * FROM idempotency WHERE key_id = ? AND route = ? AND idem_key = ?', pk);
      // An expired record (a finished one past retention, or a running one whose process died) is gone.
      if (row && num(row.expires_at) > nowMs) {
        // While the first runs, any request with the key waits (contract: 409), whatever its
        // body: the first may still end unstored (a 5xx, a 429) and leave the key free for it.
        if (row.state !== 'completed') return { state: 'in_progress', bodyDigest: text(row.body_digest) };
        if (text(row.body_digest) !== bodyDigest) return { state: 'reused' };
        return { state: 'stored', row };
      }
      // A running record names the request that claimed it: only that one completes or withdraws
      // it. One that outlived its lease (a clock jump, a stalled process) finds the record claimed
      // by another and leaves it alone.
      this.db.run(
        `INSERT INTO idempotency (key_id, route, idem_key, body_digest, state, request_id, expires_at) VALUES (?, ?, ?, ?, 'running', ?, ?)
         ON CONFLICT(key_id, route, idem_key) DO UPDATE SET body_digest = excluded.body_digest, state = 'running',
           status = NULL, content_type = NULL, body = NULL, body_encoding = NULL, stored_bytes = NULL, request_id = excluded.request_id,
           expires_at = excluded.expires_at`,
        [...pk, bodyDigest, requestId, nowMs + leaseMs],
      );
      return { state: 'started' };
    });
    if (found.state !== 'stored') return found;
    const row = found.row;
    const storedBy = text(row.request_id);
    const stored = await this.storedBody(scope, row);
    return {
      state: 'completed',
      bodyDigest: text(row.body_digest),
      response: { status: num(row.status), contentType: text(row.content_type), body: await decodeBody(stored.encoding, stored.bytes), requestId: storedBy },
      storedBytes: stored.bytes.length,
    };
  }

  /**
   * The stored bytes of a completed record, read one chunk per query after the claim's
   * transaction: a completed record's chunks never change while it lives (they belong to its
   * request id), and the event loop gets a turn between chunks of a large body.
   */
  private async storedBody(scope: IdempotencyScope, row: Row): Promise<EncodedBody> {
    const encoding = row.body_encoding;
    // A record stored before migration 3 kept its body as TEXT.
    if (encoding === null || encoding === undefined) return { encoding: 'identity', bytes: Buffer.from(text(row.body), 'utf8') };
    if (!isBodyEncoding(encoding)) throw new Error(`idempotency record has an unknown body encoding ${String(encoding)}`);
    const parts: Buffer[] = [];
    let length = 0;
    for (let seq = 0; ; seq++) {
      if (seq > 0) await nextTurn();
      const part = this.db.queryBlob('SELECT data FROM idempotency_chunks WHERE key_id = ? AND route = ? AND idem_key = ? AND request_id = ? AND seq = ?', [
        ...chunkOwner(scope, text(row.request_id)),
        seq,
      ]);
      if (part === null) break;
      parts.push(part);
      length += part.length;
    }
    if (length !== num(row.stored_bytes)) throw new Error(`idempotency record holds ${length} of its ${num(row.stored_bytes)} stored bytes`);
    return { encoding, bytes: parts.length === 1 ? parts[0]! : Buffer.concat(parts, length) };
  }

  async complete(scope: IdempotencyScope, response: StoredResponse, nowMs: number, retentionMs: number): Promise<void> {
    this.completeRecord(await this.prepare(scope, response, nowMs, retentionMs));
  }

  async prepare(scope: IdempotencyScope, response: StoredResponse, nowMs: number, retentionMs: number): Promise<PreparedOutcome> {
    const expiresAt = nowMs + retentionMs;
    const { encoding, bytes } = await encodeBody(response.body);
    const owner = chunkOwner(scope, response.requestId);
    try {
      // The chunks are invisible until the record names them (completeRecord), so they need no
      // transaction and the event loop gets a turn between them.
      let seq = 0;
      for (const chunk of chunks(bytes)) {
        if (seq > 0) await nextTurn();
        this.db.runWithBlob(
          'INSERT INTO idempotency_chunks (key_id, route, idem_key, request_id, seq, expires_at, data) VALUES (?, ?, ?, ?, ?, ?, ?)',
          [...owner, seq++, expiresAt],
          chunk,
        );
      }
    } catch (err) {
      this.dropChunks(scope, response.requestId);
      throw err;
    }
    const { status, contentType, requestId } = response;
    return { scope, status, contentType, requestId, encoding, storedBytes: bytes.length, expiresAt };
  }

  /**
   * Names the prepared body in its record, which makes it the key's outcome (also inside the
   * billing transaction of `quotaSettle`).
   */
  completeRecord(p: PreparedOutcome): void {
    try {
      const out = this.db.run(
        `UPDATE idempotency SET state = 'completed', status = ?, content_type = ?, body = NULL, body_encoding = ?, stored_bytes = ?,
           request_id = ?, expires_at = ?
         WHERE key_id = ? AND route = ? AND idem_key = ? AND state = 'running' AND request_id = ?`,
        [p.status, p.contentType, p.encoding, p.storedBytes, p.requestId, p.expiresAt, p.scope.keyId, p.scope.route, p.scope.idempotencyKey, p.requestId],
      );
      // The record was forgotten meanwhile, or claimed by another request once this one's lease
      // ended: nothing would ever read these chunks.
      if (out.changes === 0) this.dropChunks(p.scope, p.requestId);
    } catch (err) {
      this.dropChunks(p.scope, p.requestId);
      throw err;
    }
  }

  private deleteChunks(scope: IdempotencyScope, requestId: string): void {
    this.db.run('DELETE FROM idempotency_chunks WHERE key_id = ? AND route = ? AND idem_key = ? AND request_id = ?', chunkOwner(scope, requestId));
  }

  /** `deleteChunks` where a failure must not hide the caller's own error. */
  private dropChunks(scope: IdempotencyScope, requestId: string): void {
    try {
      this.deleteChunks(scope, requestId);
    } catch {
      // The sweep removes them with their expiry.
    }
  }

  async withdraw(scope: IdempotencyScope, requestId: string): Promise<void> {
    transaction(this.db, () => {
      this.db.run(
        'DELETE FROM idempotency WHERE key_id = ? AND route = ? AND idem_key = ? AND request_id = ?',
        [scope.keyId, scope.route, scope.idempotencyKey, requestId],
      );
      this.deleteChunks(scope, requestId);
    });
  }

  /** Deletes expired records and their chunks. */
  sweep(nowMs: number): void {
    this.db.run('DELETE FROM idempotency WHERE expires_at <= ?', [nowMs]);
    // Chunks share their record's expiry; this also takes those of a process that died mid-store.
    this.db.run('DELETE FROM idempotency_chunks WHERE expires_at <= ?', [nowMs]);
  }
}

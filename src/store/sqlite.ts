// The Store over the addon's embedded SQLite executor. Calls are synchronous and sub-millisecond
// (a stored outcome's body, which can be hundreds of MB, is written and read a chunk per call);
// a multi-statement change runs inside BEGIN IMMEDIATE so that the CLI and a server (two
// processes on one file) never interleave.
import { mkdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { SqliteDb, UNIQUE_VIOLATION } from './addon.js';
import { MIGRATIONS } from './migrations.js';
import { chunks, decodeBody, encodeBody, isBodyEncoding, type EncodedBody } from './outcome.js';
import {
  StoreConflictError,
  StoreOpenError,
  StoreNotFoundError,
  type AccountRecord,
  type CleaningDefaults,
  type Endpoint,
  type IdempotencyBegin,
  type IdempotencyScope,
  type PreparedOutcome,
  type KeyContext,
  type KeyRecord,
  type NewKey,
  type OrgPatch,
  type OrgRecord,
  type QuotaHold,
  type QuotaResult,
  type RpmResult,
  type Store,
  type StoredResponse,
  type UsageRow,
  type UsageSummary,
} from './store.js';
import type { PolicyVersion, Preset } from '../policy/table.js';

type Row = Record<string, unknown>;

export const DB_FILE_NAME = 'hora.sqlite';

const nowIso = (): string => new Date().toISOString();
const bool = (v: unknown): boolean => v === 1 || v === true;
const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0));
const text = (v: unknown): string => (typeof v === 'string' ? v : String(v ?? ''));
const textOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);
/** The columns that tie a stored body's chunks to its record and the request that stored it. */
const chunkOwner = (scope: IdempotencyScope, requestId: string): string[] => [scope.keyId, scope.route, scope.idempotencyKey, requestId];
/** Lets other callbacks run between the steps of a long store operation. */
const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

function orgFrom(r: Row, prefix = ''): OrgRecord {
  return {
    org: text(r[`${prefix}org`]),
    preset: textOrNull(r[`${prefix}preset`]) as Preset | null,
    version: textOrNull(r[`${prefix}version`]) as PolicyVersion | null,
    suspended: bool(r[`${prefix}suspended`]),
    pendingDeletion: bool(r[`${prefix}pending_deletion`]),
    createdAt: text(r[`${prefix}created_at`]),
  };
}

function accountFrom(r: Row, prefix = ''): AccountRecord {
  return {
    account: text(r[`${prefix}account`]),
    org: text(r[`${prefix}org`]),
    suspended: bool(r[`${prefix}suspended`]),
    createdAt: text(r[`${prefix}created_at`]),
  };
}

function keyFrom(r: Row, prefix = ''): KeyRecord {
  const scopes = JSON.parse(text(r[`${prefix}scopes`]) || '[]') as string[];
  return {
    keyId: text(r[`${prefix}key_id`]),
    account: text(r[`${prefix}account`]),
    name: text(r[`${prefix}name`]),
    scopes,
    preset: textOrNull(r[`${prefix}preset`]) as Preset | null,
    version: textOrNull(r[`${prefix}version`]) as PolicyVersion | null,
    revoked: bool(r[`${prefix}revoked`]),
    createdAt: text(r[`${prefix}created_at`]),
  };
}

/** A row with that key already exists: told by the addon's error code, not its message. */
function isUniqueViolation(err: unknown): boolean {
  return err instanceof Error && (err as { code?: unknown }).code === UNIQUE_VIOLATION;
}

/**
 * `mkdir -p`, one level at a time: Node 20's `mkdirSync(dir, { recursive: true })` never returns
 * for a path under a directory that refuses new entries with ENOENT, such as `/proc/nope`.
 */
function makeDirectory(dir: string): void {
  const missing: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    const stat = statSync(d, { throwIfNoEntry: false });
    if (stat) {
      if (!stat.isDirectory()) throw new Error(`${d} is not a directory`);
      break;
    }
    missing.push(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d);
    } catch (err) {
      // Another process (the CLI, a second server) may create it first, as recursive mkdir allowed.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(d).isDirectory()) throw err;
    }
  }
}

export class SqliteStore implements Store {
  private constructor(private readonly db: SqliteDb) {}

  /** Opens (creating the directory and file when absent) and migrates the store of `dataDir`. */
  static async open(dataDir: string): Promise<SqliteStore> {
    const dir = resolve(dataDir);
    let store: SqliteStore | undefined;
    try {
      makeDirectory(dir);
      store = new SqliteStore(new SqliteDb(join(dir, DB_FILE_NAME)));
      store.migrate();
    } catch (err) {
      await store?.close();
      const detail = err instanceof Error ? err.message : String(err);
      throw new StoreOpenError(`the store under HORA_DATA_DIR=${dir} could not be opened: ${detail}`, { cause: err });
    }
    return store;
  }

  private migrate(): void {
    this.transaction(() => {
      this.db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
      const done = num(this.db.query('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations', [])[0]?.v);
      // A store a newer build migrated: this build would write state that schema no longer means.
      if (done > MIGRATIONS.length) {
        throw new Error(`it was written by a newer version of hora (schema ${done}; this version knows ${MIGRATIONS.length})`);
      }
      for (let v = done + 1; v <= MIGRATIONS.length; v++) {
        this.db.exec(MIGRATIONS[v - 1]!);
        this.db.run('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)', [v, nowIso()]);
      }
      // One real write at every open: SQLite opens a file it may not write read-only, without a
      // word, and every later write would then fail one request at a time.
      this.db.exec(`PRAGMA user_version = ${MIGRATIONS.length}`);
    });
  }

  private transaction<T>(fn: () => T): T {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const out = fn();
      this.db.exec('COMMIT');
      return out;
    } catch (err) {
      // SQLite has rolled back by itself after some failures (a full disk, an I/O error); the
      // ROLLBACK's own "no transaction is active" must not hide the cause.
      try {
        this.db.exec('ROLLBACK');
      } catch {
        // already rolled back
      }
      throw err;
    }
  }

  private one(sql: string, params: unknown[]): Row | undefined {
    return this.db.query(sql, params)[0] as Row | undefined;
  }

  // ---- tenants ----

  async createOrg(org: string, defaults: CleaningDefaults): Promise<OrgRecord> {
    try {
      const row = this.one('INSERT INTO orgs (org, preset, version, created_at) VALUES (?, ?, ?, ?) RETURNING *', [org, defaults.preset, defaults.version, nowIso()]);
      return orgFrom(row!);
    } catch (err) {
      if (isUniqueViolation(err)) throw new StoreConflictError(`org "${org}" already exists`);
      throw err;
    }
  }

  async updateOrg(org: string, patch: OrgPatch): Promise<OrgRecord | null> {
    const sets: string[] = [];
    const params: unknown[] = [];
    if (patch.preset !== undefined) (sets.push('preset = ?'), params.push(patch.preset));
    if (patch.version !== undefined) (sets.push('version = ?'), params.push(patch.version));
    if (patch.suspended !== undefined) (sets.push('suspended = ?'), params.push(patch.suspended ? 1 : 0));
    if (patch.pendingDeletion !== undefined) (sets.push('pending_deletion = ?'), params.push(patch.pendingDeletion ? 1 : 0));
    const row = sets.length === 0
      ? this.one('SELECT * FROM orgs WHERE org = ?', [org])
      : this.one(`UPDATE orgs SET ${sets.join(', ')} WHERE org = ? RETURNING *`, [...params, org]);
    return row ? orgFrom(row) : null;
  }

  async createAccount(account: string, org: string): Promise<AccountRecord> {
    return this.transaction(() => {
      if (!this.one('SELECT org FROM orgs WHERE org = ?', [org])) throw new StoreNotFoundError(`org "${org}" does not exist`);
      if (this.one('SELECT account FROM accounts WHERE account = ?', [account])) throw new StoreConflictError(`account "${account}" already exists`);
      const row = this.one('INSERT INTO accounts (account, org, created_at) VALUES (?, ?, ?) RETURNING *', [account, org, nowIso()]);
      return accountFrom(row!);
    });
  }

  async updateAccount(account: string, patch: { suspended?: boolean }): Promise<AccountRecord | null> {
    const row = patch.suspended === undefined
      ? this.one('SELECT * FROM accounts WHERE account = ?', [account])
      : this.one('UPDATE accounts SET suspended = ? WHERE account = ? RETURNING *', [patch.suspended ? 1 : 0, account]);
    return row ? accountFrom(row) : null;
  }

  async getAccount(account: string): Promise<AccountRecord | null> {
    const row = this.one('SELECT * FROM accounts WHERE account = ?', [account]);
    return row ? accountFrom(row) : null;
  }

  async createKey(key: NewKey): Promise<KeyRecord> {
    return this.transaction(() => {
      if (!this.one('SELECT account FROM accounts WHERE account = ?', [key.account])) {
        throw new StoreNotFoundError(`account "${key.account}" does not exist`);
      }
      const row = this.one(
        'INSERT INTO api_keys (key_id, digest, account, name, scopes, preset, version, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *',
        [key.keyId, key.digest, key.account, key.name, JSON.stringify(key.scopes), key.preset, key.version, nowIso()],
      );
      return keyFrom(row!);
    });
  }

  async revokeKey(keyId: string): Promise<KeyRecord | null> {
    const row = this.one('UPDATE api_keys SET revoked = 1, revoked_at = COALESCE(revoked_at, ?) WHERE key_id = ? RETURNING *', [nowIso(), keyId]);
    return row ? keyFrom(row) : null;
  }

  async findKeyByDigest(digest: string): Promise<KeyContext | null> {
    const row = this.one(
      `SELECT k.key_id AS k_key_id, k.account AS k_account, k.name AS k_name, k.scopes AS k_scopes,
              k.preset AS k_preset, k.version AS k_version, k.revoked AS k_revoked, k.created_at AS k_created_at,
              k.digest AS digest,
              a.account AS a_account, a.org AS a_org, a.suspended AS a_suspended, a.created_at AS a_created_at,
              o.org AS o_org, o.preset AS o_preset, o.version AS o_version, o.suspended AS o_suspended,
              o.pending_deletion AS o_pending_deletion, o.created_at AS o_created_at
       FROM api_keys k JOIN accounts a ON a.account = k.account JOIN orgs o ON o.org = a.org
       WHERE k.digest = ?`,
      [digest],
    );
    if (!row) return null;
    return { key: keyFrom(row, 'k_'), digest: text(row.digest), account: accountFrom(row, 'a_'), org: orgFrom(row, 'o_') };
  }

  // ---- endpoints ----

  async setEndpointPaused(endpoint: Endpoint, paused: boolean): Promise<void> {
    this.db.run(
      'INSERT INTO endpoint_pauses (endpoint, paused, updated_at) VALUES (?, ?, ?) ON CONFLICT(endpoint) DO UPDATE SET paused = excluded.paused, updated_at = excluded.updated_at',
      [endpoint, paused ? 1 : 0, nowIso()],
    );
  }

  async isEndpointPaused(endpoint: Endpoint): Promise<boolean> {
    return bool(this.one('SELECT paused FROM endpoint_pauses WHERE endpoint = ?', [endpoint])?.paused);
  }

  // ---- settings ----

  private setting(name: string): string | null {
    const row = this.one('SELECT value FROM settings WHERE name = ?', [name]);
    return row ? text(row.value) : null;
  }

  async servedKeyPrefix(): Promise<string | null> {
    return this.setting('served_key_prefix');
  }

  async recordServedKeyPrefix(prefix: string): Promise<string | null> {
    return this.transaction(() => {
      const previous = this.setting('served_key_prefix') ?? this.setting('minted_key_prefix');
      this.db.run(
        'INSERT INTO settings (name, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
        ['served_key_prefix', prefix, nowIso()],
      );
      return previous;
    });
  }

  async recordMintedKeyPrefix(prefix: string): Promise<string> {
    return this.transaction(() => {
      this.db.run('INSERT INTO settings (name, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(name) DO NOTHING', ['minted_key_prefix', prefix, nowIso()]);
      return this.setting('minted_key_prefix') ?? prefix;
    });
  }

  // ---- idempotency ----

  async idempotencyBegin(scope: IdempotencyScope, bodyDigest: string, nowMs: number, leaseMs: number): Promise<IdempotencyBegin> {
    const pk = [scope.keyId, scope.route, scope.idempotencyKey];
    const found = this.transaction((): IdempotencyBegin | { state: 'stored'; row: Row } => {
      const row = this.one('SELECT * FROM idempotency WHERE key_id = ? AND route = ? AND idem_key = ?', pk);
      // An expired record (a finished one past retention, or a running one whose process died) is gone.
      if (row && num(row.expires_at) > nowMs) {
        if (row.state === 'completed') return { state: 'stored', row };
        return { state: 'in_progress', bodyDigest: text(row.body_digest) };
      }
      this.db.run(
        `INSERT INTO idempotency (key_id, route, idem_key, body_digest, state, expires_at) VALUES (?, ?, ?, ?, 'running', ?)
         ON CONFLICT(key_id, route, idem_key) DO UPDATE SET body_digest = excluded.body_digest, state = 'running',
           status = NULL, content_type = NULL, body = NULL, body_encoding = NULL, stored_bytes = NULL, request_id = NULL,
           expires_at = excluded.expires_at`,
        [...pk, bodyDigest, nowMs + leaseMs],
      );
      return { state: 'started' };
    });
    if (found.state !== 'stored') return found;
    const row = found.row;
    const requestId = text(row.request_id);
    const stored = await this.storedBody(scope, row);
    return {
      state: 'completed',
      bodyDigest: text(row.body_digest),
      response: { status: num(row.status), contentType: text(row.content_type), body: await decodeBody(stored.encoding, stored.bytes), requestId },
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

  async idempotencyComplete(scope: IdempotencyScope, response: StoredResponse, nowMs: number, retentionMs: number): Promise<void> {
    this.completeRecord(await this.idempotencyPrepare(scope, response, nowMs, retentionMs));
  }

  async idempotencyPrepare(scope: IdempotencyScope, response: StoredResponse, nowMs: number, retentionMs: number): Promise<PreparedOutcome> {
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

  /** Names the prepared body in its record, which makes it the key's outcome. */
  private completeRecord(p: PreparedOutcome): void {
    try {
      const out = this.db.run(
        `UPDATE idempotency SET state = 'completed', status = ?, content_type = ?, body = NULL, body_encoding = ?, stored_bytes = ?,
           request_id = ?, expires_at = ?
         WHERE key_id = ? AND route = ? AND idem_key = ? AND state = 'running'`,
        [p.status, p.contentType, p.encoding, p.storedBytes, p.requestId, p.expiresAt, p.scope.keyId, p.scope.route, p.scope.idempotencyKey],
      );
      // The record was forgotten meanwhile: nothing would ever read these chunks.
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

  async idempotencyAbandon(scope: IdempotencyScope): Promise<void> {
    this.db.run("DELETE FROM idempotency WHERE key_id = ? AND route = ? AND idem_key = ? AND state = 'running'", [scope.keyId, scope.route, scope.idempotencyKey]);
  }

  async idempotencyWithdraw(scope: IdempotencyScope, requestId: string): Promise<void> {
    this.transaction(() => {
      this.db.run(
        "DELETE FROM idempotency WHERE key_id = ? AND route = ? AND idem_key = ? AND (state = 'running' OR request_id = ?)",
        [scope.keyId, scope.route, scope.idempotencyKey, requestId],
      );
      this.deleteChunks(scope, requestId);
    });
  }

  // ---- per-minute counters ----

  async rpmConsume(account: string, policy: string, windowStartMs: number, limit: number): Promise<RpmResult> {
    // A refused call is not recorded: the update only happens below the limit.
    const row = this.one(
      `INSERT INTO rpm_counters (account, policy, window_start, count) SELECT ?, ?, ?, 1 WHERE ? >= 1
       ON CONFLICT(account, policy, window_start) DO UPDATE SET count = count + 1 WHERE count < ?
       RETURNING count`,
      [account, policy, windowStartMs, limit, limit],
    );
    if (row) return { allowed: true, count: num(row.count) };
    return { allowed: false, count: await this.rpmPeek(account, policy, windowStartMs) };
  }

  async rpmPeek(account: string, policy: string, windowStartMs: number): Promise<number> {
    return num(this.one('SELECT count FROM rpm_counters WHERE account = ? AND policy = ? AND window_start = ?', [account, policy, windowStartMs])?.count);
  }

  // ---- daily quota ----

  async quotaReserve(account: string, day: string, points: number, limit: number, nowMs: number, leaseMs: number): Promise<QuotaResult> {
    return this.transaction((): QuotaResult => {
      const row = this.one(
        `INSERT INTO daily_quota (account, day, used) SELECT ?, ?, ? WHERE ? <= ?
         ON CONFLICT(account, day) DO UPDATE SET used = used + excluded.used WHERE used + excluded.used <= ?
         RETURNING used`,
        [account, day, points, points, limit, limit],
      );
      if (!row) return { reserved: false, used: this.usedOn(account, day), hold: null };
      const out = this.db.run('INSERT INTO quota_reservations (account, day, points, expires_at) VALUES (?, ?, ?, ?)', [account, day, points, nowMs + leaseMs]);
      return { reserved: true, used: num(row.used), hold: { id: out.lastInsertRowid, account, day, points } };
    });
  }

  async quotaSettle(hold: QuotaHold, usedPoints: number, usage?: UsageRow, outcome?: PreparedOutcome): Promise<void> {
    this.transaction(() => {
      const live = this.one('DELETE FROM quota_reservations WHERE id = ? RETURNING points', [hold.id]);
      // A live hold still counts its reserved points; an expired one was returned by the sweep.
      const change = usedPoints - (live ? num(live.points) : 0);
      if (change !== 0) this.db.run('UPDATE daily_quota SET used = MAX(0, used + ?) WHERE account = ? AND day = ?', [change, hold.account, hold.day]);
      if (usage) this.insertUsage(usage);
      if (outcome) this.completeRecord(outcome);
    });
  }

  async quotaUsed(account: string, day: string): Promise<number> {
    return this.usedOn(account, day);
  }

  private usedOn(account: string, day: string): number {
    return num(this.one('SELECT used FROM daily_quota WHERE account = ? AND day = ?', [account, day])?.used);
  }

  // ---- usage ledger ----

  async recordUsage(row: UsageRow): Promise<void> {
    this.insertUsage(row);
  }

  private insertUsage(row: UsageRow): void {
    this.db.run(
      `INSERT INTO usage_ledger (account, key_id, endpoint, request_id, day, input_data_points, forecast_data_points, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [row.account, row.keyId, row.endpoint, row.requestId, row.day, row.inputDataPoints, row.forecastDataPoints, nowIso()],
    );
  }

  async usageForDay(account: string, day: string): Promise<UsageSummary> {
    const rows = this.db.query(
      `SELECT endpoint, COUNT(*) AS requests, COALESCE(SUM(input_data_points), 0) AS input,
              COALESCE(SUM(forecast_data_points), 0) AS forecast
       FROM usage_ledger WHERE account = ? AND day = ? GROUP BY endpoint`,
      [account, day],
    ) as Row[];
    const summary: UsageSummary = { account, day, billedPoints: 0, inputDataPoints: 0, forecastDataPoints: 0, requests: { forecast: 0, clean: 0 } };
    for (const r of rows) {
      const endpoint = text(r.endpoint) as Endpoint;
      summary.requests[endpoint] = num(r.requests);
      summary.inputDataPoints += num(r.input);
      summary.forecastDataPoints += num(r.forecast);
    }
    summary.billedPoints = summary.inputDataPoints + summary.forecastDataPoints;
    return summary;
  }

  /** Deletes expired records, past minute windows and quota days before yesterday; gives back the points of expired reservations. */
  async sweep(nowMs: number, oldestDay: string): Promise<void> {
    this.db.run('DELETE FROM idempotency WHERE expires_at <= ?', [nowMs]);
    // Chunks share their record's expiry; this also takes those of a process that died mid-store.
    this.db.run('DELETE FROM idempotency_chunks WHERE expires_at <= ?', [nowMs]);
    this.db.run('DELETE FROM rpm_counters WHERE window_start < ?', [nowMs - 120_000]);
    // Expired reservations (their process died mid-request) give their points back, in one
    // transaction so that a second process sweeping the same file cannot return them twice.
    this.transaction(() => {
      this.db.run(
        `UPDATE daily_quota SET used = MAX(0, used - (SELECT SUM(points) FROM quota_reservations r
           WHERE r.account = daily_quota.account AND r.day = daily_quota.day AND r.expires_at <= ?))
         WHERE EXISTS (SELECT 1 FROM quota_reservations r
           WHERE r.account = daily_quota.account AND r.day = daily_quota.day AND r.expires_at <= ?)`,
        [nowMs, nowMs],
      );
      this.db.run('DELETE FROM quota_reservations WHERE expires_at <= ?', [nowMs]);
    });
    this.db.run('DELETE FROM daily_quota WHERE day < ?', [oldestDay]);
    this.db.run('DELETE FROM quota_reservations WHERE day < ?', [oldestDay]);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

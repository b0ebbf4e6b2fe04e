// The Store over the addon's embedded SQLite executor: opening and migrating the file here, the
// Store interface's groups in ./sqlite/ (tenants, settings, idempotency, limits), one connection
// shared by all. Calls are synchronous and sub-millisecond (a stored outcome's body, which can be
// hundreds of MB, is written and read a chunk per call); a multi-statement change runs inside
// BEGIN IMMEDIATE (./sqlite/sql.ts).
import { closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { SqliteDb } from './addon.js';
import { MIGRATIONS } from './migrations.js';
import {
  StoreOpenError,
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
import { SqliteIdempotency } from './sqlite/idempotency.js';
import { SqliteLimits } from './sqlite/limits.js';
import { SqliteSettings } from './sqlite/settings.js';
import { nowIso, num, transaction } from './sqlite/sql.js';
import { SqliteTenants } from './sqlite/tenants.js';

export const DB_FILE_NAME = 'hora.sqlite';

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
      // The store holds key digests and tenants' stored answers: the directory it is created in
      // is the owner's alone (its parents, if made here, get the usual mode).
      mkdirSync(d, d === dir ? { mode: 0o700 } : undefined);
    } catch (err) {
      // Another process (the CLI, a second server) may create it first, as recursive mkdir allowed.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(d).isDirectory()) throw err;
    }
  }
}

function createIfMissing(file: string, mode: number): void {
  try {
    closeSync(openSync(file, 'wx', mode));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

export class SqliteStore implements Store {
  private readonly tenants: SqliteTenants;
  private readonly settings: SqliteSettings;
  private readonly idempotency: SqliteIdempotency;
  private readonly limits: SqliteLimits;

  private constructor(private readonly db: SqliteDb) {
    this.tenants = new SqliteTenants(db);
    this.settings = new SqliteSettings(db);
    this.idempotency = new SqliteIdempotency(db);
    this.limits = new SqliteLimits(db, this.idempotency);
  }

  /** Opens (creating the directory and file when absent) and migrates the store of `dataDir`. */
  static async open(dataDir: string): Promise<SqliteStore> {
    const dir = resolve(dataDir);
    let store: SqliteStore | undefined;
    try {
      makeDirectory(dir);
      const file = join(dir, DB_FILE_NAME);
      // Created owner-only before SQLite opens it, which gives its -wal and -shm files the same mode.
      // Only when missing (O_EXCL): opening what is there could block (a FIFO), and SQLite judges it.
      createIfMissing(file, 0o600);
      store = new SqliteStore(new SqliteDb(file));
      store.migrate();
    } catch (err) {
      await store?.close();
      const detail = err instanceof Error ? err.message : String(err);
      throw new StoreOpenError(`the store under HORA_DATA_DIR=${dir} could not be opened: ${detail}`, { cause: err });
    }
    return store;
  }

  private migrate(): void {
    transaction(this.db, () => {
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

  // ---- tenants ----

  createOrg(org: string, defaults: CleaningDefaults): Promise<OrgRecord> {
    return this.tenants.createOrg(org, defaults);
  }

  updateOrg(org: string, patch: OrgPatch): Promise<OrgRecord | null> {
    return this.tenants.updateOrg(org, patch);
  }

  createAccount(account: string, org: string): Promise<AccountRecord> {
    return this.tenants.createAccount(account, org);
  }

  updateAccount(account: string, patch: { suspended?: boolean }): Promise<AccountRecord | null> {
    return this.tenants.updateAccount(account, patch);
  }

  getAccount(account: string): Promise<AccountRecord | null> {
    return this.tenants.getAccount(account);
  }

  createKey(key: NewKey): Promise<KeyRecord> {
    return this.tenants.createKey(key);
  }

  revokeKey(keyId: string): Promise<KeyRecord | null> {
    return this.tenants.revokeKey(keyId);
  }

  findKeyByDigest(digest: string): Promise<KeyContext | null> {
    return this.tenants.findKeyByDigest(digest);
  }

  // ---- endpoints and the key prefix ----

  setEndpointPaused(endpoint: Endpoint, paused: boolean): Promise<void> {
    return this.settings.setEndpointPaused(endpoint, paused);
  }

  isEndpointPaused(endpoint: Endpoint): Promise<boolean> {
    return this.settings.isEndpointPaused(endpoint);
  }

  servedKeyPrefix(): Promise<string | null> {
    return this.settings.servedKeyPrefix();
  }

  recordServedKeyPrefix(prefix: string): Promise<string | null> {
    return this.settings.recordServedKeyPrefix(prefix);
  }

  recordMintedKeyPrefix(prefix: string): Promise<string> {
    return this.settings.recordMintedKeyPrefix(prefix);
  }

  // ---- idempotency ----

  idempotencyBegin(scope: IdempotencyScope, bodyDigest: string, requestId: string, nowMs: number, leaseMs: number): Promise<IdempotencyBegin> {
    return this.idempotency.begin(scope, bodyDigest, requestId, nowMs, leaseMs);
  }

  idempotencyComplete(scope: IdempotencyScope, response: StoredResponse, nowMs: number, retentionMs: number): Promise<void> {
    return this.idempotency.complete(scope, response, nowMs, retentionMs);
  }

  idempotencyPrepare(scope: IdempotencyScope, response: StoredResponse, nowMs: number, retentionMs: number): Promise<PreparedOutcome> {
    return this.idempotency.prepare(scope, response, nowMs, retentionMs);
  }

  idempotencyWithdraw(scope: IdempotencyScope, requestId: string): Promise<void> {
    return this.idempotency.withdraw(scope, requestId);
  }

  // ---- per-minute counters, daily quota, usage ledger ----

  rpmConsume(account: string, policy: string, windowStartMs: number, limit: number): Promise<RpmResult> {
    return this.limits.rpmConsume(account, policy, windowStartMs, limit);
  }

  rpmPeek(account: string, policy: string, windowStartMs: number): Promise<number> {
    return this.limits.rpmPeek(account, policy, windowStartMs);
  }

  quotaReserve(account: string, day: string, points: number, limit: number, nowMs: number, leaseMs: number): Promise<QuotaResult> {
    return this.limits.quotaReserve(account, day, points, limit, nowMs, leaseMs);
  }

  quotaSettle(hold: QuotaHold, usedPoints: number, usage?: UsageRow, outcome?: PreparedOutcome): Promise<void> {
    return this.limits.quotaSettle(hold, usedPoints, usage, outcome);
  }

  quotaUsed(account: string, day: string): Promise<number> {
    return this.limits.quotaUsed(account, day);
  }

  recordUsage(row: UsageRow): Promise<void> {
    return this.limits.recordUsage(row);
  }

  usageForDay(account: string, day: string): Promise<UsageSummary> {
    return this.limits.usageForDay(account, day);
  }

  /** Deletes expired records, past minute windows and quota days before yesterday; gives back the points of expired reservations. */
  async sweep(nowMs: number, oldestDay: string): Promise<void> {
    this.idempotency.sweep(nowMs);
    this.limits.sweep(nowMs, oldestDay);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

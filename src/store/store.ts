// The store interface: everything the service keeps between requests. Methods are async so that a
// shared store for several instances can implement the same interface; the SQLite one is local.

import type { PolicyVersion, Preset } from '../policy/table.js';

export type Endpoint = 'forecast' | 'clean';
export const ENDPOINTS: readonly Endpoint[] = ['forecast', 'clean'];

export interface CleaningDefaults {
  preset: Preset | null;
  version: PolicyVersion | null;
}

export interface OrgRecord extends CleaningDefaults {
  org: string;
  suspended: boolean;
  pendingDeletion: boolean;
  createdAt: string;
}

export interface AccountRecord {
  account: string;
  org: string;
  suspended: boolean;
  createdAt: string;
}

export interface KeyRecord extends CleaningDefaults {
  keyId: string;
  account: string;
  name: string;
  scopes: string[];
  revoked: boolean;
  createdAt: string;
}

export interface NewKey extends CleaningDefaults {
  keyId: string;
  /** Hex SHA-256 of the full key; the key itself is never stored. */
  digest: string;
  account: string;
  name: string;
  scopes: string[];
}

/** What authentication needs about a key, read in one lookup. */
export interface KeyContext {
  key: KeyRecord;
  digest: string;
  account: AccountRecord;
  org: OrgRecord;
}

export interface OrgPatch {
  preset?: Preset | null;
  version?: PolicyVersion | null;
  suspended?: boolean;
  pendingDeletion?: boolean;
}

/** A stored response, replayed byte for byte. */
export interface StoredResponse {
  status: number;
  contentType: string;
  /** Bytes, never a string: a response may be longer than V8's longest string. */
  body: Buffer;
  requestId: string;
}

/**
 * An outcome whose body is stored but whose record is not completed yet, so no one can read it:
 * a billed success completes it in the billing transaction (`quotaSettle`).
 */
export interface PreparedOutcome {
  scope: IdempotencyScope;
  status: number;
  contentType: string;
  requestId: string;
  encoding: string;
  storedBytes: number;
  expiresAt: number;
}

export interface IdempotencyScope {
  keyId: string;
  route: string;
  idempotencyKey: string;
}

export type IdempotencyBegin =
  /** No live record: this request owns the key now. */
  | { state: 'started' }
  /**
   * A completed record of another body: the key is reused. A stored answer is not read for it (it
   * can be hundreds of megabytes, and the refusal comes before the per-minute limit counts).
   */
  | { state: 'reused' }
  /** The first request still runs (its lease has not expired), whatever body this one has. */
  | { state: 'in_progress'; bodyDigest: string }
  | {
      state: 'completed';
      bodyDigest: string;
      response: StoredResponse;
      /** Bytes the body takes in the store (less than its length when kept compressed). */
      storedBytes: number;
    };

export interface RpmResult {
  /** False when the request would exceed the limit; nothing was counted then. */
  allowed: boolean;
  /** Requests counted in the window, this one included when allowed. */
  count: number;
}

/** Points held for one request until it settles, releases, or the hold expires. */
export interface QuotaHold {
  id: number;
  account: string;
  day: string;
  points: number;
}

export interface QuotaResult {
  /** False when the points do not fit; nothing was reserved then. */
  reserved: boolean;
  /** Points used (reserved or settled) in the day after this call. */
  used: number;
  /** The reservation when reserved, else null. */
  hold: QuotaHold | null;
}

export interface UsageRow {
  account: string;
  keyId: string;
  endpoint: Endpoint;
  requestId: string;
  /** UTC day `YYYY-MM-DD`. */
  day: string;
  inputDataPoints: number;
  forecastDataPoints: number;
}

export interface UsageSummary {
  account: string;
  day: string;
  billedPoints: number;
  inputDataPoints: number;
  forecastDataPoints: number;
  requests: Record<Endpoint, number>;
}

/** The store under HORA_DATA_DIR cannot be used by this build: read-only, newer, not a database. */
export class StoreOpenError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StoreOpenError';
  }
}

export class StoreConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreConflictError';
  }
}

export class StoreNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreNotFoundError';
  }
}

export interface Store {
  // Tenants. Create throws StoreConflictError when the name exists, StoreNotFoundError for a
  // missing parent; update returns null for an unknown name.
  createOrg(org: string, defaults: CleaningDefaults): Promise<OrgRecord>;
  updateOrg(org: string, patch: OrgPatch): Promise<OrgRecord | null>;
  createAccount(account: string, org: string): Promise<AccountRecord>;
  updateAccount(account: string, patch: { suspended?: boolean }): Promise<AccountRecord | null>;
  getAccount(account: string): Promise<AccountRecord | null>;
  createKey(key: NewKey): Promise<KeyRecord>;
  /** Returns null for an unknown key id; revoking twice is not an error. */
  revokeKey(keyId: string): Promise<KeyRecord | null>;
  /** Key, account and org for a key digest, revoked keys included (the caller decides). */
  findKeyByDigest(digest: string): Promise<KeyContext | null>;

  setEndpointPaused(endpoint: Endpoint, paused: boolean): Promise<void>;
  isEndpointPaused(endpoint: Endpoint): Promise<boolean>;

  // Idempotency. `begin` is atomic: of two concurrent requests with one key, one starts, and the
  // record it claims is its own (`requestId`) until it completes or withdraws it.
  idempotencyBegin(scope: IdempotencyScope, bodyDigest: string, requestId: string, nowMs: number, leaseMs: number): Promise<IdempotencyBegin>;
  idempotencyComplete(scope: IdempotencyScope, response: StoredResponse, nowMs: number, retentionMs: number): Promise<void>;
  /** Stores the body of an outcome whose record `quotaSettle` completes with the bill. */
  idempotencyPrepare(scope: IdempotencyScope, response: StoredResponse, nowMs: number, retentionMs: number): Promise<PreparedOutcome>;
  /**
   * Forgets what `requestId` holds under the key, so the key may be retried: the record it
   * started whose outcome is not stored, or the outcome it stored (running or completed) when
   * its answer could not be delivered as stored (its billing failed).
   */
  idempotencyWithdraw(scope: IdempotencyScope, requestId: string): Promise<void>;

  // Per-minute counters: a window is identified by its start (ms since the epoch).
  rpmConsume(account: string, policy: string, windowStartMs: number, limit: number): Promise<RpmResult>;
  rpmPeek(account: string, policy: string, windowStartMs: number): Promise<number>;

  // Daily point quota per account and UTC day. A reservation holds its points until settled, or
  // until `nowMs + leaseMs`, after which the sweep returns them (its process died).
  quotaReserve(account: string, day: string, points: number, limit: number, nowMs: number, leaseMs: number): Promise<QuotaResult>;
  /**
   * Ends a reservation: the day keeps `usedPoints` of it (0 releases it all). When the sweep has
   * already returned it, `usedPoints` are counted again, so the day's total still matches the
   * ledger. Called once per hold (QuotaReservation sees to it). `usage`, the ledger row of the
   * points kept, is written in the same transaction, so the day's count and the ledger never part,
   * and so is the completion of `outcome`: a stored success is always a billed one.
   */
  quotaSettle(hold: QuotaHold, usedPoints: number, usage?: UsageRow, outcome?: PreparedOutcome): Promise<void>;
  quotaUsed(account: string, day: string): Promise<number>;

  // Usage ledger.
  recordUsage(row: UsageRow): Promise<void>;
  usageForDay(account: string, day: string): Promise<UsageSummary>;

  /**
   * Deletes expired idempotency records, past minute windows and quota days before `oldestDay`,
   * and returns the points of expired quota reservations.
   */
  sweep(nowMs: number, oldestDay: string): Promise<void>;

  /** The key prefix the server last started with on this store, or null before any start. */
  servedKeyPrefix(): Promise<string | null>;
  /**
   * Records the server's key prefix at start; returns the prefix keys were issued with before:
   * the last server's, else that of the keys the CLI minted before any start, if any.
   */
  recordServedKeyPrefix(prefix: string): Promise<string | null>;
  /**
   * Records `prefix` for keys minted before any server start unless one is recorded already, and
   * returns the one in force, in one step, so two concurrent mints cannot use two prefixes.
   */
  recordMintedKeyPrefix(prefix: string): Promise<string>;
  close(): Promise<void>;
}

// The per-minute counters, the daily point quota and the usage ledger in the SQLite store.
import type { SqliteDb } from '../addon.js';
import type { Endpoint, PreparedOutcome, QuotaHold, QuotaResult, RpmResult, UsageRow, UsageSummary } from '../store.js';
import type { SqliteIdempotency } from './idempotency.js';
import { num, nowIso, one, text, transaction, type Row } from './sql.js';

export class SqliteLimits {
  /** `idempotency` completes a billed success's outcome inside the billing transaction. */
  constructor(
    private readonly db: SqliteDb,
    private readonly idempotency: SqliteIdempotency,
  ) {}

  // ---- per-minute counters ----

  async rpmConsume(account: string, policy: string, windowStartMs: number, limit: number): Promise<RpmResult> {
    // A refused call is not recorded: the update only happens below the limit.
    const row = one(
      this.db,
      `INSERT INTO rpm_counters (account, policy, window_start, count) SELECT ?, ?, ?, 1 WHERE ? >= 1
       ON CONFLICT(account, policy, window_start) DO UPDATE SET count = count + 1 WHERE count < ?
       RETURNING count`,
      [account, policy, windowStartMs, limit, limit],
    );
    if (row) return { allowed: true, count: num(row.count) };
    return { allowed: false, count: await this.rpmPeek(account, policy, windowStartMs) };
  }

  async rpmPeek(account: string, policy: string, windowStartMs: number): Promise<number> {
    return num(one(this.db, 'SELECT count FROM rpm_counters WHERE account = ? AND policy = ? AND window_start = ?', [account, policy, windowStartMs])?.count);
  }

  // ---- daily quota ----

  async quotaReserve(account: string, day: string, points: number, limit: number, nowMs: number, leaseMs: number): Promise<QuotaResult> {
    return transaction(this.db, (): QuotaResult => {
      const row = one(
        this.db,
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
    transaction(this.db, () => {
      const live = one(this.db, 'DELETE FROM quota_reservations WHERE id = ? RETURNING points', [hold.id]);
      // A live hold still counts its reserved points; an expired one was returned by the sweep.
      const change = usedPoints - (live ? num(live.points) : 0);
      if (change !== 0) this.db.run('UPDATE daily_quota SET used = MAX(0, used + ?) WHERE account = ? AND day = ?', [change, hold.account, hold.day]);
      if (usage) this.insertUsage(usage);
      if (outcome) this.idempotency.completeRecord(outcome);
    });
  }

  async quotaUsed(account: string, day: string): Promise<number> {
    return this.usedOn(account, day);
  }

  private usedOn(account: string, day: string): number {
    return num(one(this.db, 'SELECT used FROM daily_quota WHERE account = ? AND day = ?', [account, day])?.used);
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

  /** Deletes past minute windows and quota days before `oldestDay`; gives back the points of expired reservations. */
  sweep(nowMs: number, oldestDay: string): void {
    this.db.run('DELETE FROM rpm_counters WHERE window_start < ?', [nowMs - 120_000]);
    // Expired reservations (their process died mid-request) give their points back, in one
    // transaction so that a second process sweeping the same file cannot return them twice.
    transaction(this.db, () => {
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
}

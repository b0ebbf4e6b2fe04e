// Schema migrations of the embedded store, applied in order at open. Append; never edit a shipped one.

export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE orgs (
    org TEXT PRIMARY KEY,
    preset TEXT,
    version TEXT,
    suspended INTEGER NOT NULL DEFAULT 0,
    pending_deletion INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
  );
  CREATE TABLE accounts (
    account TEXT PRIMARY KEY,
    org TEXT NOT NULL REFERENCES orgs(org),
    suspended INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
  );
  CREATE TABLE api_keys (
    key_id TEXT PRIMARY KEY,
    digest TEXT NOT NULL UNIQUE,
    account TEXT NOT NULL REFERENCES accounts(account),
    name TEXT NOT NULL,
    scopes TEXT NOT NULL,
    preset TEXT,
    version TEXT,
    revoked INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    revoked_at TEXT
  );
  CREATE TABLE endpoint_pauses (
    endpoint TEXT PRIMARY KEY,
    paused INTEGER NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE TABLE idempotency (
    key_id TEXT NOT NULL,
    route TEXT NOT NULL,
    idem_key TEXT NOT NULL,
    body_digest TEXT NOT NULL,
    state TEXT NOT NULL,
    status INTEGER,
    content_type TEXT,
    body TEXT,
    request_id TEXT,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (key_id, route, idem_key)
  );
  CREATE INDEX idempotency_expiry ON idempotency(expires_at);
  CREATE TABLE rpm_counters (
    account TEXT NOT NULL,
    policy TEXT NOT NULL,
    window_start INTEGER NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (account, policy, window_start)
  );
  CREATE TABLE daily_quota (
    account TEXT NOT NULL,
    day TEXT NOT NULL,
    used INTEGER NOT NULL,
    PRIMARY KEY (account, day)
  );
  CREATE TABLE usage_ledger (
    id INTEGER PRIMARY KEY,
    account TEXT NOT NULL,
    key_id TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    request_id TEXT NOT NULL,
    day TEXT NOT NULL,
    input_data_points INTEGER NOT NULL,
    forecast_data_points INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX usage_by_account_day ON usage_ledger(account, day);
  `,
  // The key prefix the server last started with, so that the operator CLI mints keys it accepts.
  `
  CREATE TABLE settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  `,
  // Idempotent outcomes as bytes: a body over V8's longest string could not be stored as TEXT.
  // The body lives in `idempotency_chunks` (compressed when large; src/store/outcome.ts), tied to
  // the request that stored it. A row from before this migration has `body_encoding` NULL and
  // its body still in the TEXT column `body`; it is read as it was until it expires.
  `
  ALTER TABLE idempotency ADD COLUMN body_encoding TEXT;
  ALTER TABLE idempotency ADD COLUMN stored_bytes INTEGER;
  CREATE TABLE idempotency_chunks (
    key_id TEXT NOT NULL,
    route TEXT NOT NULL,
    idem_key TEXT NOT NULL,
    request_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    data BLOB NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (key_id, route, idem_key, request_id, seq)
  );
  CREATE INDEX idempotency_chunks_expiry ON idempotency_chunks(expires_at);
  `,
  // Daily-quota reservations as rows with an expiry: a process killed mid-forecast left its
  // reservation counted in daily_quota.used until the day ended. The sweep of any process on the
  // file returns an expired one.
  `
  CREATE TABLE quota_reservations (
    id INTEGER PRIMARY KEY,
    account TEXT NOT NULL,
    day TEXT NOT NULL,
    points INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX quota_reservations_expiry ON quota_reservations(expires_at);
  `,
];

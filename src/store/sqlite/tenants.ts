// Orgs, accounts and API keys in the SQLite store.
import { UNIQUE_VIOLATION, type SqliteDb } from '../addon.js';
import {
  StoreConflictError,
  StoreNotFoundError,
  type AccountRecord,
  type CleaningDefaults,
  type KeyContext,
  type KeyRecord,
  type NewKey,
  type OrgPatch,
  type OrgRecord,
} from '../store.js';
import type { PolicyVersion, Preset } from '../../policy/table.js';
import { bool, nowIso, one, text, textOrNull, transaction, type Row } from './sql.js';

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

export class SqliteTenants {
  constructor(private readonly db: SqliteDb) {}

  async createOrg(org: string, defaults: CleaningDefaults): Promise<OrgRecord> {
    try {
      const row = one(this.db, 'INSERT INTO orgs (org, preset, version, created_at) VALUES (?, ?, ?, ?) RETURNING *', [org, defaults.preset, defaults.version, nowIso()]);
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
      ? one(this.db, 'SELECT * FROM orgs WHERE org = ?', [org])
      : one(this.db, `UPDATE orgs SET ${sets.join(', ')} WHERE org = ? RETURNING *`, [...params, org]);
    return row ? orgFrom(row) : null;
  }

  async createAccount(account: string, org: string): Promise<AccountRecord> {
    return transaction(this.db, () => {
      if (!one(this.db, 'SELECT org FROM orgs WHERE org = ?', [org])) throw new StoreNotFoundError(`org "${org}" does not exist`);
      if (one(this.db, 'SELECT account FROM accounts WHERE account = ?', [account])) throw new StoreConflictError(`account "${account}" already exists`);
      const row = one(this.db, 'INSERT INTO accounts (account, org, created_at) VALUES (?, ?, ?) RETURNING *', [account, org, nowIso()]);
      return accountFrom(row!);
    });
  }

  async updateAccount(account: string, patch: { suspended?: boolean }): Promise<AccountRecord | null> {
    const row = patch.suspended === undefined
      ? one(this.db, 'SELECT * FROM accounts WHERE account = ?', [account])
      : one(this.db, 'UPDATE accounts SET suspended = ? WHERE account = ? RETURNING *', [patch.suspended ? 1 : 0, account]);
    return row ? accountFrom(row) : null;
  }

  async getAccount(account: string): Promise<AccountRecord | null> {
    const row = one(this.db, 'SELECT * FROM accounts WHERE account = ?', [account]);
    return row ? accountFrom(row) : null;
  }

  async createKey(key: NewKey): Promise<KeyRecord> {
    return transaction(this.db, () => {
      if (!one(this.db, 'SELECT account FROM accounts WHERE account = ?', [key.account])) {
        throw new StoreNotFoundError(`account "${key.account}" does not exist`);
      }
      const row = one(
        this.db,
        'INSERT INTO api_keys (key_id, digest, account, name, scopes, preset, version, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *',
        [key.keyId, key.digest, key.account, key.name, JSON.stringify(key.scopes), key.preset, key.version, nowIso()],
      );
      return keyFrom(row!);
    });
  }

  async revokeKey(keyId: string): Promise<KeyRecord | null> {
    const row = one(this.db, 'UPDATE api_keys SET revoked = 1, revoked_at = COALESCE(revoked_at, ?) WHERE key_id = ? RETURNING *', [nowIso(), keyId]);
    return row ? keyFrom(row) : null;
  }

  async findKeyByDigest(digest: string): Promise<KeyContext | null> {
    const row = one(
      this.db,
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
}

// Operator switches in the SQLite store: paused endpoints and the key prefix in force.
import type { SqliteDb } from '../addon.js';
import type { Endpoint } from '../store.js';
import { bool, nowIso, one, text, transaction } from './sql.js';

export class SqliteSettings {
  constructor(private readonly db: SqliteDb) {}

  async setEndpointPaused(endpoint: Endpoint, paused: boolean): Promise<void> {
    this.db.run(
      'INSERT INTO endpoint_pauses (endpoint, paused, updated_at) VALUES (?, ?, ?) ON CONFLICT(endpoint) DO UPDATE SET paused = excluded.paused, updated_at = excluded.updated_at',
      [endpoint, paused ? 1 : 0, nowIso()],
    );
  }

  async isEndpointPaused(endpoint: Endpoint): Promise<boolean> {
    return bool(one(this.db, 'SELECT paused FROM endpoint_pauses WHERE endpoint = ?', [endpoint])?.paused);
  }

  private setting(name: string): string | null {
    const row = one(this.db, 'SELECT value FROM settings WHERE name = ?', [name]);
    return row ? text(row.value) : null;
  }

  async servedKeyPrefix(): Promise<string | null> {
    return this.setting('served_key_prefix');
  }

  async recordServedKeyPrefix(prefix: string): Promise<string | null> {
    return transaction(this.db, () => {
      const previous = this.setting('served_key_prefix') ?? this.setting('minted_key_prefix');
      this.db.run(
        'INSERT INTO settings (name, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
        ['served_key_prefix', prefix, nowIso()],
      );
      return previous;
    });
  }

  async recordMintedKeyPrefix(prefix: string): Promise<string> {
    return transaction(this.db, () => {
      this.db.run('INSERT INTO settings (name, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(name) DO NOTHING', ['minted_key_prefix', prefix, nowIso()]);
      return this.setting('minted_key_prefix') ?? prefix;
    });
  }
}

// The store's view of the addon: its SQLite executor (src/native.ts loads the addon).
import { SqliteDb } from '../native.js';

export type { SqliteDb };

/** The SqliteDb class of the addon. */
export async function sqliteDbClass(): Promise<typeof SqliteDb> {
  return SqliteDb;
}

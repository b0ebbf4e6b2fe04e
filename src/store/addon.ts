// The store's view of the addon: its SQLite executor (src/native.ts loads the addon).
import { SqliteDb, UNIQUE_VIOLATION } from '../native.js';

export type { SqliteDb };
export { UNIQUE_VIOLATION };

/** The SqliteDb class of the addon. */
export async function sqliteDbClass(): Promise<typeof SqliteDb> {
  return SqliteDb;
}

// The store's view of the addon: its SQLite executor (src/native.ts loads the addon).
export { SqliteDb, UNIQUE_VIOLATION } from '../native.js';

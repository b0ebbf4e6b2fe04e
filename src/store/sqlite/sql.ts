// What every part of the SQLite store shares: row readers, the one-row query and the write
// transaction over the addon's connection.
import type { SqliteDb } from '../addon.js';

export type Row = Record<string, unknown>;

export const nowIso = (): string => new Date().toISOString();
export const bool = (v: unknown): boolean => v === 1 || v === true;
export const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0));
export const text = (v: unknown): string => (typeof v === 'string' ? v : String(v ?? ''));
export const textOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);
/** Lets other callbacks run between the steps of a long store operation. */
export const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

export function one(db: SqliteDb, sql: string, params: unknown[]): Row | undefined {
  return db.query(sql, params)[0] as Row | undefined;
}

/**
 * `fn` inside BEGIN IMMEDIATE, so that the CLI and a server (two processes on one file) never
 * interleave a multi-statement change.
 */
export function transaction<T>(db: SqliteDb, fn: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const out = fn();
    db.exec('COMMIT');
    return out;
  } catch (err) {
    // SQLite has rolled back by itself after some failures (a full disk, an I/O error); the
    // ROLLBACK's own "no transaction is active" must not hide the cause.
    try {
      db.exec('ROLLBACK');
    } catch {
      // already rolled back
    }
    throw err;
  }
}

import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteDb, UNIQUE_VIOLATION } from '../src/native.js';
import { MIGRATIONS } from '../src/store/migrations.js';
import { CHUNK_BYTES, COMPRESS_MIN_BYTES } from '../src/store/outcome.js';
import { DB_FILE_NAME, SqliteStore } from '../src/store/sqlite.js';
import { StoreConflictError } from '../src/store/store.js';
import { tempDataDir } from './helpers/app.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function open(dir = tempDataDir()): Promise<{ store: SqliteStore; dir: string }> {
  dirs.push(dir);
  return { store: await SqliteStore.open(dir), dir };
}

/** Rows left in one of the store's tables (its connection is private; tests look through it). */
function rowsIn(store: SqliteStore, table: 'idempotency' | 'idempotency_chunks'): number {
  const db = (store as unknown as { db: SqliteDb }).db;
  return Number(db.query(`SELECT COUNT(*) AS n FROM ${table}`, [])[0].n);
}

describe('sqlite store', () => {
  it('a data directory it creates, and the database with its journal files, are its owner\'s alone', async () => {
    // Found by audit: under umask 022 another user could copy the file and read tenants' stored
    // answers and key digests.
    const root = tempDataDir();
    const dir = join(root, 'data');
    const { store } = await open(dir);
    dirs.push(root);
    await store.createOrg('o', { preset: null, version: null });
    const mode = (p: string) => statSync(p).mode & 0o777;
    expect(mode(dir)).toBe(0o700);
    const files = readdirSync(dir);
    expect(files).toContain(DB_FILE_NAME);
    // The database and the -wal / -shm files SQLite keeps beside it while open.
    expect(files.filter((f) => f.startsWith(DB_FILE_NAME)).length).toBeGreaterThan(1);
    for (const f of files) expect([f, mode(join(dir, f))]).toEqual([f, 0o600]);
    await store.close();
  });

  it('creates HORA_DATA_DIR when absent and migrates once; reopening keeps the data', async () => {
    const dir = join(tempDataDir(), 'nested', 'data');
    const { store } = await open(dir);
    expect(existsSync(join(dir, DB_FILE_NAME))).toBe(true);
    await store.createOrg('o', { preset: null, version: null });
    const again = await SqliteStore.open(dir);
    expect((await again.updateOrg('o', {}))?.org).toBe('o');
  });

  it('a store a newer build migrated is refused with one sentence, not used', async () => {
    const { store, dir } = await open();
    await store.close();
    const raw = new SqliteDb(join(dir, DB_FILE_NAME));
    raw.run('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)', [MIGRATIONS.length + 1, new Date().toISOString()]);
    raw.close();
    await expect(SqliteStore.open(dir)).rejects.toThrow(`could not be opened: it was written by a newer version of hora (schema ${MIGRATIONS.length + 1}; this version knows ${MIGRATIONS.length})`);
  });

  it('a file that is not a database is refused naming the store', async () => {
    const dir = tempDataDir();
    dirs.push(dir);
    writeFileSync(join(dir, DB_FILE_NAME), 'not a database, just text that is long enough to have a header');
    await expect(SqliteStore.open(dir)).rejects.toThrow(/^the store under HORA_DATA_DIR=.* could not be opened: sqlite: file is not a database$/);
  });

  it('close ends the connection: a later call fails, closing again does not, and the data stays', async () => {
    const { store, dir } = await open();
    await store.createOrg('o', { preset: null, version: null });
    await store.close();
    await store.close();
    await expect(store.createAccount('a', 'o')).rejects.toThrow(/closed/);
    const again = await SqliteStore.open(dir);
    expect((await again.createAccount('a', 'o')).org).toBe('o');
    await again.close();
  });

  it("creating an org that exists is a conflict naming it, told by the addon's code for a duplicate key", async () => {
    const { store } = await open();
    await store.createOrg('o', { preset: null, version: null });
    const refused = await store.createOrg('o', { preset: null, version: null }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(StoreConflictError);
    expect((refused as Error).message).toBe('org "o" already exists');
    const db = (store as unknown as { db: SqliteDb }).db;
    const codeOf = (fn: () => unknown): unknown => {
      try {
        fn();
      } catch (err) {
        return (err as { code?: unknown }).code;
      }
      throw new Error('expected the statement to fail');
    };
    expect(codeOf(() => db.run('INSERT INTO orgs (org, created_at) VALUES (?, ?)', ['o', 'now']))).toBe(UNIQUE_VIOLATION);
    // Any other constraint is not a duplicate.
    expect(codeOf(() => db.run('INSERT INTO orgs (org, created_at) VALUES (?, NULL)', ['p']))).toBe('GenericFailure');
  });

  it('a refused per-minute call is not recorded', async () => {
    const { store } = await open();
    expect(await store.rpmConsume('a', 'forecast-rpm', 0, 2)).toEqual({ allowed: true, count: 1 });
    expect(await store.rpmConsume('a', 'forecast-rpm', 0, 2)).toEqual({ allowed: true, count: 2 });
    expect(await store.rpmConsume('a', 'forecast-rpm', 0, 2)).toEqual({ allowed: false, count: 2 });
    expect(await store.rpmPeek('a', 'forecast-rpm', 0)).toBe(2);
    expect((await store.rpmConsume('a', 'forecast-rpm', 60_000, 2)).allowed).toBe(true);
  });

  it('quota reservations never exceed the limit; settling gives back what was not used', async () => {
    const { store } = await open();
    const first = await store.quotaReserve('a', '2026-01-01', 70, 100, 0, 1000);
    expect(first).toMatchObject({ reserved: true, used: 70, hold: { account: 'a', day: '2026-01-01', points: 70 } });
    expect(await store.quotaReserve('a', '2026-01-01', 40, 100, 0, 1000)).toEqual({ reserved: false, used: 70, hold: null });
    expect(await store.quotaReserve('a', '2026-01-01', 101, 100, 0, 1000)).toEqual({ reserved: false, used: 70, hold: null });
    await store.quotaSettle(first.hold!, 50);
    expect(await store.quotaUsed('a', '2026-01-01')).toBe(50);
    const second = await store.quotaReserve('a', '2026-01-01', 50, 100, 0, 1000);
    expect(second).toMatchObject({ reserved: true, used: 100 });
    await store.quotaSettle(second.hold!, 0);
    expect(await store.quotaUsed('a', '2026-01-01')).toBe(50);
    expect(await store.quotaUsed('a', '2026-01-02')).toBe(0);
  });

  it('a reservation whose process died is returned by the sweep once its lease ends, and only then', async () => {
    const { store } = await open();
    await store.quotaReserve('a', '2026-01-01', 30, 100, 0, 1000);
    const orphan = await store.quotaReserve('a', '2026-01-01', 40, 100, 0, 5000);
    await store.sweep(4000, '2025-12-31');
    // The first lease ended and nothing settled it: its 30 points are back; the second still runs.
    expect(await store.quotaUsed('a', '2026-01-01')).toBe(40);
    await store.sweep(5000, '2025-12-31');
    expect(await store.quotaUsed('a', '2026-01-01')).toBe(0);
    // A request that outlived its lease and then finishes is counted again, as the ledger will be.
    await store.quotaSettle(orphan.hold!, 25);
    expect(await store.quotaUsed('a', '2026-01-01')).toBe(25);
  });

  it('two stores on one file return an expired reservation once', async () => {
    const { store, dir } = await open();
    const other = await SqliteStore.open(dir);
    await store.quotaReserve('a', '2026-01-01', 30, 100, 0, 1000);
    await store.quotaReserve('a', '2026-01-01', 20, 100, 0, 60_000);
    await Promise.all([store.sweep(2000, '2025-12-31'), other.sweep(2000, '2025-12-31')]);
    expect(await other.quotaUsed('a', '2026-01-01')).toBe(20);
  });

  it('idempotency: one claim wins, a completed record replays until it expires, an abandoned one frees the key', async () => {
    const { store } = await open();
    const scope = { keyId: 'k', route: '/v1/forecast', idempotencyKey: 'x' };
    expect(await store.idempotencyBegin(scope, 'd1', 'req_0', 1000, 500)).toEqual({ state: 'started' });
    expect(await store.idempotencyBegin(scope, 'd1', 'req_x', 1100, 500)).toEqual({ state: 'in_progress', bodyDigest: 'd1' });
    expect(await store.idempotencyBegin(scope, 'other', 'req_y', 1100, 500)).toEqual({ state: 'in_progress', bodyDigest: 'd1' });
    // A running record past its lease (a dead process) is taken over.
    expect(await store.idempotencyBegin(scope, 'd2', 'req_1', 1600, 500)).toEqual({ state: 'started' });
    const response = { status: 200, contentType: 'application/json', body: Buffer.from('{"ok":1}'), requestId: 'req_1' };
    await store.idempotencyComplete(scope, response, 1700, 10_000);
    expect(await store.idempotencyBegin(scope, 'd2', 'req_2', 2000, 500)).toEqual({ state: 'completed', bodyDigest: 'd2', response, storedBytes: 8 });
    // Another body is refused on the digest alone: the stored answer is not read for it.
    expect(await store.idempotencyBegin(scope, 'd-other', 'req_2', 2000, 500)).toEqual({ state: 'reused' });
    expect(await store.idempotencyBegin(scope, 'd3', 'req_3', 11_701, 500)).toEqual({ state: 'started' });
    await store.idempotencyWithdraw(scope, 'req_3');
    expect(await store.idempotencyBegin(scope, 'd4', 'req_4', 11_800, 500)).toEqual({ state: 'started' });
  });

  it('a request that outlived its lease neither completes nor withdraws the record another request claimed', async () => {
    // Found by audit: A's completion landed on B's record, so B's retries replayed A's answer,
    // and A's failure deleted B's running record, so a retry of B ran (and was billed) twice.
    const { store } = await open();
    const scope = { keyId: 'k', route: '/v1/forecast', idempotencyKey: 'late' };
    const answer = (requestId: string) => ({ status: 200, contentType: 'application/json', body: Buffer.from(`{"by":"${requestId}"}`), requestId });
    expect(await store.idempotencyBegin(scope, 'dA', 'req_A', 0, 500)).toEqual({ state: 'started' });
    expect(await store.idempotencyBegin(scope, 'dB', 'req_B', 600, 500)).toEqual({ state: 'started' });
    await store.idempotencyComplete(scope, answer('req_A'), 700, 10_000);
    await store.idempotencyWithdraw(scope, 'req_A');
    expect(await store.idempotencyBegin(scope, 'dB', 'req_C', 800, 500)).toEqual({ state: 'in_progress', bodyDigest: 'dB' });
    await store.idempotencyComplete(scope, answer('req_B'), 900, 10_000);
    expect(await store.idempotencyBegin(scope, 'dB', 'req_D', 1000, 500)).toEqual({ state: 'completed', bodyDigest: 'dB', response: answer('req_B'), storedBytes: 14 });
  });

  it('a stored body larger than one chunk comes back byte for byte; incompressible bytes are stored as they are', async () => {
    const { store } = await open();
    const scope = { keyId: 'k', route: '/v1/forecast', idempotencyKey: 'big' };
    const body = randomBytes(CHUNK_BYTES * 2 + 12_345);
    await store.idempotencyBegin(scope, 'd', 'req_big', 0, 1000);
    await store.idempotencyComplete(scope, { status: 200, contentType: 'application/octet-stream', body, requestId: 'req_big' }, 10, 10_000);
    const found = await store.idempotencyBegin(scope, 'd', 'req_again', 20, 1000);
    expect(found.state).toBe('completed');
    if (found.state !== 'completed') return;
    expect(found.response.body.equals(body)).toBe(true);
    expect(found.storedBytes).toBe(body.length);
  });

  it('a body stored compressed takes less room than the response and decompresses to it', async () => {
    const { store } = await open();
    const scope = { keyId: 'k', route: '/v1/forecast', idempotencyKey: 'zip' };
    const body = Buffer.from(JSON.stringify({ values: Array.from({ length: 50_000 }, (_, i) => i % 100) }));
    expect(body.length).toBeGreaterThan(COMPRESS_MIN_BYTES);
    await store.idempotencyBegin(scope, 'd', 'req_zip', 0, 1000);
    await store.idempotencyComplete(scope, { status: 200, contentType: 'application/json', body, requestId: 'req_zip' }, 10, 10_000);
    const found = await store.idempotencyBegin(scope, 'd', 'req_again', 20, 1000);
    if (found.state !== 'completed') throw new Error(found.state);
    expect(found.storedBytes).toBeLessThan(body.length / 5);
    expect(found.response.body.equals(body)).toBe(true);
  });

  it('an outcome stored as TEXT before migration 3 is still replayed after the upgrade', async () => {
    const dir = tempDataDir();
    dirs.push(dir);
    const old = new SqliteDb(join(dir, DB_FILE_NAME));
    old.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
    for (const [i, sql] of MIGRATIONS.slice(0, 2).entries()) {
      old.exec(sql);
      old.run('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)', [i + 1, 'then']);
    }
    old.run(
      `INSERT INTO idempotency (key_id, route, idem_key, body_digest, state, status, content_type, body, request_id, expires_at)
       VALUES ('k', '/v1/forecast', 'legacy', 'd', 'completed', 422, 'application/json; charset=utf-8', ?, 'req_old', 5000)`,
      ['{"error":"é"}'],
    );
    const { store } = await open(dir);
    const found = await store.idempotencyBegin({ keyId: 'k', route: '/v1/forecast', idempotencyKey: 'legacy' }, 'd', 'req_new', 1000, 500);
    expect(found).toEqual({
      state: 'completed',
      bodyDigest: 'd',
      response: { status: 422, contentType: 'application/json; charset=utf-8', body: Buffer.from('{"error":"é"}'), requestId: 'req_old' },
      storedBytes: Buffer.byteLength('{"error":"é"}'),
    });
  });

  it('sweep removes expired records, old windows and old days', async () => {
    const { store } = await open();
    await store.rpmConsume('a', 'p', 0, 5);
    // Settled: only the day's own sweep can take these points away, not an ended lease.
    const { hold } = await store.quotaReserve('a', '2020-01-01', 5, 10, 0, 1000);
    await store.quotaSettle(hold!, 5);
    await store.idempotencyBegin({ keyId: 'k', route: 'r', idempotencyKey: 'i' }, 'd', 'req_i', 0, 10);
    const done = { keyId: 'k', route: 'r', idempotencyKey: 'done' };
    await store.idempotencyBegin(done, 'd', 'req_x', 0, 10);
    await store.idempotencyComplete(done, { status: 200, contentType: 'text/plain', body: Buffer.from('x'), requestId: 'req_x' }, 0, 100);
    expect(rowsIn(store, 'idempotency')).toBe(2);
    // The day itself is kept while it is the oldest day kept.
    await store.sweep(1_000_000, '2020-01-01');
    expect(await store.quotaUsed('a', '2020-01-01')).toBe(5);
    await store.sweep(1_000_000, '2020-01-02');
    expect(rowsIn(store, 'idempotency')).toBe(0);
    expect(rowsIn(store, 'idempotency_chunks')).toBe(0);
    expect(await store.rpmPeek('a', 'p', 0)).toBe(0);
    expect(await store.quotaUsed('a', '2020-01-01')).toBe(0);
  });

  it('sweep keeps the current minute window, unexpired records and the days from the oldest kept one', async () => {
    const { store } = await open();
    const now = 1_000_000;
    const window = now - (now % 60_000);
    await store.rpmConsume('a', 'p', window, 5);
    await store.quotaReserve('a', '2020-01-02', 5, 10, now, 60_000);
    const live = { keyId: 'k', route: 'r', idempotencyKey: 'live' };
    await store.idempotencyBegin(live, 'd', 'req_x', now, 10);
    await store.idempotencyComplete(live, { status: 200, contentType: 'text/plain', body: Buffer.from('x'), requestId: 'req_x' }, now, 86_400_000);
    await store.sweep(now, '2020-01-02');
    expect(await store.rpmPeek('a', 'p', window)).toBe(1);
    expect(await store.quotaUsed('a', '2020-01-02')).toBe(5);
    expect(await store.idempotencyBegin(live, 'd', 'req_y', now + 1, 10)).toMatchObject({ state: 'completed' });
  });
});

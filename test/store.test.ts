import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DB_FILE_NAME, SqliteStore } from '../src/store/sqlite.js';
import { tempDataDir } from './helpers/app.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function open(dir = tempDataDir()): Promise<{ store: SqliteStore; dir: string }> {
  dirs.push(dir);
  return { store: await SqliteStore.open(dir), dir };
}

describe('sqlite store', () => {
  it('creates HORA_DATA_DIR when absent and migrates once; reopening keeps the data', async () => {
    const dir = join(tempDataDir(), 'nested', 'data');
    const { store } = await open(dir);
    expect(existsSync(join(dir, DB_FILE_NAME))).toBe(true);
    await store.createOrg('o', { preset: null, version: null });
    const again = await SqliteStore.open(dir);
    expect((await again.updateOrg('o', {}))?.org).toBe('o');
  });

  it('a refused per-minute call is not recorded', async () => {
    const { store } = await open();
    expect(await store.rpmConsume('a', 'forecast-rpm', 0, 2)).toEqual({ allowed: true, count: 1 });
    expect(await store.rpmConsume('a', 'forecast-rpm', 0, 2)).toEqual({ allowed: true, count: 2 });
    expect(await store.rpmConsume('a', 'forecast-rpm', 0, 2)).toEqual({ allowed: false, count: 2 });
    expect(await store.rpmPeek('a', 'forecast-rpm', 0)).toBe(2);
    expect((await store.rpmConsume('a', 'forecast-rpm', 60_000, 2)).allowed).toBe(true);
  });

  it('quota reservations never exceed the limit and refunds give points back', async () => {
    const { store } = await open();
    expect(await store.quotaReserve('a', '2026-01-01', 70, 100)).toEqual({ reserved: true, used: 70 });
    expect(await store.quotaReserve('a', '2026-01-01', 40, 100)).toEqual({ reserved: false, used: 70 });
    expect(await store.quotaReserve('a', '2026-01-01', 101, 100)).toEqual({ reserved: false, used: 70 });
    await store.quotaRefund('a', '2026-01-01', 20);
    expect(await store.quotaReserve('a', '2026-01-01', 50, 100)).toEqual({ reserved: true, used: 100 });
    expect(await store.quotaUsed('a', '2026-01-02')).toBe(0);
  });

  it('idempotency: one claim wins, a completed record replays until it expires, an abandoned one frees the key', async () => {
    const { store } = await open();
    const scope = { keyId: 'k', route: '/v1/forecast', idempotencyKey: 'x' };
    expect(await store.idempotencyBegin(scope, 'd1', 1000, 500)).toEqual({ state: 'started' });
    expect(await store.idempotencyBegin(scope, 'd1', 1100, 500)).toEqual({ state: 'in_progress', bodyDigest: 'd1' });
    // A running record past its lease (a dead process) is taken over.
    expect(await store.idempotencyBegin(scope, 'd2', 1600, 500)).toEqual({ state: 'started' });
    const response = { status: 200, contentType: 'application/json', body: '{"ok":1}', requestId: 'req_1' };
    await store.idempotencyComplete(scope, response, 1700, 10_000);
    expect(await store.idempotencyBegin(scope, 'd2', 2000, 500)).toEqual({ state: 'completed', bodyDigest: 'd2', response });
    expect(await store.idempotencyBegin(scope, 'd3', 11_701, 500)).toEqual({ state: 'started' });
    await store.idempotencyAbandon(scope);
    expect(await store.idempotencyBegin(scope, 'd4', 11_800, 500)).toEqual({ state: 'started' });
  });

  it('sweep removes expired records, old windows and old days', async () => {
    const { store } = await open();
    await store.rpmConsume('a', 'p', 0, 5);
    await store.quotaReserve('a', '2020-01-01', 5, 10);
    await store.idempotencyBegin({ keyId: 'k', route: 'r', idempotencyKey: 'i' }, 'd', 0, 10);
    await store.sweep(1_000_000, '2020-01-02');
    expect(await store.rpmPeek('a', 'p', 0)).toBe(0);
    expect(await store.quotaUsed('a', '2020-01-01')).toBe(0);
  });
});

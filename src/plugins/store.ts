// Opens the store (unless one is given) and sweeps expired records at start and once a minute.
import fp from 'fastify-plugin';
import { SqliteStore } from '../store/sqlite.js';
import type { Store } from '../store/store.js';

export interface StorePluginOptions {
  store?: Store;
}

const SWEEP_MS = 60_000;

function dayBefore(ms: number): string {
  return new Date(ms - 86_400_000).toISOString().slice(0, 10);
}

export default fp<StorePluginOptions>(
  async (app, opts) => {
    // A failure names the directory in one sentence (start-up prints it as is).
    const store = opts.store ?? (await SqliteStore.open(app.config.dataDir));
    app.decorate('store', store);
    // The operator CLI mints keys with the prefix recorded here (docs/service.md). Only once this
    // process serves: a start that fails (port in use) must not retag the running server's keys.
    app.addHook('onListen', async () => {
      const previous = await store.recordServedKeyPrefix(app.config.keyPrefix);
      if (previous !== null && previous !== app.config.keyPrefix) {
        app.log.warn(`HORA_KEY_PREFIX changed from "${previous}" to "${app.config.keyPrefix}": keys issued as ${previous}_live_... are refused from now on.`);
      }
    });
    const sweep = (): Promise<void> => {
      const now = app.clock.now();
      return store.sweep(now, dayBefore(now)).catch((err: unknown) => app.log.warn({ err }, 'store sweep failed'));
    };
    // At start too: reservations and records whose process died while this one was down are
    // returned now, not a minute later. Only expired ones: another process may share the file.
    await sweep();
    const timer = setInterval(() => void sweep(), SWEEP_MS);
    timer.unref();
    app.addHook('onClose', async () => {
      clearInterval(timer);
      if (!opts.store) await store.close();
    });
  },
  { name: 'hora-store', fastify: '5.x' },
);

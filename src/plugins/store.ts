// Opens the store (unless one is given) and sweeps expired records once a minute.
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
    const store = opts.store ?? (await SqliteStore.open(app.config.dataDir));
    app.decorate('store', store);
    const timer = setInterval(() => {
      const now = app.clock.now();
      store.sweep(now, dayBefore(now)).catch((err: unknown) => app.log.warn({ err }, 'store sweep failed'));
    }, SWEEP_MS);
    timer.unref();
    app.addHook('onClose', async () => {
      clearInterval(timer);
      if (!opts.store) await store.close();
    });
  },
  { name: 'hora-store', fastify: '5.x' },
);

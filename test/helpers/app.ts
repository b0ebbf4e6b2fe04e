// Builds the app on a temporary HORA_DATA_DIR and seeds an org, an account and a live key
// through the operator commands, as an operator would.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOverrides } from '../../src/app.js';
import { runCommand } from '../../src/cli/commands.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Store } from '../../src/store/store.js';
import { testRoutes, TestControl } from './routes.js';

/**
 * Real time, moved back to one second past the start of the current minute, so that a test has
 * 59 seconds before its per-minute window or its UTC day turns over (a test that crossed a minute
 * boundary saw its rpm counter reset halfway). `advance` moves it further.
 */
export class TestClock {
  offsetMs = Math.floor(Date.now() / 60_000) * 60_000 + 1000 - Date.now();
  now = (): number => Date.now() + this.offsetMs;
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  store: Store;
  clock: TestClock;
  control: TestControl;
  /** A live key with forecast:write on account `acct` of org `acme`. */
  key: string;
  keyId: string;
  /** Runs an operator command against the app's store. */
  hora(...argv: string[]): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'hora-test-'));
}

export async function makeTestApp(env: Record<string, string> = {}, overrides: Pick<AppOverrides, 'requestTimeoutMs'> = {}): Promise<TestApp> {
  const dataDir = tempDataDir();
  const config = loadConfig({ HORA_DATA_DIR: dataDir, ...env });
  const clock = new TestClock();
  const control = new TestControl();
  const app = await buildApp(config, { ...overrides, clock, logger: false, routes: testRoutes(control) });
  await app.ready();
  const hora = (...argv: string[]): Promise<Record<string, unknown>> => runCommand({ store: async () => app.store, keyPrefix: () => config.keyPrefix, now: () => new Date(clock.now()) }, argv);
  await hora('org', 'create', 'acme');
  await hora('account', 'create', 'acct', '--org', 'acme');
  const created = await hora('key', 'create', '--account', 'acct', '--name', 'test key');
  return {
    app,
    config,
    store: app.store,
    clock,
    control,
    key: String(created.key),
    keyId: String(created.key_id),
    hora,
    close: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls `cond` until it holds (a request reached a given stage), failing after `timeoutMs`. */
export async function waitFor(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 2));
  }
}

export const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });

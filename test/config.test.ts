import { constants as bufferConstants } from 'node:buffer';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('config', () => {
  it('defaults are the operator interface table', () => {
    expect(loadConfig({})).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      dataDir: resolve('./data'),
      keyPrefix: 'hora',
      forecastRpm: 600,
      cleanRpm: 60,
      dailyPoints: 50_000_000,
      cleanCapacity: availableParallelism(),
      requestBudgetMs: 30_000,
    });
  });

  it("the settings beyond the operator table default as docs/service.md's configuration table says", () => {
    expect(loadConfig({})).toMatchObject({
      inferenceSlots: 1,
      inferenceQueue: 16,
      inferenceWaitMs: 5_000,
      inferenceThreads: 2,
      bodyLimitBytes: 256 * 1024 * 1024,
      logLevel: 'info',
    });
    // The wait's default is min(5000, budget).
    expect(loadConfig({ HORA_REQUEST_BUDGET_MS: '1200' }).inferenceWaitMs).toBe(1_200);
  });

  it('an empty value means the default, as an unset one does', () => {
    const names = ['PORT', 'HORA_FORECAST_RPM', 'HORA_CLEAN_RPM', 'HORA_DAILY_POINTS', 'HORA_REQUEST_BUDGET_MS', 'HORA_INFERENCE_QUEUE', 'HORA_INFERENCE_WAIT_MS', 'HORA_KEY_PREFIX', 'HORA_LOG_LEVEL'];
    expect(loadConfig(Object.fromEntries(names.map((n) => [n, ''])))).toEqual(loadConfig({}));
  });

  it('HORA_INFERENCE_THREADS is 1 to 64', () => {
    expect(loadConfig({ HORA_INFERENCE_THREADS: '64' }).inferenceThreads).toBe(64);
    expect(() => loadConfig({ HORA_INFERENCE_THREADS: '65' })).toThrow(/HORA_INFERENCE_THREADS/);
  });

  it('HORA_KEY_PREFIX is 1 to 32 letters or digits', () => {
    expect(loadConfig({ HORA_KEY_PREFIX: 'A1'.repeat(16) }).keyPrefix).toBe('A1'.repeat(16));
    expect(() => loadConfig({ HORA_KEY_PREFIX: 'a'.repeat(33) })).toThrow(/HORA_KEY_PREFIX/);
  });

  it('reads every HORA_* variable, HOST and PORT', () => {
    const c = loadConfig({
      HOST: '0.0.0.0',
      PORT: '9000',
      HORA_DATA_DIR: '/tmp/hora-x',
      HORA_KEY_PREFIX: 'acme',
      HORA_FORECAST_RPM: '5',
      HORA_CLEAN_RPM: '6',
      HORA_DAILY_POINTS: '7',
      HORA_CLEAN_CAPACITY: '8',
      HORA_REQUEST_BUDGET_MS: '900',
      HORA_INFERENCE_SLOTS: '3',
      HORA_INFERENCE_QUEUE: '4',
      HORA_INFERENCE_WAIT_MS: '800',
      HORA_INFERENCE_THREADS: '5',
      HORA_BODY_LIMIT_BYTES: '2048',
      HORA_LOG_LEVEL: 'warn',
    });
    expect(c).toEqual({
      host: '0.0.0.0',
      port: 9000,
      dataDir: '/tmp/hora-x',
      keyPrefix: 'acme',
      forecastRpm: 5,
      cleanRpm: 6,
      dailyPoints: 7,
      cleanCapacity: 8,
      requestBudgetMs: 900,
      inferenceSlots: 3,
      inferenceQueue: 4,
      inferenceWaitMs: 800,
      inferenceThreads: 5,
      bodyLimitBytes: 2048,
      logLevel: 'warn',
    });
  });

  it('an invalid value fails with one sentence naming the variable', () => {
    expect(() => loadConfig({ HORA_FORECAST_RPM: 'many' })).toThrow(ConfigError);
    expect(() => loadConfig({ HORA_FORECAST_RPM: 'many' })).toThrow(/HORA_FORECAST_RPM/);
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/PORT/);
    expect(() => loadConfig({ HORA_CLEAN_CAPACITY: '0' })).toThrow(/HORA_CLEAN_CAPACITY/);
    expect(() => loadConfig({ HORA_KEY_PREFIX: 'a_b' })).toThrow(/HORA_KEY_PREFIX/);
    expect(() => loadConfig({ HORA_INFERENCE_THREADS: '0' })).toThrow(/HORA_INFERENCE_THREADS/);
    // Only decimal integers: not hex, not exponents, not fractions.
    for (const raw of ['0x10', '1e3', '5.0', '-1']) expect(() => loadConfig({ HORA_DAILY_POINTS: raw }), raw).toThrow(/HORA_DAILY_POINTS/);
    expect(loadConfig({ HORA_DAILY_POINTS: ' 5 ' }).dailyPoints).toBe(5);
    // Timers past 2^31 - 1 ms would fire at once; a wait past the budget could only time out.
    expect(() => loadConfig({ HORA_REQUEST_BUDGET_MS: String(2 ** 31) })).toThrow(/HORA_REQUEST_BUDGET_MS/);
    expect(loadConfig({ HORA_REQUEST_BUDGET_MS: String(2 ** 31 - 1) }).requestBudgetMs).toBe(2 ** 31 - 1);
    expect(() => loadConfig({ HORA_REQUEST_BUDGET_MS: '1000', HORA_INFERENCE_WAIT_MS: '60000' })).toThrow(/HORA_INFERENCE_WAIT_MS must be an integer from 0 to 1000/);
    // A body is read into one Buffer: a limit past the largest one could never be honoured.
    expect(() => loadConfig({ HORA_BODY_LIMIT_BYTES: String(bufferConstants.MAX_LENGTH + 1) })).toThrow(/HORA_BODY_LIMIT_BYTES/);
  });

  it('HORA_BODY_LIMIT_BYTES is at most 2^32 - 1 whatever Node\'s largest Buffer is, since the engine\'s string offsets are u32', () => {
    // On Node 20 MAX_LENGTH is 2^32; on Node 22+ it is 2^53 - 1. 2^32 is refused either way.
    const largest = Math.min(bufferConstants.MAX_LENGTH, 2 ** 32 - 1);
    expect(loadConfig({ HORA_BODY_LIMIT_BYTES: String(largest) }).bodyLimitBytes).toBe(largest);
    expect(() => loadConfig({ HORA_BODY_LIMIT_BYTES: String(2 ** 32) })).toThrow(`HORA_BODY_LIMIT_BYTES must be an integer from 1024 to ${largest}, got "${2 ** 32}".`);
  });

  it('under Node 22 semantics (largest Buffer 2^53 - 1) HORA_BODY_LIMIT_BYTES still refuses 2^32', async () => {
    vi.resetModules();
    vi.doMock('node:buffer', async (importOriginal) => {
      const real = await importOriginal<typeof import('node:buffer')>();
      return { ...real, constants: { ...real.constants, MAX_LENGTH: 2 ** 53 - 1 } };
    });
    try {
      const fresh = await import('../src/config.js');
      expect(fresh.loadConfig({ HORA_BODY_LIMIT_BYTES: String(2 ** 32 - 1) }).bodyLimitBytes).toBe(2 ** 32 - 1);
      expect(() => fresh.loadConfig({ HORA_BODY_LIMIT_BYTES: String(2 ** 32) })).toThrow(`HORA_BODY_LIMIT_BYTES must be an integer from 1024 to ${2 ** 32 - 1}, got "${2 ** 32}".`);
    } finally {
      vi.doUnmock('node:buffer');
      vi.resetModules();
    }
  });
});

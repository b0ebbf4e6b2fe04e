// Environment -> one typed config object. Defaults are the operator interface's.
import { constants as bufferConstants } from 'node:buffer';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';

export interface Config {
  host: string;
  port: number;
  /** Absolute path of the embedded state directory. */
  dataDir: string;
  /** Live keys are `<prefix>_live_...`, test keys `<prefix>_test_...`. */
  keyPrefix: string;
  forecastRpm: number;
  cleanRpm: number;
  /** Daily point quota per account and UTC day. */
  dailyPoints: number;
  /** Cleaning jobs in flight across all accounts; /clean never queues beyond it. */
  cleanCapacity: number;
  /** Inference budget per request; beyond it 504 GATEWAY_TIMEOUT. */
  requestBudgetMs: number;
  /** Model runs in flight (not in the operator table; see docs/service.md). */
  inferenceSlots: number;
  /** Requests allowed to wait for a model run slot; beyond it 503 MODEL_BUSY. */
  inferenceQueue: number;
  /** Longest wait for a model run slot; beyond it 503 MODEL_BUSY. */
  inferenceWaitMs: number;
  /** Row groups of one model run that run at once, one thread each (docs/service.md). */
  inferenceThreads: number;
  /** Largest request body accepted, in bytes (see docs/service.md for the sizing). */
  bodyLimitBytes: number;
  logLevel: string;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Longest timer Node keeps (a longer one fires after 1 ms, with only a warning). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A decimal integer in [min, max]; unset or empty is the default. `0x10` and `1e3` are refused. */
function int(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = /^[0-9]+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}".`);
  }
  return value;
}

function str(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? fallback : raw.trim();
}

/** pino's levels, which Fastify's logger takes. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function oneOf(env: Env, name: string, fallback: string, allowed: string[]): string {
  const value = str(env, name, fallback);
  if (!allowed.includes(value)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${env[name]}".`);
  return value;
}

// A typical 200,000-row body is about 12 MB. The contract bounds neither ids nor column names, so
// no byte limit admits every 200,000-row body: 256 MiB is 1,342 bytes per row, enough for 8
// covariate columns with descriptive names, long ids and indented pretty-printing (docs/service.md).
export const MAX_ROWS = 200_000;
export const DEFAULT_BODY_LIMIT_BYTES = 256 * 1024 * 1024;
/**
 * A body is read into one Buffer, so no more than Node's largest (2^53 - 1 on Node 22+); and the
 * engine's string column offsets are u32, so no more than 2^32 - 1 bytes either.
 */
export const MAX_BODY_LIMIT_BYTES = Math.min(bufferConstants.MAX_LENGTH, 2 ** 32 - 1);

/** The part of the config the operator CLI needs (it must not fail on server-only settings). */
export function loadStoreConfig(env: Env = process.env): Pick<Config, 'dataDir' | 'keyPrefix'> {
  const keyPrefix = str(env, 'HORA_KEY_PREFIX', 'hora');
  if (!/^[A-Za-z0-9]{1,32}$/.test(keyPrefix)) {
    throw new ConfigError(`HORA_KEY_PREFIX must be 1 to 32 letters or digits, got "${keyPrefix}".`);
  }
  return { dataDir: resolve(str(env, 'HORA_DATA_DIR', './data')), keyPrefix };
}

/** `HORA_INFERENCE_THREADS`: the model's lanes (the model loads before the rest of the config is used). */
export function inferenceThreads(env: Env = process.env): number {
  return int(env, 'HORA_INFERENCE_THREADS', 2, 1, 64);
}

export function loadConfig(env: Env = process.env): Config {
  const { dataDir, keyPrefix } = loadStoreConfig(env);
  const requestBudgetMs = int(env, 'HORA_REQUEST_BUDGET_MS', 30_000, 1, MAX_TIMER_MS);
  return {
    host: str(env, 'HOST', '127.0.0.1'),
    port: int(env, 'PORT', 8080, 0, 65_535),
    dataDir,
    keyPrefix,
    forecastRpm: int(env, 'HORA_FORECAST_RPM', 600, 1),
    cleanRpm: int(env, 'HORA_CLEAN_RPM', 60, 1),
    dailyPoints: int(env, 'HORA_DAILY_POINTS', 50_000_000, 1),
    cleanCapacity: int(env, 'HORA_CLEAN_CAPACITY', availableParallelism(), 1),
    requestBudgetMs,
    inferenceSlots: int(env, 'HORA_INFERENCE_SLOTS', 1, 1),
    inferenceQueue: int(env, 'HORA_INFERENCE_QUEUE', 16, 0),
    // A wait longer than the budget could only end in the budget's 504 (docs/service.md).
    inferenceWaitMs: int(env, 'HORA_INFERENCE_WAIT_MS', Math.min(5_000, requestBudgetMs), 0, requestBudgetMs),
    inferenceThreads: inferenceThreads(env),
    bodyLimitBytes: int(env, 'HORA_BODY_LIMIT_BYTES', DEFAULT_BODY_LIMIT_BYTES, 1024, MAX_BODY_LIMIT_BYTES),
    logLevel: oneOf(env, 'HORA_LOG_LEVEL', 'info', LOG_LEVELS),
  };
}

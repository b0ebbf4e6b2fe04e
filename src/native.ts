// The only module that imports the addon. Everything the service asks of Rust goes through here.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Addon from '../native/index.js';
import { inferenceThreads } from './config.js';

export type {
  CleaningParams,
  EngineError,
  FieldErrorJs as FieldError,
  ForecastParams,
  ForecastCleaning,
  ForecastParts,
  ModelInfo,
  ParsedRequest,
} from '../native/index.js';

/** The package root: this file runs from `src/` (vitest) and from `dist/src/` (compiled). */
export const packageRoot: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('The package root (package.json) was not found.');
    dir = parent;
  }
  return dir;
})();

const loaderPath = join(packageRoot, 'native', 'index.js');
if (!existsSync(loaderPath)) throw new Error('The native addon (native/index.js) was not found: run `npm ci` to build it.');
const addon: typeof Addon = await import(pathToFileURL(loaderPath).href);

export const SqliteDb = addon.SqliteDb;
export type SqliteDb = Addon.SqliteDb;
/** `err.code` of a store call refused because a row with that key already exists. */
export const UNIQUE_VIOLATION = addon.UNIQUE_VIOLATION;

/**
 * Where libonnxruntime is: `ORT_DYLIB_PATH` when set, else the copy shipped inside the npm package
 * onnxruntime-node (its own binding is never loaded, only the shared library).
 */
export function onnxRuntimePath(env: NodeJS.ProcessEnv = process.env): string {
  const set = setting(env, 'ORT_DYLIB_PATH');
  if (set) return resolve(set);
  const require = createRequire(join(packageRoot, 'package.json'));
  let pkgDir: string;
  try {
    pkgDir = dirname(require.resolve('onnxruntime-node/package.json'));
  } catch {
    return join(packageRoot, 'node_modules/onnxruntime-node/bin/napi-v6', process.platform, process.arch, 'libonnxruntime.so.1');
  }
  const libName = process.platform === 'darwin' ? 'libonnxruntime.1.dylib' : 'libonnxruntime.so.1';
  return join(pkgDir, 'bin/napi-v6', process.platform, process.arch, libName);
}

/** The committed model, unless `HORA_MODEL_PATH` points elsewhere. */
export function modelPath(env: NodeJS.ProcessEnv = process.env): string {
  const set = setting(env, 'HORA_MODEL_PATH');
  return set ? resolve(set) : join(packageRoot, 'models', `${REQUEST_SHAPE.modelName}.onnx`);
}

/** A variable's value, or undefined when it is unset, empty or blank (as in src/config.ts). */
function setting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  return env[name]?.trim() || undefined;
}

/**
 * The load failure's sentence, naming the variable whose path failed (docs/service.md); without
 * ORT_DYLIB_PATH, a missing runtime also says how to get one.
 */
export function loadFailure(failure: Addon.LoadFailure, env: NodeJS.ProcessEnv): string {
  const variable = failure.part === 'runtime' ? 'ORT_DYLIB_PATH' : 'HORA_MODEL_PATH';
  if (setting(env, variable)) return `${variable}: ${failure.message}`;
  return failure.part === 'runtime' && failure.missing ? failure.message.replace(/\.$/, '; run `npm ci` or set ORT_DYLIB_PATH.') : failure.message;
}

let model: Addon.ModelInfo | undefined;

/**
 * Loads ONNX Runtime and the model once per process. Throws an Error whose message is one
 * sentence naming what is missing or malformed; the server refuses to start on it.
 */
export function loadModel(env: NodeJS.ProcessEnv = process.env): Addon.ModelInfo {
  if (!model) {
    const loaded = addon.loadModel(modelPath(env), onnxRuntimePath(env), inferenceThreads(env));
    if (loaded.failure) throw new Error(loadFailure(loaded.failure, env));
    model = loaded.model;
    if (!model) throw new Error('The model could not be loaded, and the addon gave no reason.');
  }
  return model;
}

export const parseRequest = addon.parseRequest;
/**
 * What the engine accepts: the body's fields, the covariate and error-list caps, the options' value
 * lists and ranges, and the model's name. The request schemas are built from it.
 */
export const REQUEST_SHAPE = addon.requestShape();
/** The closed value lists of the report and the response parts, as the engine writes them. */
export const REPORT_SHAPE = addon.reportShape();
export const canonicalDigest = addon.canonicalDigestOf;
/** Step 8 of the forecast: the cleaning stage, before a model slot is taken. */
export const runForecastCleaning = addon.runForecastCleaningTask;
/** Step 9: the model call over a cleaned request (each cleaning is taken once). */
export const runForecast = addon.runForecastTask;
/** The pieces joined into one Buffer on the thread pool, not on the event loop (src/serialize.ts). */
export const joinBytes = addon.joinBytesTask;
export const runClean = addon.runCleanTask;
/** Validation step 3 for `ds`: reads every stamp once (kept for the cleaning); the error, or null. */
export const readStamps = addon.readStampsTask;
/** The pre-cleaning SERIES_TOO_LONG check (validation order step 6): the error, or null. */
export const runLengthCheck = addon.runLengthCheckTask;
export const checkQuantiles = addon.checkQuantiles;
export const checkCleaningOptions = addon.checkCleaningOptions;
/** The engine's cleaning policy table: versions (newest first) and the platform default. */
export const cleaningPolicies = addon.cleaningPolicies;
export const engineErrorCodes = addon.engineErrorCodes;
/** The time engine's parse path over one `ds` column (benchmark and cross-check with src/time). */
export const parseDsColumn = addon.parseDsColumn;
/** Why `options.timezone` names no zone the engine knows, in the engine's words; null when it does (validation order step 3). */
export const timeZoneError = addon.timeZoneError;
/** Why `options.cleaning.bounds` cannot be used, in the engine's words, or null (validation step 3). */
export const boundsError = addon.boundsError;

/**
 * The addon's regrid-plus-linear-impute kernel (benchmark and cross-check with src/clean/kernel.ts):
 * the output is allocated here, in memory JavaScript owns, and filled by Rust in place.
 */
export const regridImputeKernelOffsets = addon.regridImputeOffsets;
/** The same kernel writing into a caller's output sized by `regridImputeKernelOffsets` (reusable). */
export const regridImputeKernelInto = addon.regridImputeInto;
export function regridImputeKernel(stamps: Float64Array, values: Float64Array, indptr: Uint32Array, step: number): { values: Float64Array; indptr: Uint32Array } {
  const offsets = addon.regridImputeOffsets(stamps, indptr, step);
  const out = new Float64Array(offsets[offsets.length - 1] ?? 0);
  addon.regridImputeInto(stamps, values, indptr, step, offsets, out);
  return { values: out, indptr: offsets };
}

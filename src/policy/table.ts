// The cleaning policy table as the engine holds it (crates/hora-core/src/clean/policy.rs and
// options.rs): the service reads the presets, the versions and the platform's defaults from there
// and keeps no copy of its own.
import { cleaningPolicies, REQUEST_SHAPE } from '../native.js';

const table = cleaningPolicies();

/** A contract preset (`default`, `strict`, `raw`: fixed by the contract, not by a policy version). */
export type Preset = string;
/** The engine's presets, in the contract's order. */
export const PRESETS: readonly Preset[] = REQUEST_SHAPE.presets;
/** The presets that clean, and so have a cleaning report for /clean to show (raw does not). */
export const CLEAN_PRESETS: readonly Preset[] = table.cleaningPresets;
/** The platform's preset, where no request, key or org sets one. */
export const DEFAULT_PRESET: Preset = table.defaultPreset;

/** Whether `preset` cleans the data; one that does not (raw) sends it as it is, on a fixed freq. */
export function cleans(preset: Preset): boolean {
  return CLEAN_PRESETS.includes(preset);
}

/** A version of the engine's table (`2026-13`, ...). */
export type PolicyVersion = string;

/** Newest first. */
export const POLICY_VERSIONS: readonly PolicyVersion[] = table.versions;
export const DEFAULT_VERSION: PolicyVersion = table.defaultVersion;

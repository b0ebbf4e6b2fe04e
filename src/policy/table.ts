// The cleaning policy table as the engine holds it (crates/hora-core/src/clean/policy.rs): the
// service reads the presets, the versions and the platform default from there and keeps no copy
// of its own.
import { cleaningPolicies, REQUEST_SHAPE } from '../native.js';

/** A contract preset (`default`, `strict`, `raw`: fixed by the contract, not by a policy version). */
export type Preset = string;
/** The engine's presets, in the contract's order. */
export const PRESETS: readonly Preset[] = REQUEST_SHAPE.presets;
/** The presets /clean runs: raw has no cleaning report to show. */
export const CLEAN_PRESETS: readonly Preset[] = PRESETS.filter((p) => p !== 'raw');

/** A version of the engine's table (`2026-13`, ...). */
export type PolicyVersion = string;

const table = cleaningPolicies();
/** Newest first. */
export const POLICY_VERSIONS: readonly PolicyVersion[] = table.versions;
export const DEFAULT_VERSION: PolicyVersion = table.defaultVersion;

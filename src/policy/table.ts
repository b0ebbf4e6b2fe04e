// The cleaning policy table as the engine holds it (crates/hora-core/src/clean/policy.rs): the
// service reads the versions and the platform default from there and keeps no copy of its own.
import { cleaningPolicies } from '../native.js';

/** The contract's presets (fixed by the contract, not by a policy version). */
export type Preset = 'default' | 'strict' | 'raw';
export const PRESETS: readonly Preset[] = ['default', 'strict', 'raw'];
/** The presets /clean runs: raw has no cleaning report to show. */
export const CLEAN_PRESETS: readonly Preset[] = ['default', 'strict'];

/** A version of the engine's table (`2026-13`, ...). */
export type PolicyVersion = string;

const table = cleaningPolicies();
/** Newest first. */
export const POLICY_VERSIONS: readonly PolicyVersion[] = table.versions;
export const DEFAULT_VERSION: PolicyVersion = table.defaultVersion;

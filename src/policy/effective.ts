// Validation order step 5: which cleaning preset and version apply (request, key, org, platform),
// and whether the request's cleaning options are allowed under them. The policy table itself
// (versions, knobs, deprecations) lives in the engine (crates/hora-core/src/clean/policy.rs), read
// through ./table.ts.
import { ApiError, fromEngineError } from '../errors.js';
import { checkCleaningOptions as engineCheck } from '../native.js';
import { invalidBody } from '../validation/body.js';
import { CLEAN_PRESETS, cleans, DEFAULT_PRESET, DEFAULT_VERSION, type PolicyVersion, type Preset } from './table.js';
import type { Static } from 'typebox';
import type { CleaningParams } from '../native.js';
import type { TopLevelFields } from '../schemas/request.js';
import type { EffectivePolicy as EffectivePolicySchema } from '../schemas/response.js';
import type { CleaningDefaults, Endpoint } from '../store/store.js';

/** Where a preset or version came from, the most specific first. */
export const POLICY_SOURCES = ['request', 'key', 'org', 'platform'] as const;
export type PolicySource = (typeof POLICY_SOURCES)[number];

/** The response's `effective_policy` (src/schemas/response.ts). */
export type EffectivePolicy = Static<typeof EffectivePolicySchema>;

/** The key's and the org's defaults, as the store keeps them (`null` when unset). */
export interface CleaningDefaultsByLevel {
  key: CleaningDefaults;
  org: CleaningDefaults;
}

const PLATFORM: CleaningDefaults = { preset: DEFAULT_PRESET, version: DEFAULT_VERSION };

type Cleaning = NonNullable<NonNullable<TopLevelFields['options']>['cleaning']>;

/** The levels from the most specific; the platform sets both fields. */
function levels(cleaning: Cleaning | undefined, defaults: CleaningDefaultsByLevel): Array<[PolicySource, CleaningDefaults]> {
  return [
    ['request', { preset: (cleaning?.preset ?? null) as Preset | null, version: (cleaning?.version ?? null) as PolicyVersion | null }],
    ['key', defaults.key],
    ['org', defaults.org],
    ['platform', PLATFORM],
  ];
}

/**
 * Preset and version each come from the most specific level that sets them; `source` is the most
 * specific level that supplied either (docs/decisions.md). Unknown values are refused by the
 * engine's check (checkCleaningOptions).
 */
export function resolvePolicy(cleaning: Cleaning | undefined, defaults: CleaningDefaultsByLevel): EffectivePolicy {
  const byLevel = levels(cleaning, defaults);
  const presetFrom = byLevel.find(([, l]) => l.preset != null)!;
  const versionFrom = byLevel.find(([, l]) => l.version != null)!;
  const preset = presetFrom[1].preset as Preset;
  const version = versionFrom[1].version as PolicyVersion;
  const source = POLICY_SOURCES[Math.min(POLICY_SOURCES.indexOf(presetFrom[0]), POLICY_SOURCES.indexOf(versionFrom[0]))];
  return { id: `${preset}@${version}`, preset, version, source };
}

/** The level the preset alone came from (where a refused raw preset was set). */
export function presetSource(cleaning: Cleaning | undefined, defaults: CleaningDefaultsByLevel): PolicySource {
  return levels(cleaning, defaults).find(([, l]) => l.preset != null)![0];
}

/** Step 5: the engine's policy check, then the route-level rules of a preset that does not clean (raw). */
export function checkCleaningOptions(
  top: TopLevelFields,
  policy: EffectivePolicy,
  cleaning: CleaningParams,
  route: Endpoint,
  presetFrom: PolicySource,
): void {
  // /clean offers only the presets that have a report: the engine lists those for an unknown one.
  const refused = engineCheck(cleaning, route === 'clean');
  if (refused) throw fromEngineError(refused);
  if (cleans(policy.preset)) return;
  if (route === 'clean') {
    // raw inherited from a key or org default is refused too (contract); say which level set the
    // preset (not effective_policy.source, which a version sent alone makes `request`), since the
    // caller never sent it, and that sending a preset overrides it.
    const inherited = presetFrom === 'request' ? '' : ` (the ${presetFrom}'s default; send options.cleaning.preset to override it)`;
    throw new ApiError('CLEANING_OPTION_UNSUPPORTED', `The ${policy.preset} preset${inherited} has no cleaning report to show on /clean.`, {
      details: { field: 'options.cleaning.preset', allowed: CLEAN_PRESETS, source: presetFrom },
    });
  }
  if (top.freq === undefined) {
    // As the engine's own check of the same rule words it (crates/hora-core/src/clean/raw.rs),
    // which only hosts other than this service reach.
    throw invalidBody([{ field: 'freq', message: `is required with the ${policy.preset} preset` }]);
  }
}

// Validation order step 5: which cleaning preset and version apply (request, key, org, platform),
// and whether the request's cleaning options are allowed under them. The policy table itself
// (versions, knobs, deprecations) lives in the engine (crates/hora-core/src/clean/policy.rs).
import { ApiError, fromEngineError } from '../errors.js';
import { checkCleaningOptions as engineCheck } from '../native.js';
import type { PolicyVersion, Preset } from '../store/store.js';
import type { TopLevelFields } from '../schemas/request.js';

export type PolicySource = 'request' | 'key' | 'org' | 'platform';

export interface EffectivePolicy {
  id: string;
  preset: Preset;
  version: PolicyVersion;
  source: PolicySource;
}

interface Defaults {
  preset?: Preset | null;
  version?: PolicyVersion | null;
}

export interface CleaningDefaultsByLevel {
  key: Defaults;
  org: Defaults;
}

const PLATFORM: Required<Defaults> = { preset: 'default', version: '2026-13' };
const ORDER: PolicySource[] = ['request', 'key', 'org', 'platform'];

type Cleaning = NonNullable<NonNullable<TopLevelFields['options']>['cleaning']>;

/**
 * Preset and version each come from the most specific level that sets them; `source` is the most
 * specific level that supplied either (docs/decisions.md). Unknown values are refused by the
 * engine's check (checkCleaningOptions).
 */
export function resolvePolicy(cleaning: Cleaning | undefined, defaults: CleaningDefaultsByLevel): EffectivePolicy {
  const levels: Array<[PolicySource, Defaults]> = [
    ['request', { preset: cleaning?.preset as Preset | undefined, version: cleaning?.version as PolicyVersion | undefined }],
    ['key', defaults.key],
    ['org', defaults.org],
    ['platform', PLATFORM],
  ];
  const presetFrom = levels.find(([, l]) => l.preset != null)!;
  const versionFrom = levels.find(([, l]) => l.version != null)!;
  const preset = presetFrom[1].preset as Preset;
  const version = versionFrom[1].version as PolicyVersion;
  const source = ORDER[Math.min(ORDER.indexOf(presetFrom[0]), ORDER.indexOf(versionFrom[0]))];
  return { id: `${preset}@${version}`, preset, version, source };
}

/** Step 5: the engine's policy check, then the route-level rules of the raw preset. */
export function checkCleaningOptions(
  top: TopLevelFields,
  policy: EffectivePolicy,
  cleaning: Record<string, unknown>,
  route: 'forecast' | 'clean',
): void {
  const refused = engineCheck(cleaning);
  if (refused) throw fromEngineError(refused);
  if (policy.preset !== 'raw') return;
  if (route === 'clean') {
    throw new ApiError('CLEANING_OPTION_UNSUPPORTED', 'The raw preset has no cleaning report to show on /clean.', {
      field: 'options.cleaning.preset',
      allowed: ['default', 'strict'],
    });
  }
  if (top.freq === undefined) {
    throw new ApiError('VALIDATION_ERROR', 'The raw preset requires freq.', {
      errors: [{ field: 'freq', message: 'is required with the raw preset' }],
    });
  }
}

// Validation order step 5: which cleaning preset and version apply, and whether the request's
// cleaning options are allowed under them.
import { ApiError } from '../errors.js';
import { CleaningKnobs } from '../schemas/request.js';
import { POLICY_VERSIONS, PRESETS, type PolicyVersion, type Preset } from '../store/store.js';
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

export const PLATFORM_PRESET: Preset = 'default';
export const PLATFORM_VERSION: PolicyVersion = '2026-13';
/** Versions that still work but are announced for removal. */
export const DEPRECATED_VERSIONS: readonly PolicyVersion[] = ['2026-12', '2026-11', '2026-10'];
/** The first version that takes the cleaning knobs. */
export const KNOBS_FROM_VERSION: PolicyVersion = '2026-11';

type Cleaning = NonNullable<NonNullable<TopLevelFields['options']>['cleaning']>;

/**
 * Each of preset and version comes from the most specific level that sets it (request, key, org,
 * platform); `source` is the most specific level that supplied either (docs/decisions.md).
 */
export function resolvePolicy(cleaning: Cleaning | undefined, defaults: CleaningDefaultsByLevel): EffectivePolicy {
  const requested = cleaning ?? {};
  if (requested.preset !== undefined && !PRESETS.includes(requested.preset as Preset)) {
    throw new ApiError('CLEANING_OPTION_UNSUPPORTED', `Unknown cleaning preset "${requested.preset}".`, {
      field: 'options.cleaning.preset',
      allowed: PRESETS,
    });
  }
  if (requested.version !== undefined && !POLICY_VERSIONS.includes(requested.version as PolicyVersion)) {
    throw new ApiError('CLEANING_OPTION_UNSUPPORTED', `Unknown cleaning policy version "${requested.version}".`, {
      field: 'options.cleaning.version',
      allowed: POLICY_VERSIONS,
    });
  }
  const levels: Array<[PolicySource, Defaults]> = [
    ['request', { preset: requested.preset as Preset | undefined, version: requested.version as PolicyVersion | undefined }],
    ['key', defaults.key],
    ['org', defaults.org],
  ];
  const pick = <K extends 'preset' | 'version'>(k: K) => levels.find(([, l]) => l[k] != null);
  const presetFrom = pick('preset');
  const versionFrom = pick('version');
  const preset = (presetFrom?.[1].preset ?? PLATFORM_PRESET) as Preset;
  const version = (versionFrom?.[1].version ?? PLATFORM_VERSION) as PolicyVersion;
  const order: PolicySource[] = ['request', 'key', 'org', 'platform'];
  const source = order[Math.min(order.indexOf(presetFrom?.[0] ?? 'platform'), order.indexOf(versionFrom?.[0] ?? 'platform'))];
  return { id: `${preset}@${version}`, preset, version, source };
}

/** The knobs (and accept/decline) set in the request, in the contract's order. */
function knobsSent(cleaning: Cleaning | undefined): string[] {
  if (!cleaning) return [];
  return CleaningKnobs.filter((k) => (cleaning as Record<string, unknown>)[k] !== undefined);
}

/** Step 5: options that the effective preset or version does not take. */
export function checkCleaningOptions(
  top: TopLevelFields,
  policy: EffectivePolicy,
  route: 'forecast' | 'clean',
): void {
  const cleaning = top.options?.cleaning;
  const knobs = knobsSent(cleaning);
  if (policy.preset === 'raw') {
    if (route === 'clean') {
      throw new ApiError('CLEANING_OPTION_UNSUPPORTED', 'The raw preset has no cleaning report to show on /clean.', {
        field: 'options.cleaning.preset',
        allowed: PRESETS.filter((p) => p !== 'raw'),
      });
    }
    const refused = [...(cleaning?.accept ? ['accept'] : []), ...(cleaning?.decline ? ['decline'] : []), ...knobs];
    if (refused.length > 0) {
      throw new ApiError('CLEANING_OPTION_UNSUPPORTED', 'The raw preset takes no cleaning options.', {
        field: `options.cleaning.${refused[0]}`,
        options: refused,
        supported: [],
      });
    }
    if (top.freq === undefined) {
      throw new ApiError('VALIDATION_ERROR', 'The raw preset requires freq.', {
        errors: [{ field: 'freq', message: 'is required with the raw preset' }],
      });
    }
  }
  if (knobs.length > 0 && POLICY_VERSIONS.indexOf(policy.version) > POLICY_VERSIONS.indexOf(KNOBS_FROM_VERSION)) {
    throw new ApiError('CLEANING_OPTION_UNSUPPORTED', `Cleaning option ${knobs[0]} requires policy version ${KNOBS_FROM_VERSION} or later.`, {
      field: `options.cleaning.${knobs[0]}`,
      requires_version: KNOBS_FROM_VERSION,
    });
  }
}

// Validation order steps 3 to 5, shared by POST /v1/forecast and POST /v1/clean: the body's
// fields and rows, the stamps, the row cap, then the cleaning preset and version.
import { cleaningOptions } from '../forecast/params.js';
import type { CleaningParams, ParsedRequest } from '../native.js';
import { checkCleaningOptions, presetSource, resolvePolicy, type CleaningDefaultsByLevel, type EffectivePolicy } from '../policy/effective.js';
import type { TopLevelFields } from '../schemas/request.js';
import type { Endpoint } from '../store/store.js';
import { checkFutureRows, checkRowCap, checkStamps, parseAndValidate } from './body.js';

export interface ValidatedRequest {
  parsed: ParsedRequest;
  top: TopLevelFields;
  policy: EffectivePolicy;
  /** The cleaning options handed to the engine (resolved preset and version included). */
  cleaning: CleaningParams;
  /** Milliseconds spent reading the body and its stamps (the `parse` stage). */
  parseMs: number;
}

export async function validateRequest(
  raw: Buffer,
  opts: { endpoint: Endpoint; defaults: CleaningDefaultsByLevel },
): Promise<ValidatedRequest> {
  const started = performance.now();
  const { parsed, top } = await parseAndValidate(raw, opts.endpoint === 'forecast');
  const policy = resolvePolicy(top.options?.cleaning, opts.defaults);
  const cleaning = cleaningOptions(top, policy);
  await checkStamps(parsed, cleaning, top.freq ?? undefined, opts.endpoint);
  checkFutureRows(parsed);
  const parseMs = performance.now() - started;
  checkRowCap(parsed, opts.endpoint);
  checkCleaningOptions(top, policy, cleaning, opts.endpoint, presetSource(top.options?.cleaning, opts.defaults));
  return { parsed, top, policy, cleaning, parseMs };
}

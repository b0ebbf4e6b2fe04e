// How long what a running request holds in the store (its idempotency record, its daily-quota
// reservation) outlives a process that died holding it.
import type { Config } from '../config.js';

/** Margin past the longest model run (its wait and its budget) for cleaning and the response. */
const LEASE_MARGIN_MS = 60_000;

export function requestLeaseMs(config: Pick<Config, 'requestBudgetMs' | 'inferenceWaitMs'>): number {
  return config.requestBudgetMs + config.inferenceWaitMs + LEASE_MARGIN_MS;
}

// How long a request can run, and how long what it holds in the store (its idempotency record,
// its daily-quota reservation) outlives a process that died holding it.
import type { Config } from '../config.js';

type Timing = Pick<Config, 'requestBudgetMs' | 'inferenceWaitMs'>;

/** Margin past the longest model run for cleaning and the response. */
const LEASE_MARGIN_MS = 60_000;

/** The longest a model run can take a request: its wait for a slot, then its whole budget. */
export function longestModelRunMs(config: Timing): number {
  return config.inferenceWaitMs + config.requestBudgetMs;
}

export function requestLeaseMs(config: Timing): number {
  return longestModelRunMs(config) + LEASE_MARGIN_MS;
}

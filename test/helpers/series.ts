// Series bodies for tests: regular stamps, seeded values, the contract's long-table rows.
import { rng } from '../../bench/fixtures.js';

export { rng };

export interface Row {
  unique_id: string;
  ds: string;
  y: number | null;
  [covariate: string]: unknown;
}

const HOUR_MS = 3_600_000;

/** `YYYY-MM-DDTHH:MM:SSZ` */
export function isoZ(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** Hourly rows from 2024-01-01T00:00:00Z with values `value(i)`. */
export function hourlyRows(id: string, n: number, value: (i: number) => number | null, startMs = Date.UTC(2024, 0, 1)): Row[] {
  return Array.from({ length: n }, (_, i) => ({ unique_id: id, ds: isoZ(startMs + i * HOUR_MS), y: value(i) }));
}

/** A daily-seasonal hourly series with noise. */
export function seasonalRows(id: string, n: number, seed = 1, level = 100): Row[] {
  const r = rng(seed);
  return hourlyRows(id, n, (i) => level + 10 * Math.sin((2 * Math.PI * i) / 24) + (r() - 0.5) * 2);
}

/** `count` entities of `n` hourly points each. */
export function manyEntities(count: number, n: number): Row[] {
  return Array.from({ length: count }, (_, e) => seasonalRows(`s${e}`, n, e + 1, 50 + e)).flat();
}

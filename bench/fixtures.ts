// Seeded request bodies shared by the benchmarks (built outside every timed closure).

/** A small deterministic generator (mulberry32), shared with the tests' fixtures. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HOUR_MS = 3_600_000;
const START = Date.UTC(2024, 0, 1);

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** `entities` × `points` hourly rows with daily seasonality and noise, as a JSON body. */
export function forecastBody(entities: number, points: number, h: number, seed = 1): string {
  const r = rng(seed);
  const rows: string[] = [];
  for (let e = 0; e < entities; e++) {
    const level = 50 + 10 * r();
    for (let i = 0; i < points; i++) {
      const y = level + 10 * Math.sin((2 * Math.PI * i) / 24) + r();
      rows.push(`{"unique_id":"s${e}","ds":"${iso(START + i * HOUR_MS)}","y":${y.toFixed(4)}}`);
    }
  }
  return `{"h":${h},"freq":"h","level":[80,90],"series":[${rows.join(',')}]}`;
}

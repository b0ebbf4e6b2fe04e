// Parse throughput of the Rust addon against the plain-TypeScript path, on 200,000 ISO stamps
// (with `Z`) and 200,000 naive stamps read in Europe/Berlin. Each side gets the `ds` column in
// its natural form: the addon the UTF-8 bytes (as the engine receives the request body), the JS
// path an array of strings (as JSON.parse gives them). Results are checked equal before timing.

import { existsSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Bench } from 'tinybench';
import { parseDsJs } from '../src/time/parse.js';

type Addon = typeof import('../native/index.js');

const N = 200_000;
const HOUR_MS = 3_600_000;
const START = Date.UTC(2024, 0, 1);

/** The addon from the source tree (tsx/vitest) or from next to dist/ (compiled run). */
async function loadAddon(): Promise<Addon> {
  for (const rel of ['../native/index.js', '../../native/index.js']) {
    const url = new URL(rel, import.meta.url);
    if (existsSync(fileURLToPath(url))) return (await import(url.href)) as Addon;
  }
  throw new Error('native addon not built (npm run build:native)');
}

function isoStamps(): string[] {
  return Array.from({ length: N }, (_, i) => new Date(START + i * HOUR_MS).toISOString().slice(0, 19) + 'Z');
}

/** Hourly local wall-clock stamps over 22 years, so every Berlin DST change is crossed. */
function naiveStamps(): string[] {
  return Array.from({ length: N }, (_, i) => new Date(START + i * HOUR_MS).toISOString().slice(0, 19).replace('T', ' '));
}

interface Case {
  name: string;
  ds: string[];
  zone: string | null;
}

function assertSame(addon: Addon, c: Case, bytes: Buffer): void {
  const a = addon.parseDsColumn(bytes, c.zone).instants;
  const j = parseDsJs(c.ds, c.zone).instants;
  if (a.length !== j.length) throw new Error(`${c.name}: lengths differ`);
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== j[i]) throw new Error(`${c.name}: row ${i} (${c.ds[i]}) addon ${a[i]} vs JS ${j[i]}`);
  }
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export async function run(): Promise<string> {
  const addon = await loadAddon();
  const cases: Case[] = [
    { name: `${fmt(N)} ISO stamps (Z)`, ds: isoStamps(), zone: null },
    { name: `${fmt(N)} naive stamps in Europe/Berlin`, ds: naiveStamps(), zone: 'Europe/Berlin' },
  ];
  const lines = [
    '## Time engine: `ds` parse throughput',
    '',
    `Machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, Node ${process.version}, ` +
      `load average ${os.loadavg().map((x) => x.toFixed(2)).join(' / ')} at start.`,
    '',
    '| Input | Implementation | Mean per parse | Stamps/s | Addon speed-up |',
    '|---|---|---|---|---|',
  ];
  for (const c of cases) {
    const bytes = Buffer.from(c.ds.join('\n'));
    assertSame(addon, c, bytes);
    const bench = new Bench({ time: 2000, warmup: true });
    bench
      .add('addon (ds bytes)', () => {
        addon.parseDsColumn(bytes, c.zone);
      })
      .add('addon (incl. join + Buffer.from)', () => {
        addon.parseDsColumn(Buffer.from(c.ds.join('\n')), c.zone);
      })
      .add('JS path (string[])', () => {
        parseDsJs(c.ds, c.zone);
      });
    await bench.run();
    const mean = new Map<string, number>();
    for (const task of bench.tasks) {
      const r = task.result;
      if (r.state !== 'completed') throw new Error(`${task.name} did not complete: ${r.state}`);
      mean.set(task.name, r.latency.mean);
    }
    const js = mean.get('JS path (string[])')!;
    for (const [name, ms] of mean) {
      const speedup = name.startsWith('JS') ? '1.0x' : `${(js / ms).toFixed(1)}x`;
      lines.push(`| ${c.name} | ${name} | ${ms.toFixed(2)} ms | ${fmt((N / ms) * 1000)} | ${speedup} |`);
    }
  }
  lines.push('', 'Results were checked identical (every instant) before timing.', '');
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run().then((md) => console.log(md));
}

// Parse throughput of the Rust addon against the plain-TypeScript path, on 200,000 ISO stamps
// (with `Z`) and 200,000 naive stamps read in Europe/Berlin. Each side gets the `ds` column in
// its natural form: the addon the UTF-8 bytes (as the engine receives the request body), the JS
// path an array of strings (as JSON.parse gives them). Results are checked equal before timing.

import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { Bench } from 'tinybench';
import { parseDsColumn } from '../src/native.js';
import { parseDsJs } from '../src/time/parse.js';
import { cpuLine } from './machine.js';

const N = 200_000;
const HOUR_MS = 3_600_000;
const START = Date.UTC(2024, 0, 1);

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

function assertSame(c: Case, bytes: Buffer): void {
  const out = parseDsColumn(bytes, c.zone);
  if (!out.parsed) throw new Error(`${c.name}: the addon refused the stamps: ${out.error?.code} ${out.error?.message}`);
  const a = out.parsed.instants;
  const j = parseDsJs(c.ds, c.zone).instants;
  if (a.length !== j.length) throw new Error(`${c.name}: lengths differ`);
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== j[i]) throw new Error(`${c.name}: row ${i} (${c.ds[i]}) addon ${a[i]} vs JS ${j[i]}`);
  }
}

/** Mean CPU time (user + system, ms) of `fn` over `runs` calls: on a shared, loaded machine this
 * moves far less than wall time, which also counts time spent waiting for a core. */
function cpuMs(fn: () => void, runs = 10): number {
  fn();
  const start = process.cpuUsage();
  for (let i = 0; i < runs; i++) fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / runs;
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export async function run(): Promise<string> {
  const cases: Case[] = [
    { name: `${fmt(N)} ISO stamps (Z)`, ds: isoStamps(), zone: null },
    { name: `${fmt(N)} naive stamps in Europe/Berlin`, ds: naiveStamps(), zone: 'Europe/Berlin' },
  ];
  const lines = [
    '## Time engine: `ds` parse throughput',
    '',
    `Machine: ${cpuLine()}, Node ${process.version}, ` +
      `load average ${os.loadavg().map((x) => x.toFixed(2)).join(' / ')} at start.`,
    '',
    '| Input | Implementation | Mean wall per parse | Stamps/s (wall) | Speed-up (wall) | CPU per parse | Speed-up (CPU) |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const c of cases) {
    const bytes = Buffer.from(c.ds.join('\n'));
    assertSame(c, bytes);
    const impls: [string, () => void][] = [
      ['addon (ds bytes)', () => parseDsColumn(bytes, c.zone)],
      ['addon (incl. join + Buffer.from)', () => parseDsColumn(Buffer.from(c.ds.join('\n')), c.zone)],
      ['JS path (string[])', () => parseDsJs(c.ds, c.zone)],
    ];
    const bench = new Bench({ time: 2000, warmup: true });
    for (const [name, fn] of impls) bench.add(name, fn);
    await bench.run();
    const wall = new Map<string, number>();
    for (const task of bench.tasks) {
      const r = task.result;
      if (r.state !== 'completed') throw new Error(`${task.name} did not complete: ${r.state}`);
      wall.set(task.name, r.latency.mean);
    }
    const cpu = new Map(impls.map(([name, fn]) => [name, cpuMs(fn)] as const));
    const jsWall = wall.get('JS path (string[])')!;
    const jsCpu = cpu.get('JS path (string[])')!;
    for (const [name] of impls) {
      const w = wall.get(name)!;
      const u = cpu.get(name)!;
      lines.push(
        `| ${c.name} | ${name} | ${w.toFixed(2)} ms | ${fmt((N / w) * 1000)} | ${(jsWall / w).toFixed(1)}x | ` +
          `${u.toFixed(2)} ms | ${(jsCpu / u).toFixed(1)}x |`,
      );
    }
  }
  lines.push(
    '',
    'Results were checked identical (every instant) before timing. The addon gets the `ds` column as bytes, as the',
    'engine receives it inside the request body; the second addon row adds the cost of building those bytes in JS.',
    '',
  );
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run().then((md) => console.log(md));
}

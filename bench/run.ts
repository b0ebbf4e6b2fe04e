// `npm run bench`: every benchmark in one process, one after another, printed as markdown;
// `npm run bench -- --write` also writes bench/RESULTS.md with the machine and the commit.
import { execSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../src/native.js';
import { cpuLine } from './machine.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const suites = ['forecast', 'model', 'time', 'clean'];

function machine(): string {
  const commit = (() => {
    try {
      return execSync('git rev-parse --short HEAD', { cwd: packageRoot }).toString().trim();
    } catch {
      return 'unknown';
    }
  })();
  return `Machine: ${cpuLine()}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; Node ${process.version}; commit ${commit}; ${new Date().toISOString().slice(0, 10)}.`;
}

const sections = [`# Benchmark results`, '', machine(), '', 'The machine is shared and noisy: compare ratios measured in one run.', ''];
for (const name of suites) {
  const file = join(here, `${name}.bench.js`);
  if (!existsSync(file)) continue;
  const mod = (await import(file)) as { run: () => Promise<string> };
  const section = await mod.run();
  console.log(section);
  sections.push(section);
}
if (process.argv.includes('--write')) {
  writeFileSync(join(packageRoot, 'bench', 'RESULTS.md'), `${sections.join('\n')}\n`);
  console.log('wrote bench/RESULTS.md');
}

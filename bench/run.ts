// `npm run bench`: every benchmark in one process, one after another, printed as markdown;
// `npm run bench -- --write` also writes bench/RESULTS.md with the machine and the commit.
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../src/native.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const suites = ['forecast', 'model', 'time', 'clean'];

/** The widest vector extension the CPU reports: ONNX Runtime's kernels differ with it, so model
 * timings from machines that differ here are not comparable. */
function vectorUnits(): string {
  try {
    const flags = new Set(/^flags\s*:(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1].trim().split(/\s+/) ?? []);
    return flags.has('avx512f') ? 'AVX-512' : flags.has('avx2') ? 'AVX2' : flags.has('avx') ? 'AVX' : 'no AVX';
  } catch {
    return 'vector units unknown';
  }
}

function machine(): string {
  const commit = (() => {
    try {
      return execSync('git rev-parse --short HEAD', { cwd: packageRoot }).toString().trim();
    } catch {
      return 'unknown';
    }
  })();
  const cpu = cpus();
  return `Machine: ${cpu[0]?.model ?? 'unknown CPU'} (${vectorUnits()}), ${cpu.length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; Node ${process.version}; commit ${commit}; ${new Date().toISOString().slice(0, 10)}.`;
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

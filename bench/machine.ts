// The CPU facts every benchmark line names: timings from machines that differ here are not
// comparable.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** The widest vector extension the CPU reports: ONNX Runtime's and the parsers' kernels differ
 * with it. */
export function vectorUnits(): string {
  try {
    const flags = new Set(/^flags\s*:(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1].trim().split(/\s+/) ?? []);
    return flags.has('avx512f') ? 'AVX-512' : flags.has('avx2') ? 'AVX2' : flags.has('avx') ? 'AVX' : 'no AVX';
  } catch {
    return 'vector units unknown';
  }
}

/** `AMD EPYC (AVX2), 2 cores` */
export function cpuLine(): string {
  const cpu = cpus();
  return `${cpu[0]?.model ?? 'unknown CPU'} (${vectorUnits()}), ${cpu.length} cores`;
}

// One table of regrid + linear-impute cases against both implementations: the addon's kernel and
// the plain-TypeScript path used as the benchmark baseline (the Rust test reads the same table).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { regridImpute, regridImputeInto, regridOffsets } from '../src/clean/kernel.js';
import { regridImputeKernel, regridImputeKernelInto, regridImputeKernelOffsets } from '../src/native.js';

interface Case {
  name: string;
  step: number;
  stamps: number[];
  values: (number | null)[];
  indptr: number[];
  expected: (number | null)[];
  expected_indptr: number[];
}
const { cases } = JSON.parse(readFileSync(new URL('./clean-kernel-cases.json', import.meta.url), 'utf8')) as { cases: Case[] };

const implementations = {
  addon: regridImputeKernel,
  typescript: regridImpute,
};

for (const [name, kernel] of Object.entries(implementations)) {
  describe(`regrid + linear impute (${name})`, () => {
    for (const c of cases) {
      it(c.name, () => {
        const out = kernel(
          Float64Array.from(c.stamps),
          Float64Array.from(c.values.map((v) => v ?? Number.NaN)),
          Uint32Array.from(c.indptr),
          c.step,
        );
        expect(Array.from(out.indptr)).toEqual(c.expected_indptr);
        expect(Array.from(out.values).map((v) => (Number.isNaN(v) ? null : v))).toEqual(c.expected);
      });
    }
  });
}

describe('regrid + linear impute (addon) on bad columns', () => {
  it('refuses stamps that go backwards instead of writing out of its grid', () => {
    expect(() => regridImputeKernel(Float64Array.from([0, 20, 10]), Float64Array.from([1, 2, 3]), Uint32Array.from([0, 3]), 10)).toThrow(/not after the previous one/);
  });
});

describe('regrid + linear impute into a reused output', () => {
  it('overwrites every slot of a dirty output, addon and TypeScript alike', () => {
    const stamps = Float64Array.from([0, 10, 20, 50, 60, 5, 15, 45]);
    const values = Float64Array.from([1, 2, Number.NaN, 8, 9, 0, 1, 4]);
    const indptr = Uint32Array.from([0, 5, 8]);
    const expected = regridImpute(stamps, values, indptr, 10).values;
    for (const [offsetsOf, into] of [
      [regridImputeKernelOffsets, regridImputeKernelInto],
      [regridOffsets, regridImputeInto],
    ] as const) {
      const offsets = offsetsOf(stamps, indptr, 10);
      expect(Array.from(offsets)).toEqual([0, 7, 12]);
      const out = new Float64Array(offsets[offsets.length - 1]).fill(-999);
      into(stamps, values, indptr, 10, offsets, out);
      into(stamps, values, indptr, 10, offsets, out);
      expect(Array.from(out)).toEqual(Array.from(expected));
    }
    expect(Array.from(expected)).toEqual([1, 2, 3.5, 5, 6.5, 8, 9, 0, 1, 2, 3, 4]);
  });
});

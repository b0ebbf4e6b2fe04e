// The regrid-plus-linear-impute kernel in plain TypeScript: the benchmark's baseline for the
// addon's kernel (crates/hora-core/src/clean/kernels.rs, `regrid_impute`). Both take the same
// columns and must return the same grids (test/clean-kernel.test.ts runs one table of cases
// against both).

export interface RegridResult {
  /** Filled grids of every entity, back to back. */
  values: Float64Array;
  /** Entity e is values[indptr[e]..indptr[e + 1]]. */
  indptr: Uint32Array;
}

/** Offsets of every entity's grid back to back: sizes the output of `regridImputeInto`. */
export function regridOffsets(stamps: Float64Array, indptr: Uint32Array, step: number): Uint32Array {
  const entities = indptr.length - 1;
  const offsets = new Uint32Array(entities + 1);
  for (let e = 0; e < entities; e++) {
    const a = indptr[e];
    const b = indptr[e + 1];
    offsets[e + 1] = offsets[e] + (b > a ? Math.round((stamps[b - 1] - stamps[a]) / step) + 1 : 0);
  }
  return offsets;
}

/**
 * Entity e is stamps[indptr[e]..indptr[e + 1]]: sorted distinct instants (microseconds, as
 * numbers) on one grid of `step`, written to out[offsets[e]..offsets[e + 1]]. Empty slots between
 * observations are filled on a straight line; the rest stay NaN.
 */
export function regridImputeInto(stamps: Float64Array, y: Float64Array, indptr: Uint32Array, step: number, offsets: Uint32Array, out: Float64Array): void {
  out.fill(Number.NaN);
  const entities = indptr.length - 1;
  for (let e = 0; e < entities; e++) {
    const a = indptr[e];
    const b = indptr[e + 1];
    const base = offsets[e];
    const start = stamps[a];
    let prevSlot = -1;
    let prevValue = Number.NaN;
    for (let i = a; i < b; i++) {
      const slot = Math.round((stamps[i] - start) / step);
      const v = y[i];
      out[base + slot] = v;
      // Fill the run between the previous observed value and this one.
      if (prevSlot >= 0 && slot - prevSlot > 1 && Number.isFinite(v) && Number.isFinite(prevValue)) {
        const len = slot - prevSlot;
        for (let k = 1; k < len; k++) out[base + prevSlot + k] = prevValue + ((v - prevValue) * k) / len;
      }
      // A null (NaN) is skipped: its slot joins the run filled at the next value.
      if (Number.isFinite(v)) {
        prevSlot = slot;
        prevValue = v;
      }
    }
  }
}

/** `regridImputeInto` with its own output. */
export function regridImpute(stamps: Float64Array, y: Float64Array, indptr: Uint32Array, step: number): RegridResult {
  const offsets = regridOffsets(stamps, indptr, step);
  const values = new Float64Array(offsets[offsets.length - 1]);
  regridImputeInto(stamps, y, indptr, step, offsets, values);
  return { values, indptr: offsets };
}

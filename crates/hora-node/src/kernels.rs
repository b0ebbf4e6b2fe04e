//! The regrid-plus-impute kernel over plain columns, for the benchmark's comparison with the
//! plain-TypeScript path (`src/clean/kernel.ts`).

use hora_core::clean;
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// `indptr` as entity bounds, once checked against the columns it slices.
fn kernel_columns(stamps: &[f64], values_len: usize, indptr: &[u32], step_micros: f64) -> Result<Vec<usize>> {
    let bounds: Vec<usize> = indptr.iter().map(|&i| i as usize).collect();
    if values_len != stamps.len() || bounds.windows(2).any(|w| w[0] > w[1]) || bounds.last().is_some_and(|&e| e > stamps.len()) {
        return Err(Error::new(Status::InvalidArg, "stamps, values and indptr do not describe the same entities"));
    }
    // Written so that NaN fails too.
    if !(step_micros.is_finite() && step_micros >= 1.0) {
        return Err(Error::new(Status::InvalidArg, format!("the step must be a finite number of microseconds of at least 1, not {step_micros}")));
    }
    Ok(bounds)
}

/// Sizes the regrid-plus-impute kernel's output: the offsets of every entity's grid. Stamps are
/// microseconds carried as f64 (exact below 2^53).
#[napi(catch_unwind)]
pub fn regrid_impute_offsets(stamps: &[f64], indptr: &[u32], step_micros: f64) -> Result<Uint32Array> {
    let entities = kernel_columns(stamps, stamps.len(), indptr, step_micros)?;
    let offsets = clean::kernels::regrid_offsets(stamps, &entities, step_micros as i64);
    let offsets: std::result::Result<Vec<u32>, _> = offsets.into_iter().map(u32::try_from).collect();
    let offsets = offsets.map_err(|_| Error::new(Status::InvalidArg, "the grids have 2^32 slots or more, more than a Uint32Array offset holds"))?;
    Ok(Uint32Array::new(offsets))
}

/// The regrid-plus-linear-impute kernel, writing into `out` (allocated by the caller from
/// `regridImputeOffsets`, so the grids live in memory JavaScript owns): the benchmark's match for
/// the plain-TypeScript path (`src/clean/kernel.ts`).
#[napi(catch_unwind)]
pub fn regrid_impute_into(stamps: &[f64], values: &[f64], indptr: &[u32], step_micros: f64, offsets: &[u32], mut out: Float64Array) -> Result<()> {
    let entities = kernel_columns(stamps, values.len(), indptr, step_micros)?;
    let offsets: Vec<usize> = offsets.iter().map(|&o| o as usize).collect();
    if offsets.len() != entities.len() || offsets.last().copied().unwrap_or(0) != out.len() || offsets.windows(2).any(|w| w[0] > w[1]) {
        return Err(Error::new(Status::InvalidArg, "out and offsets do not match regridImputeOffsets"));
    }
    // SAFETY: the call is synchronous on the JS thread and `out` is borrowed nowhere else meanwhile.
    let out = unsafe { out.as_mut() };
    clean::kernels::regrid_impute_into(stamps, values, &entities, step_micros as i64, &offsets, out)
        .map_err(|e| Error::new(Status::InvalidArg, format!("stamp {} is not after the previous one on the grid", e.index)))
}

//! Validation order steps that read the rows (3: the stamps; 6: the length before cleaning), each
//! run on the thread pool and answering the error or null.

use crate::body::{ParsedRequest, ReadStamps, RequestRows};
use crate::clean::{with_request, CleanParams};
use crate::errors::EngineError;
use crate::guard::{EngineTask, Guarded};
use hora_core::clean::{self, CleanRequest};
use hora_core::HoraError;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::sync::Arc;

/// A check of the validation order over the parsed rows.
type RowCheck = dyn FnMut(&CleanRequest) -> std::result::Result<(), HoraError> + Send;

/// One check of the validation order that reads the rows: the error, or null.
pub struct CheckTask {
    rows: RequestRows,
    params: CleanParams,
    check: Box<RowCheck>,
}

impl EngineTask for CheckTask {
    type Output = Option<EngineError>;
    type JsValue = Option<EngineError>;

    fn run(&mut self) -> Result<Self::Output> {
        let CheckTask { rows, params, check } = self;
        Ok(with_request(rows, params, |r| check(r)).err().map(Into::into))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        Ok(output)
    }
}

/// The pre-cleaning `SERIES_TOO_LONG` check (validation order step 6) on the thread pool: the
/// error, or null. Only entities over the maximum context are cleaned, to see whether a long gap
/// cuts them.
#[napi(ts_return_type = "Promise<EngineError | null>")]
pub fn run_length_check_task(request: &ParsedRequest, params: CleanParams) -> Result<AsyncTask<Guarded<CheckTask>>> {
    Ok(AsyncTask::new(Guarded(CheckTask { rows: request.rows()?, params, check: Box::new(clean::check_length) })))
}

/// Validation order step 3 for the stamps on the thread pool: every `ds` (and future `ds`) read in
/// the request's zone and day/month order; the `VALIDATION_ERROR` of an unreadable one, or null.
/// The stamps read stay with the request for its cleaning when `keep_stamps`; a request over the row
/// cap, refused next, keeps none (`clean::check_stamps`).
#[napi(ts_return_type = "Promise<EngineError | null>")]
pub fn read_stamps_task(request: &ParsedRequest, params: CleanParams, keep_stamps: bool) -> Result<AsyncTask<Guarded<CheckTask>>> {
    let keep: ReadStamps = request.stamps.clone();
    let rows = request.rows()?;
    let readable = rows.body.future_with_stamps();
    let check = Box::new(move |req: &CleanRequest| {
        let req = CleanRequest { future: readable.as_ref().or(req.future), ..*req };
        if !keep_stamps {
            return clean::check_stamps(&req);
        }
        let read = clean::read_stamps(&req)?;
        if let Ok(mut slot) = keep.lock() {
            *slot = read.map(Arc::new);
        }
        Ok(())
    });
    Ok(AsyncTask::new(Guarded(CheckTask { rows, params, check })))
}

//! Engine errors cross to JavaScript as data (`{code, message, detailsJson}`), never as a
//! message to parse.

use hora_core::{ErrorCode, HoraError};
use napi::bindgen_prelude::Buffer;
use napi_derive::napi;

#[napi(object)]
pub struct EngineError {
    /// A contract error code; `src/errors.ts` gives its status, category and retryable.
    pub code: String,
    pub message: String,
    /// `details` as UTF-8 JSON bytes. Not a JS object built node by node: a cleaning report of
    /// 50,000 entities has millions of values, past napi's one-million-node bound for such
    /// conversions. Nor a JS string: the report of long ids can pass V8's longest string
    /// (2^29 - 24 characters), where the conversion failed and a 422 became a 500; bytes also
    /// cross without being transcoded on the event loop.
    pub details_json: Buffer,
}

impl From<HoraError> for EngineError {
    fn from(e: HoraError) -> Self {
        let details_json = e.details_json().into_bytes().into();
        EngineError { code: e.code.as_str().to_string(), message: e.message, details_json }
    }
}

/// Every code the engine can raise (a test checks them against the service's registry).
#[napi]
pub fn engine_error_codes() -> Vec<String> {
    ErrorCode::ALL.iter().map(|c| c.as_str().to_string()).collect()
}
